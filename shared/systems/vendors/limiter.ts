import { setTimeout as sleep } from "node:timers/promises";
import type { SourceGateway } from "./port";

export interface SourceLimits {
  /** Calls in flight at once towards the vendor; the others wait their turn. */
  maxConcurrency: number;
  /** Calls started per second, when the vendor publishes a rate limit; unset: no rate. */
  maxRequestsPerSecond?: number;
}

/** The gateway's calls (every member but `source`). */
type Call = Exclude<keyof SourceGateway, "source">;
const calls: readonly Call[] = ["getIncident", "listIncidents", "setStatus", "setOwner", "listComments", "addComment", "updateComment", "deleteComment", "getEvidence", "relatedByEntity"];

/**
 * A gateway that respects its vendor: at most `maxConcurrency` calls in flight and, if set,
 * `maxRequestsPerSecond` calls started per second (waiting, never spinning). A vendor's `Retry-After`
 * is honoured by the circuit breakers in front (`circuit-breaker.ts`), per workspace: one tenant
 * asked to back off does not hold back every other. Limits are per process (each Functions instance
 * keeps its own).
 *
 * @example
 * const gateway = limitedGateway(createHttpVendorGateway(options), { maxConcurrency: 16, maxRequestsPerSecond: 50 });
 */
export function limitedGateway(gateway: SourceGateway, limits: SourceLimits, nowMs: () => number = Date.now, wait: (ms: number) => Promise<unknown> = sleep): SourceGateway {
  if (!Number.isInteger(limits.maxConcurrency) || limits.maxConcurrency < 1) throw new Error("maxConcurrency must be a positive integer.");
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  let nextStartAt = 0;

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
  const guarded = <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await acquire();
      try {
        await pace();
        return await call(...args);
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
