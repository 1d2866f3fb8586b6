import { setMaxListeners } from "node:events";
import { ApiError, type CommitState } from "../errors/api-error";

/** Listeners a request's signal takes before Node warns: one per upstream call in flight at once, with room. */
const REQUEST_SIGNAL_LISTENERS = 1_000;

/**
 * A request's deadline: its server-side time budget. Its `signal` aborts at the deadline, and every
 * store read and upstream call of the request takes it, so work nobody waits for any more stops. The
 * deadline is carried explicitly, as the operation context's `deadline` (a handler's input has it), not
 * in an async-local store: while one is in use, Node runs a hook on every promise of the process,
 * which cost the warm request about a sixth of its time. Writes go through `commit`:
 * a write starts only while enough of the budget is left for it to finish (`reserveMs`), never once
 * the caller has been answered, and once one has started the request's answer says so.
 *
 * @example
 * const deadline = new Deadline(20_000);
 * await commit({ deadline: ctx.deadline, read, change, write }); // through deadline.commit
 * await deadline.commit(() => store.replace(doc, etag)); // TIMEOUT when too late to start
 */
export class Deadline {
  /** `performance.now()` at which the budget ends. */
  readonly endsAt: number;
  private controller?: AbortController;
  private reachedPromise?: Promise<void>;
  private reach?: () => void;
  private expiredAt?: number;
  private stateAtExpiry?: CommitState;
  private writesInFlight = 0;
  private writesDone = 0;
  /** Its neighbours among the deadlines pending (`Expiries`); undefined once it finished or expired. */
  previousPending?: Deadline;
  nextPending?: Deadline;

  /**
   * @param budgetMs the request's whole budget
   * @param reserveMs the least time a write needs: none starts with less left
   * @param client the caller's signal, aborted when the caller goes away (writes keep only this one);
   *   a function when the host makes it on first use, so that a request whose work reads no signal
   *   never makes it
   */
  constructor(
    readonly budgetMs: number,
    readonly reserveMs: number = defaultReserveMs(budgetMs),
    private readonly client?: AbortSignal | (() => AbortSignal),
  ) {
    this.endsAt = performance.now() + budgetMs;
    expiries.add(this);
  }

  /**
   * Settles when the budget runs out (never, when the request finishes first). Made on first use.
   * The pipeline races the work against it with `Promise.race`: one promise of its own a request in
   * its place (the race's settling wired to the deadline) made the warm GET's server CPU 1.38 times
   * as much over HTTP, in the same alternating rounds.
   */
  get reached(): Promise<void> {
    return (this.reachedPromise ??= this.expired ? Promise.resolve() : new Promise((resolve) => (this.reach = resolve)));
  }

  /**
   * Aborted when the budget runs out (reason: the 504 TIMEOUT) or the caller goes away. Made on first
   * use and joined to the caller's signal by a listener: `AbortSignal.any` costs tens of microseconds
   * a request, more than the rest of the pipeline.
   */
  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      // A request's work fans out (a page's store reads, 16 at once; each Cosmos operation listens to
      // the signal): past Node's default of 10 listeners it would warn of a leak that is none, since
      // the signal lives as long as its request.
      setMaxListeners(REQUEST_SIGNAL_LISTENERS, controller.signal);
      if (this.expired) controller.abort(this.timeoutError("none"));
      const client = this.clientSignal;
      if (client?.aborted) controller.abort(client.reason);
      else client?.addEventListener("abort", () => controller.abort(client.reason), { once: true });
    }
    return this.controller.signal;
  }

  /** The caller's own signal: aborted only when the caller goes away. */
  get clientSignal(): AbortSignal | undefined {
    return typeof this.client === "function" ? this.client() : this.client;
  }

  remainingMs(): number {
    return this.endsAt - performance.now();
  }

  /** Whether the budget has run out (the caller has been, or is being, answered 504). */
  get expired(): boolean {
    return this.expiredAt !== undefined;
  }

  /** What the request has changed so far. */
  get commitState(): CommitState {
    if (this.writesInFlight > 0) return "in-progress";
    return this.writesDone > 0 ? "committed" : "none";
  }

  /**
   * Runs a write (a store commit, a change at a vendor) as part of this request. The request's first
   * write starts only before the deadline and with at least `reserveMs` left, else TIMEOUT and nothing
   * is written; once one has started, the rest of the same change may follow (a vendor change and the
   * state that records it), so a change is never left half-made because time ran out between its
   * parts. The write runs with the caller's signal only: aborted mid-flight, its outcome would be
   * unknown.
   */
  async commit<T>(write: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    if (this.writesInFlight === 0 && this.writesDone === 0) {
      if (this.expired) throw this.timeoutError("none");
      if (this.remainingMs() < this.reserveMs) {
        // Too late to start: answer now, and make sure nothing starts later either.
        this.expire();
        throw this.timeoutError("none");
      }
    }
    this.writesInFlight++;
    try {
      const result = await write(this.clientSignal);
      this.writesDone++;
      return result;
    } finally {
      this.writesInFlight--;
    }
  }

  /** The 504 a caller gets when the budget runs out, saying what was changed when it did. */
  timeoutError(commit: CommitState = this.stateAtExpiry ?? this.commitState): ApiError {
    const detail = {
      none: "Nothing was changed; the request may be sent again.",
      committed: "The change was saved before the time ran out; read the resource to see it before sending the request again.",
      "in-progress": "A change was being saved when the time ran out and completes on its own; read the resource to see it before sending the request again.",
    }[commit];
    return new ApiError("TIMEOUT", `The request did not complete within the server's ${this.budgetMs} ms budget. ${detail}`, { commit });
  }

  /** Ends the budget now: aborts the request's reads and calls. Idempotent. */
  expire(): void {
    if (this.expiredAt !== undefined) return;
    this.expiredAt = performance.now();
    this.stateAtExpiry = this.commitState;
    expiries.remove(this);
    this.controller?.abort(this.timeoutError("none"));
    this.reach?.();
  }

  /** The request was answered in time: nothing is to happen at its deadline any more. */
  finish(): void {
    expiries.remove(this);
  }
}

