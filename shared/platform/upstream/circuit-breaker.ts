import { ApiError, isApiError, type ErrorCode } from "../errors/api-error";
import type { Logger } from "../logger";

/**
 * Circuit breakers for the upstream systems the service fans out to (the vendors' sources), one per
 * system and one per (system, workspace). After repeated failures no call is made for a cool-down:
 * a caller gets the last failure's code at once, with `Retry-After`, instead of waiting out a
 * timeout, and a vendor that is down is not hammered by every page and every pass. State is per
 * process (each Functions instance keeps its own), as the source limiters' is.
 *
 * `decideBreaker` is the pure decision; `CircuitBreakers` holds the states, runs calls through them,
 * logs every opening and closing and reports the open ones for `/health`.
 */

/** The failures a breaker counts: an upstream that failed, did not answer in time or asked to back off. */
export const BREAKER_FAILURE_CODES: readonly ErrorCode[] = ["UPSTREAM_ERROR", "TIMEOUT", "RATE_LIMITED"];
type FailureCode = "UPSTREAM_ERROR" | "TIMEOUT" | "RATE_LIMITED";

export interface BreakerPolicy {
  /** Consecutive failures that open the breaker. */
  failuresToOpen: number;
  /** The first cool-down; each failed trial doubles it, up to `maxCoolDownMs`. */
  coolDownMs: number;
  maxCoolDownMs: number;
  /** Whether a failure carrying `Retry-After` opens the breaker at once (the vendor said so of this very scope). */
  openOnRetryAfter: boolean;
}

/**
 * A workspace's breaker opens on its second failure in a row: one failure is a blip worth a retry,
 * two are a pattern. With the cool-down doubling from 30 s, a workspace that keeps failing is called
 * at most 3 times in its first minute and about once a cool-down after. A vendor's `Retry-After` on a
 * workspace's call opens it at once, for at least that long.
 */
export const WORKSPACE_BREAKER: BreakerPolicy = { failuresToOpen: 2, coolDownMs: 30_000, maxCoolDownMs: 300_000, openOnRetryAfter: true };
/**
 * A whole source's breaker opens after 10 failures in a row across its workspaces with no success
 * between: far beyond what a few failing tenants produce (their own breakers stop their calls after
 * two), and soon enough that a vendor that is down costs ten calls, not one per workspace. One
 * tenant's `Retry-After` speaks for that tenant: it does not open the source.
 */
export const SOURCE_BREAKER: BreakerPolicy = { failuresToOpen: 10, coolDownMs: 30_000, maxCoolDownMs: 300_000, openOnRetryAfter: false };

export interface BreakerFailure {
  code: FailureCode;
  /** When the failure asked the caller to come back (the upstream's `Retry-After`), in ms from now. */
  retryAfterMs?: number;
}

export type BreakerState =
  | { state: "closed"; failures: number }
  /** No call until `until` (epoch ms); `opens` counts the openings in a row, for the doubling cool-down. */
  | { state: "open"; until: number; opens: number; last: BreakerFailure; failures: number }
  /** The cool-down has passed and one trial call is under way; its outcome closes or reopens the breaker. */
  | { state: "half-open"; opens: number; last: BreakerFailure; failures: number };

export const CLOSED: BreakerState = { state: "closed", failures: 0 };

export type BreakerEvent =
  | { kind: "admit" }
  | { kind: "success" }
  | { kind: "failure"; failure: BreakerFailure }
  /** The call ended without an answer that says anything about the upstream (the caller went away). */
  | { kind: "abandoned" };

export interface BreakerDecision {
  state: BreakerState;
  /** For `admit`: whether the call may go ahead. */
  admitted?: boolean;
  /** The breaker opened (or reopened) or closed on this event: worth a log line. */
  change?: "opened" | "closed";
}

