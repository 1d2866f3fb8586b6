import { ApiError } from "../errors/api-error";
import type { Services } from "../services";

/** A shed request is told to come back after this long: in-flight requests finish in well under it. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * The bound on requests in progress at once in this process (`MAX_CONCURRENT_REQUESTS`). Past it a
 * request is refused at once rather than queued: queued work only grows its own latency and every
 * other request's, until callers give up on answers the service still computes (load shedding).
 *
 * @example
 * if (!admission.tryEnter()) throw shedError();
 * try { await serve(request); } finally { admission.leave(); }
 */
export class InFlightLimit {
  private current = 0;

  constructor(readonly max: number) {}

  get inFlight(): number {
    return this.current;
  }

  /** Takes a place when one is free. */
  tryEnter(): boolean {
    if (this.current >= this.max) return false;
    this.current++;
    return true;
  }

  leave(): void {
    if (this.current > 0) this.current--;
  }
}

/** The 429 of a shed request: the same code and headers as the per-credential limit's. */
export function shedError(limit: InFlightLimit): ApiError {
  return new ApiError("RATE_LIMITED", `This instance is serving as many requests as it takes (${limit.max}); retry after ${SHED_RETRY_AFTER_SECONDS} s.`, {
    headers: { "Retry-After": String(SHED_RETRY_AFTER_SECONDS) },
  });
}

const limits = new WeakMap<Services["config"], InFlightLimit>();

/**
 * The process's bound. One per configuration object, which a process builds once: in Azure every
 * HTTP function has its own pipeline, and they must share the instance's bound.
 */
export function admissionOf(services: Pick<Services, "config">): InFlightLimit {
  let limit = limits.get(services.config);
  if (!limit) {
    limit = new InFlightLimit(services.config.maxConcurrentRequests);
    limits.set(services.config, limit);
  }
  return limit;
}