/**
 * The deadlines of the process's requests in progress, and one timer for all of them, set for the
 * earliest. A timer of its own for each request (set, then cleared when it is answered in time, as
 * nearly all are) cost about a microsecond of every request; here a request joins a list and leaves
 * it, and the timer is set again only when a deadline earlier than its own comes, or when it fires.
 * A list linked through the deadlines themselves, as Node links its own timers: a `Set`, added to and
 * deleted from at every request, rehashed as it grew and shrank, and cost as much as the timer.
 */
class Expiries {
  private first?: Deadline;
  private last?: Deadline;
  private timer?: NodeJS.Timeout;
  /** `performance.now()` at which the timer fires; Infinity when none is set. */
  private timerAt = Infinity;

  add(deadline: Deadline): void {
    deadline.previousPending = this.last;
    if (this.last) this.last.nextPending = deadline;
    else this.first = deadline;
    this.last = deadline;
    if (deadline.endsAt < this.timerAt) this.arm(deadline.endsAt);
  }

  /** A deadline finished or expired; the timer stays, and finds nothing due or the next one when it fires. */
  remove(deadline: Deadline): void {
    const { previousPending: previous, nextPending: next } = deadline;
    if (!previous && this.first !== deadline) return; // not pending (already removed)
    if (previous) previous.nextPending = next;
    else this.first = next;
    if (next) next.previousPending = previous;
    else this.last = previous;
    deadline.previousPending = deadline.nextPending = undefined;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(at - performance.now())));
    // An idle process must not be kept alive for it.
    this.timer.unref();
  }

  /** Expires what is due; a deadline not yet due by `performance.now()` (the timer may fire a millisecond early) waits on. */
  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    // The due ones are expired after the walk: expiring one runs its signal's listeners, which may
    // finish or start other requests, and so change the list.
    const due: Deadline[] = [];
    for (let deadline = this.first; deadline; deadline = deadline.nextPending) {
      if (deadline.endsAt <= now) due.push(deadline);
      else if (deadline.endsAt < next) next = deadline.endsAt;
    }
    for (const deadline of due) deadline.expire();
    if (next < Infinity && next < this.timerAt) this.arm(next);
  }
}

const expiries = new Expiries();

/** A write needs at most this much of what is left; a quarter of a short budget. */
export function defaultReserveMs(budgetMs: number): number {
  return Math.min(2_000, Math.floor(budgetMs / 4));
}

/**
 * A write through `deadline` when there is one (`Deadline.commit`: the request's work), else the write
 * as it is (a queue worker's, a timer's: no request waits on them).
 */
export function commitWithin<T>(deadline: Deadline | undefined, write: (signal: AbortSignal | undefined) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return deadline ? deadline.commit(write) : write(signal);
}
