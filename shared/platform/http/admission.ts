import { ApiError } from "../errors/api-error";
import { cookieValue, SESSION_COOKIE } from "../auth/portal-session";
import type { PlatformServices } from "../services";

/** A shed request is told to come back after this long: in-flight requests finish in well under it. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * The share of the places (at least one, when there are two or more) kept for callers below their
 * fair share of the instance: one busy integration cannot shut out the others there (a person in the
 * portal, an audit consumer polling its workspaces), however many requests it sends.
 */
export const RESERVED_SHARE = 0.25;

/**
 * The bound on requests in progress at once in this process (`MAX_CONCURRENT_REQUESTS`). Past it a
 * request is refused at once rather than queued: queued work only grows its own latency and every
 * other request's, until callers give up on answers the service still computes (load shedding).
 * The last `reserved` places go only to a caller holding fewer than its fair share: the bound divided
 * among the callers with requests in progress, itself included, and one more (the newcomer the reserve
 * is kept for). So when the instance is nearly full the callers holding most are shed first, a lone
 * busy caller never takes the reserve, and a caller with nothing in progress is let in while a place
 * is free.
 *
 * The caller is who the request says it is (`callerOf`), before authentication checks it: admission
 * must cost nothing. Naming another caller only spends that caller's share, and a flood of made-up
 * names is held by the bound itself, as before.
 *
 * @example
 * const caller = callerOf(request);
 * if (!admission.tryEnter(caller)) throw shedError(admission);
 * try { await serve(request); } finally { admission.leave(caller); }
 */
export class InFlightLimit {
  private current = 0;
  private readonly byCaller = new Map<string, number>();
  /** Places only a caller below its fair share may take. */
  readonly reserved: number;

  constructor(readonly max: number) {
    this.reserved = max >= 2 ? Math.max(1, Math.floor(max * RESERVED_SHARE)) : 0;
  }

  get inFlight(): number {
    return this.current;
  }

  /** Takes a place when one is free for this caller. */
  tryEnter(caller: string): boolean {
    if (this.current >= this.max) return false;
    const held = this.byCaller.get(caller) ?? 0;
    if (this.current >= this.max - this.reserved) {
      const callers = this.byCaller.size + (held === 0 ? 1 : 0);
      if (held >= this.max / (callers + 1)) return false;
    }
    this.current++;
    this.byCaller.set(caller, held + 1);
    return true;
  }

  leave(caller: string): void {
    const held = this.byCaller.get(caller);
    if (held === undefined) return;
    this.current--;
    if (held > 1) this.byCaller.set(caller, held - 1);
    else this.byCaller.delete(caller);
  }
}

/**
 * Who a request says it is, as admission sees it: the credentials it presents (its `Authorization`
 * header as sent) or the portal session its cookie carries, neither checked nor decoded (admission
 * must cost next to nothing: decoding Basic credentials here cost ~0.6 µs a request); "" when none. So
 * a service account sending with two of its secrets counts as two callers, which only gives it more.
 */
export function callerOf(request: { header(name: string): string | undefined }): string {
  return request.header("authorization") ?? cookieValue(request.header("cookie"), SESSION_COOKIE) ?? "";
}

/** The 429 of a shed request: the same code and headers as the per-credential limit's. */
export function shedError(limit: InFlightLimit): ApiError {
  return new ApiError("RATE_LIMITED", `This instance is serving as many requests as it takes (${limit.max}); retry after ${SHED_RETRY_AFTER_SECONDS} s.`, {
    headers: { "Retry-After": String(SHED_RETRY_AFTER_SECONDS) },
  });
}

const limits = new WeakMap<PlatformServices["config"], InFlightLimit>();

/**
 * The process's bound. One per configuration object, which a process builds once: in Azure every
 * HTTP function has its own pipeline, and they must share the instance's bound.
 */
export function admissionOf(services: Pick<PlatformServices, "config">): InFlightLimit {
  let limit = limits.get(services.config);
  if (!limit) {
    limit = new InFlightLimit(services.config.maxConcurrentRequests);
    limits.set(services.config, limit);
  }
  return limit;
}
