import { setTimeout as sleep } from "node:timers/promises";

export interface SourceLimits {
  /** Calls in flight at once towards the vendor; the others wait their turn. */
  maxConcurrency: number;
  /** Calls started per second, when the vendor publishes a rate limit; unset: no rate. */
  maxRequestsPerSecond?: number;
}

/**
 * A vendor's limits as this process keeps them: at most `maxConcurrency` calls in flight and, if set,
 * `maxRequestsPerSecond` calls started per second (waiting, never spinning). The routing gateway
 * enters it inside the circuit breakers, so that a breaker's refusal never waits in line, and tells
 * the breakers when the call is sent: time spent in line here is this process's, not the vendor's, and
 * must not make a healthy vendor look as if it had stopped answering (`CircuitBreakers.pendingMs`).
 * A vendor's `Retry-After` is honoured by the breakers, per workspace: one tenant asked to back off
 * does not hold back every other. Limits are per process (each Functions instance keeps its own).
 *
 * @example
 * const leave = await limiter.enter(signal);
 * try { return await gateway.listIncidents(query, signal); } finally { leave(); }
 */
export class SourceLimiter {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private nextStartAt = 0;

  constructor(
    private readonly limits: SourceLimits,
    private readonly nowMs: () => number = Date.now,
    private readonly wait: (ms: number) => Promise<unknown> = sleep,
  ) {
    if (!Number.isInteger(limits.maxConcurrency) || limits.maxConcurrency < 1) throw new Error("maxConcurrency must be a positive integer.");
  }

  /**
   * Waits for a place and for the pace, and answers the function that gives the place back. A caller
   * whose `signal` aborts while in line leaves the line at once (with the signal's reason): nobody
   * waits for its answer any more, so it must not take a place from those still waiting.
   */
  async enter(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    // A place given back goes straight to the first in line (`leave`), so none is taken past the limit meanwhile.
    if (this.inFlight >= this.limits.maxConcurrency) await this.inLine(signal);
    else this.inFlight++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    };
    try {
      await this.pace();
    } catch (error) {
      leave();
      throw error;
    }
    return leave;
  }

  private inLine(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener("abort", abandon);
        resolve();
      };
      const abandon = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason);
      };
      this.waiting.push(turn);
      signal?.addEventListener("abort", abandon, { once: true });
    });
  }

  private async pace(): Promise<void> {
    const rate = this.limits.maxRequestsPerSecond;
    if (!rate) return;
    const now = this.nowMs();
    const startAt = Math.max(now, this.nextStartAt);
    this.nextStartAt = startAt + 1000 / rate;
    if (startAt > now) await this.wait(startAt - now);
  }
}
