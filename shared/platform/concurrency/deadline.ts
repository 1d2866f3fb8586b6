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
  /** Settles when the budget runs out (never, when the request finishes first). */
  readonly reached: Promise<void>;
  /** `performance.now()` at which the budget ends. */
  readonly endsAt: number;
  private controller?: AbortController;
  private readonly timer: NodeJS.Timeout;
  private reach!: () => void;
  private expiredAt?: number;
  private stateAtExpiry?: CommitState;
  private writesInFlight = 0;
  private writesDone = 0;

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
    this.reached = new Promise((resolve) => (this.reach = resolve));
    this.timer = setTimeout(() => this.expire(), budgetMs);
    // A finished request clears it; an idle process must not be kept alive for it meanwhile.
    this.timer.unref();
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
    clearTimeout(this.timer);
    this.controller?.abort(this.timeoutError("none"));
    this.reach();
  }

  /** The request was answered in time: its timer goes. */
  finish(): void {
    clearTimeout(this.timer);
  }
}

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
