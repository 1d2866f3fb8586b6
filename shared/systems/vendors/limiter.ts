import { setTimeout as sleep } from "node:timers/promises";
import type { SourceLimits } from "../../platform/config/config";
import { ApiError } from "../../platform/errors/api-error";

export type { SourceLimits };

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

  /** Nothing under way, nobody waiting, and no pace to keep: a new limiter would behave the same. */
  isIdle(): boolean {
    return this.inFlight === 0 && this.waiting.length === 0 && this.nextStartAt <= this.nowMs();
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

/** Tenants whose limiter a `TenantLimiters` keeps before it drops those with nothing under way. */
const TENANTS_KEPT = 10_000;

/**
 * A vendor's limits per tenant, for a vendor that counts them per tenant (`SOURCE_<X>_TENANT_MAX_CONCURRENCY`,
 * `_TENANT_MAX_RPS`), as Microsoft Graph and Defender XDR count an application's calls per tenant:
 * each tenant's calls wait for a place in the tenant's own limiter (and then in the source's), and a
 * `Retry-After` one tenant's call is answered holds back every workspace of that tenant until it has
 * passed (`refuseWhileHeld`), while the other tenants go on. Per process, as `SourceLimiter`.
 */
export class TenantLimiters {
  private readonly tenants = new Map<string, { limiter: SourceLimiter; heldUntil: number }>();

  constructor(
    private readonly source: string,
    private readonly limits: SourceLimits,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /**
   * Throws `RATE_LIMITED`, with the time left as `Retry-After`, while the vendor's `Retry-After` for
   * the tenant runs. Checked before a call reaches the breakers: a refusal here is this process
   * keeping a vendor's word, not a failure of the vendor or of the workspace.
   */
  refuseWhileHeld(tenantId: string): void {
    const heldFor = (this.tenants.get(tenantId)?.heldUntil ?? 0) - this.nowMs();
    if (heldFor <= 0) return;
    const seconds = Math.max(1, Math.ceil(heldFor / 1000));
    throw new ApiError("RATE_LIMITED", `${this.source} asked to wait before calling it again for tenant ${tenantId}; the next try is in ${seconds} s.`, {
      headers: { "Retry-After": String(seconds) },
    });
  }

  /** Waits for a place in the tenant's limiter (see `SourceLimiter.enter`). */
  enter(tenantId: string, signal?: AbortSignal): Promise<() => void> {
    return this.of(tenantId).limiter.enter(signal);
  }

  /** Holds the tenant back for `ms`: the vendor answered one of its calls with a `Retry-After`. */
  holdBack(tenantId: string, ms: number): void {
    const tenant = this.of(tenantId);
    tenant.heldUntil = Math.max(tenant.heldUntil, this.nowMs() + ms);
  }

  private of(tenantId: string) {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) {
      if (this.tenants.size >= TENANTS_KEPT) this.dropIdle();
      tenant = { limiter: new SourceLimiter(this.limits, this.nowMs), heldUntil: 0 };
      this.tenants.set(tenantId, tenant);
    }
    return tenant;
  }

  /** Forgets the tenants with no call under way or waiting, no pace to keep and no hold running: a new limiter for them is the same. */
  private dropIdle(): void {
    const now = this.nowMs();
    for (const [id, tenant] of this.tenants) if (tenant.heldUntil <= now && tenant.limiter.isIdle()) this.tenants.delete(id);
  }
}
