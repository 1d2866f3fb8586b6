import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, isApiError } from "../../platform/errors/api-error";
import type { SourceGateway } from "./port";

export interface SourceLimits {
  /** Calls in flight at once towards the vendor; the others wait their turn. */
  maxConcurrency: number;
  /** Calls started per second, when the vendor publishes a rate limit; unset: no rate. */
  maxRequestsPerSecond?: number;
}

/** The gateway's calls (every member but `source`). */
type Call = Exclude<keyof SourceGateway, "source">;
const calls: readonly Call[] = ["getIncident", "listIncidents", "setStatus", "setOwner", "listComments", "addComment", "deleteComment", "getEvidence", "relatedByEntity"];

/**
 * A gateway that respects its vendor: at most `maxConcurrency` calls in flight and, if set,
 * `maxRequestsPerSecond` calls started per second (waiting, never spinning); and when the vendor
 * says to back off (a 429, or a 5xx, carrying `Retry-After`) every call to this source fails at once
 * with 429 `RATE_LIMITED` and the time left, until that time has passed. Only this source is held
 * back: other sources, and other workspaces of other sources, go on. Limits are per process (each
 * Functions instance keeps its own).
 *
 * @example
 * const gateway = limitedGateway(createHttpVendorGateway(options), { maxConcurrency: 16, maxRequestsPerSecond: 50 });
 */
export function limitedGateway(gateway: SourceGateway, limits: SourceLimits, nowMs: () => number = Date.now, wait: (ms: number) => Promise<unknown> = sleep): SourceGateway {
  if (!Number.isInteger(limits.maxConcurrency) || limits.maxConcurrency < 1) throw new Error("maxConcurrency must be a positive integer.");
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  let nextStartAt = 0;
  let backOffUntil = 0;

  const acquire = async () => {
    if (inFlight >= limits.maxConcurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight++;
  };
  const release = () => {
    inFlight--;
    waiting.shift()?.();
  };
  const pace = async () => {
    const rate = limits.maxRequestsPerSecond;
    if (!rate) return;
    const now = nowMs();
    const startAt = Math.max(now, nextStartAt);
    nextStartAt = startAt + 1000 / rate;
    if (startAt > now) await wait(startAt - now);
  };
  const backingOff = () => {
    const left = backOffUntil - nowMs();
    if (left <= 0) return;
    throw new ApiError("RATE_LIMITED", `${gateway.source} asked the service to back off; retry after ${Math.ceil(left / 1000)} s.`, {
      headers: { "Retry-After": String(Math.ceil(left / 1000)) },
    });
  };
  const noteBackOff = (error: unknown) => {
    if (!isApiError(error) || (error.code !== "RATE_LIMITED" && error.code !== "UPSTREAM_ERROR")) return;
    const seconds = Number(error.headers["Retry-After"]);
    if (Number.isFinite(seconds) && seconds > 0) backOffUntil = Math.max(backOffUntil, nowMs() + seconds * 1000);
  };

  const guarded = <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      backingOff();
      await acquire();
      try {
        await pace();
        backingOff();
        return await call(...args);
      } catch (error) {
        noteBackOff(error);
        throw error;
      } finally {
        release();
      }
    };

  const limited = { source: gateway.source } as SourceGateway;
  for (const name of calls) {
    (limited as unknown as Record<Call, unknown>)[name] = guarded((gateway[name] as (...args: unknown[]) => Promise<unknown>).bind(gateway));
  }
  return limited;
}
