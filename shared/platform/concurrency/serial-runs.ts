/**
 * Runs a task per key one at a time in this process, coalescing the requests for it: a request while
 * no run is under way starts one at once; requests while one is under way share a single run after
 * it. Each request's promise settles with a run that started after the request, so what was true
 * when it was made (an event stored, say) is seen by that run.
 *
 * So a stream of requests for one key (every audited write asking for its trail to be sequenced)
 * costs one run at a time, however many callers there are, rather than one run each that mostly
 * races the others.
 *
 * @example
 * const sequencing = new SerialRuns((trail: string) => sequencer.drain(trail));
 * void sequencing.request(trail).catch(log); // do not wait
 * await sequencing.request(trail);           // or wait for a run that sees what is stored now
 */
export class SerialRuns<K> {
  /** Keys with a run under way, and the promise of the run to follow it, when one was requested meanwhile. */
  private readonly running = new Map<K, { next?: Deferred }>();

  constructor(private readonly run: (key: K) => Promise<void>) {}

  request(key: K): Promise<void> {
    const under = this.running.get(key);
    if (under) return (under.next ??= deferred()).promise;
    const first = deferred();
    this.running.set(key, {});
    void this.loop(key, first);
    return first.promise;
  }

  /** How many keys have a run under way. */
  get active(): number {
    return this.running.size;
  }

  private async loop(key: K, current: Deferred): Promise<void> {
    for (;;) {
      try {
        await this.run(key);
        current.resolve();
      } catch (error) {
        current.reject(error);
      }
      const state = this.running.get(key)!;
      if (!state.next) {
        this.running.delete(key);
        return;
      }
      current = state.next;
      state.next = undefined;
    }
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