/**
 * The next state of one breaker after `event` at `now` (epoch ms). Closed admits every call and
 * counts failures in a row; the `failuresToOpen`-th, or (where the policy says so) any failure
 * carrying `Retry-After`, opens it for the cool-down (at least the `Retry-After`). Open admits nothing until its time is up; then one
 * trial call is admitted (half-open) and its outcome closes the breaker or reopens it for twice the
 * last cool-down.
 *
 * @example
 * let s = CLOSED;
 * s = decideBreaker(s, { kind: "failure", failure: { code: "RATE_LIMITED", retryAfterMs: 30_000 } }, now, WORKSPACE_BREAKER).state;
 * decideBreaker(s, { kind: "admit" }, now + 1_000, WORKSPACE_BREAKER).admitted // false: open for 30 s
 */
export function decideBreaker(state: BreakerState, event: BreakerEvent, now: number, policy: BreakerPolicy): BreakerDecision {
  switch (event.kind) {
    case "admit":
      if (state.state === "closed") return { state, admitted: true };
      if (state.state === "open" && now >= state.until) return { state: { state: "half-open", opens: state.opens, last: state.last, failures: state.failures }, admitted: true };
      return { state, admitted: false };
    case "success":
      return state.state === "closed" ? { state: state.failures === 0 ? state : CLOSED } : { state: CLOSED, change: "closed" };
    case "abandoned":
      // A trial that told nothing frees the way for the next one.
      return state.state === "half-open" ? { state: { state: "open", until: now, opens: state.opens, last: state.last, failures: state.failures } } : { state };
    case "failure": {
      const failures = state.failures + 1;
      const { failure } = event;
      const openNow = failures >= policy.failuresToOpen || (policy.openOnRetryAfter && failure.retryAfterMs !== undefined);
      if (state.state === "closed" && !openNow) return { state: { state: "closed", failures } };
      // A call admitted before the breaker opened, failing after: the breaker stays as it is.
      if (state.state === "open" && now < state.until) return { state: { ...state, last: failure, failures } };
      const opens = state.state === "closed" ? 1 : state.opens + 1;
      const coolDown = Math.min(policy.maxCoolDownMs, policy.coolDownMs * 2 ** (opens - 1));
      const until = now + Math.max(coolDown, failure.retryAfterMs ?? 0);
      return { state: { state: "open", until, opens, last: failure, failures }, change: "opened" };
    }
  }
}

/** What a call's outcome says about its upstream, or undefined when it says nothing (an answer, a bug, a caller gone). */
export function breakerFailureOf(error: unknown, signal?: AbortSignal): BreakerFailure | undefined {
  if (signal?.aborted || !isApiError(error) || !BREAKER_FAILURE_CODES.includes(error.code) || isCircuitOpen(error)) return undefined;
  const seconds = Number(error.headers["Retry-After"]);
  return { code: error.code as FailureCode, ...(Number.isFinite(seconds) && seconds > 0 ? { retryAfterMs: seconds * 1000 } : {}) };
}

/** What a call's outcome tells its breakers: a failure, an answer (any other ApiError is one), or nothing. */
function eventOf(error: unknown, signal?: AbortSignal): BreakerEvent {
  const failure = breakerFailureOf(error, signal);
  if (failure) return { kind: "failure", failure };
  return isApiError(error) && !signal?.aborted && !isCircuitOpen(error) ? { kind: "success" } : { kind: "abandoned" };
}

/** A breaker's key: the upstream system ("SourceA"), and the workspace for a workspace's own breaker. */
export interface BreakerKey {
  system: string;
  workspaceId?: string;
}

/** An open breaker, as `/health` shows it. */
export interface OpenBreaker {
  system: string;
  workspaceId?: string;
  state: "open" | "half-open";
  /** The last failure's code. */
  code: FailureCode;
  /** When the next trial call may go (open), ISO 8601. */
  retryAt?: string;
  /** Openings in a row: the cool-down doubles with each. */
  opens: number;
}

/** Errors thrown because a breaker is open: told apart so a report can say no call was made. */
const circuitOpenErrors = new WeakSet<ApiError>();

/** Whether `error` is a breaker's refusal (no call was made), not an upstream's own answer. */
export function isCircuitOpen(error: unknown): boolean {
  return isApiError(error) && circuitOpenErrors.has(error);
}

export interface CircuitBreakersOptions {
  logger: Logger;
  nowMs?: () => number;
  workspacePolicy?: BreakerPolicy;
  systemPolicy?: BreakerPolicy;
}

/** Open breakers listed by `/health` at most; the count is always whole. */
const MAX_LISTED = 50;

/**
 * The process's breakers. `call` runs one upstream call through the system's breaker and, when a
 * workspace is named, the workspace's: refused at once while either is open, and its outcome recorded
 * in both. Breakers in their initial state are not kept, so the map holds only what is failing.
 * `pending` tells how long the oldest call to a workspace has gone unanswered, for callers that must
 * not pile calls onto an upstream that has stopped answering.
 *
 * @example
 * const incident = await breakers.call({ system: "SourceA", workspaceId }, (signal) => gateway.getIncident(workspaceId, id, signal), signal);
 */
export class CircuitBreakers {
  private readonly states = new Map<string, BreakerState>();
  /** Start times (epoch ms) of the calls under way, per workspace (or system) key. */
  private readonly inFlight = new Map<string, number[]>();
  private readonly logger: Logger;
  private readonly nowMs: () => number;
  private readonly workspacePolicy: BreakerPolicy;
  private readonly systemPolicy: BreakerPolicy;

  constructor(options: CircuitBreakersOptions) {
    this.logger = options.logger;
    this.nowMs = options.nowMs ?? Date.now;
    this.workspacePolicy = options.workspacePolicy ?? WORKSPACE_BREAKER;
    this.systemPolicy = options.systemPolicy ?? SOURCE_BREAKER;
  }

  /**
   * A call counts as unanswered (`pendingMs`) from the moment the breakers let it through, except
   * while `work` waits on what it hands to `inLine` (a place under the upstream's limits, say): that
   * time is the caller's own, not the upstream's.
   */
  async call<T>(key: BreakerKey, work: (signal: AbortSignal | undefined, inLine: <W>(wait: Promise<W>) => Promise<W>) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const keys = this.keysOf(key);
    const own = keys.at(-1)!;
    // The workspace's breaker first: a failing tenant's refusal must not use up the source's trial.
    this.admit(own, key);
    if (own !== key.system) {
      try {
        this.admit(key.system, key);
      } catch (refusal) {
        // The workspace's trial (if it was one) never went: the next call may take it.
        this.step(own, { kind: "abandoned" }, key);
        throw refusal;
      }
    }
    let started = this.nowMs();
    this.track(own, started, true);
    const inLine = async <W>(wait: Promise<W>): Promise<W> => {
      this.track(own, started, false);
      try {
        return await wait;
      } finally {
        started = this.nowMs();
        this.track(own, started, true);
      }
    };
    try {
      const result = await work(signal, inLine);
      for (const k of keys) this.step(k, { kind: "success" }, key);
      return result;
    } catch (error) {
      const event = eventOf(error, signal);
      for (const k of keys) this.step(k, event, key);
      throw error;
    } finally {
      this.track(own, started, false);
    }
  }

  /** Milliseconds the oldest call this workspace's (or system's) upstream has left unanswered; 0 when none. */
  pendingMs(key: BreakerKey): number {
    const calls = this.inFlight.get(this.keysOf(key).at(-1)!);
    // Calls are tracked in the order they start (or leave a line, `call`'s `inLine`), so the first is the oldest.
    return calls ? this.nowMs() - calls[0]! : 0;
  }

  /**
   * What the breakers know against this workspace (or its system), without changing either: while one
   * is open, its refusal (as `call` would answer); once its cool-down is over and until a trial
   * succeeds, the last failure, as an ApiError that is not a refusal (the next call will be tried).
   */
  failing(key: BreakerKey): ApiError | undefined {
    for (const k of this.keysOf(key).reverse()) {
      const state = this.states.get(k);
      if (!state || state.state === "closed") continue;
      if (state.state === "open" && this.nowMs() < state.until) return this.refuse(state, key, k);
      const whom = k.includes("\n") ? `${key.system} for workspace ${key.workspaceId}` : key.system;
      return new ApiError(state.last.code, `${whom} failed ${state.failures} time${state.failures === 1 ? "" : "s"} in a row (last ${state.last.code}); it is tried again on its next call.`);
    }
    return undefined;
  }

  /** How many breakers are open now, and the first 50 of them (latest trial first), for `/health`. */
  report(): { open: number; breakers: OpenBreaker[] } {
    const now = this.nowMs();
    const all: OpenBreaker[] = [];
    for (const [k, state] of this.states) {
      if (state.state === "closed") continue;
      const [system, workspaceId] = k.split("\n");
      all.push({
        system: system!,
        ...(workspaceId ? { workspaceId } : {}),
        state: state.state,
        code: state.last.code,
        ...(state.state === "open" ? { retryAt: new Date(Math.max(now, state.until)).toISOString() } : {}),
        opens: state.opens,
      });
    }
    all.sort((a, b) => (a.retryAt ?? "") < (b.retryAt ?? "") ? 1 : -1);
    return { open: all.length, breakers: all.slice(0, MAX_LISTED) };
  }

  private keysOf(key: BreakerKey): string[] {
    return key.workspaceId === undefined ? [key.system] : [key.system, `${key.system}\n${key.workspaceId}`];
  }

  private policyOf(k: string): BreakerPolicy {
    return k.includes("\n") ? this.workspacePolicy : this.systemPolicy;
  }

  private admit(k: string, key: BreakerKey): void {
    const state = this.states.get(k) ?? CLOSED;
    const decision = decideBreaker(state, { kind: "admit" }, this.nowMs(), this.policyOf(k));
    if (!decision.admitted) throw this.refuse(state, key, k);
    this.save(k, decision.state);
  }

  private step(k: string, event: BreakerEvent, key: BreakerKey): void {
    const decision = decideBreaker(this.states.get(k) ?? CLOSED, event, this.nowMs(), this.policyOf(k));
    this.save(k, decision.state);
    const scope = { system: key.system, ...(k.includes("\n") ? { workspaceId: key.workspaceId } : {}) };
    if (decision.change === "opened" && decision.state.state === "open") {
      this.logger.warn("circuit opened", { ...scope, code: decision.state.last.code, failures: decision.state.failures, openForMs: decision.state.until - this.nowMs(), opens: decision.state.opens });
    } else if (decision.change === "closed") {
      this.logger.info("circuit closed", scope);
    }
  }

  private save(k: string, state: BreakerState): void {
    if (state.state === "closed" && state.failures === 0) this.states.delete(k);
    else this.states.set(k, state);
  }

  private track(k: string, started: number, add: boolean): void {
    const calls = this.inFlight.get(k);
    if (add) {
      if (calls) calls.push(started);
      else this.inFlight.set(k, [started]);
    } else if (calls) {
      calls.splice(calls.indexOf(started), 1);
      if (calls.length === 0) this.inFlight.delete(k);
    }
  }

  private refuse(state: BreakerState, key: BreakerKey, k: string): ApiError {
    const last = state.state === "closed" ? { code: "UPSTREAM_ERROR" as const } : state.last;
    const waitMs = state.state === "open" ? Math.max(0, state.until - this.nowMs()) : 1_000;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const whom = k.includes("\n") ? `${key.system} for workspace ${key.workspaceId}` : key.system;
    const error = new ApiError(
      last.code,
      `${whom} is not being called: it failed ${state.failures} time${state.failures === 1 ? "" : "s"} in a row (last ${last.code}); the next try is in ${seconds} s.`,
      { headers: { "Retry-After": String(seconds) } },
    );
    circuitOpenErrors.add(error);
    return error;
  }
}
