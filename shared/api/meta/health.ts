import { z } from "zod";
import { isApiError } from "../../platform/errors/api-error";
import type { Services } from "../../domain/services";
import type { Uses } from "../../domain/operation-context";

/** A report is reused this long, so probes from several places cost the store one read per interval. */
export const HEALTH_CACHE_MS = 5_000;
/** Each check gets this long; the answer, cached or not, comes within a second. */
export const HEALTH_CHECK_TIMEOUT_MS = 800;
/** The id the store check reads: no such record exists, so the read is the cheapest one there is. */
const PROBE_ID = "health-probe";

export const healthCheckSchema = z.object({
  status: z.enum(["ok", "failed"]),
  durationMs: z.number(),
  /** The contract code of the failure (`TIMEOUT`, `UPSTREAM_ERROR`...); never the upstream's own text. */
  code: z.string().optional(),
});
const openBreakerSchema = z.object({
  system: z.string().describe("The upstream: a source (`SourceA`)."),
  workspaceId: z.string().optional().describe("The workspace whose calls are held back; absent when the whole source is."),
  state: z.enum(["open", "half-open"]).describe("`open`: no call until `retryAt`; `half-open`: one trial call is under way."),
  code: z.string().describe("The last failure's problem code, which callers are answered with meanwhile."),
  retryAt: z.string().optional().describe("When the next trial call may go."),
  opens: z.int().describe("Openings in a row: each doubles the cool-down (30 s, up to 5 min)."),
});
export const healthReportSchema = z
  .object({
    status: z.enum(["ok", "failed"]),
    checkedAt: z.string(),
    checks: z.record(z.string(), healthCheckSchema),
  })
  .meta({
    examples: [{ status: "ok", checkedAt: "2026-03-02T22:11:07.727Z", checks: { store: { status: "ok", durationMs: 4 }, queue: { status: "ok", durationMs: 11 } } }],
  });
/**
 * What `/health` answers: liveness (the instance is up and serving: always 200 while it is), with its
 * dependencies' state beside it as data: the checks, and this instance's open circuit breakers. A slow
 * or failing store does not fail liveness: restarting the instance would not mend the store, and under
 * load it would restart the busiest instance. Nor does a vendor's breaker.
 */
export const healthAnswerSchema = healthReportSchema
  .extend({
    status: z
      .enum(["ok", "degraded"])
      .describe("`ok`: every dependency check passed; `degraded`: the instance is up but a dependency check failed or timed out (see `checks`). The HTTP status is 200 either way."),
    circuits: z
      .object({
        open: z.int().describe("Breakers open (or half-open) on this instance."),
        breakers: z.array(openBreakerSchema).describe("The open breakers, at most 50."),
      })
      .describe("This instance's circuit breakers over the vendors' sources: those not closed."),
  })
  .meta({
    examples: [
      {
        status: "ok",
        checkedAt: "2026-03-02T22:11:07.727Z",
        checks: { store: { status: "ok", durationMs: 4 }, queue: { status: "ok", durationMs: 11 } },
        circuits: { open: 0, breakers: [] },
      },
      {
        status: "degraded",
        checkedAt: "2026-03-02T22:11:07.727Z",
        checks: { store: { status: "failed", durationMs: 800, code: "TIMEOUT" }, queue: { status: "ok", durationMs: 11 } },
        circuits: {
          open: 1,
          breakers: [{ system: "SourceA", workspaceId: "6aeb3a86-6df2-8a52-9183-256be7af30dc", state: "open", code: "RATE_LIMITED", retryAt: "2026-03-02T22:11:34.000Z", opens: 1 }],
        },
      },
    ],
  });
export type HealthCheckResult = z.infer<typeof healthCheckSchema>;
export type HealthReport = z.infer<typeof healthReportSchema>;

export interface HealthProbeOptions {
  cacheMs?: number;
  timeoutMs?: number;
  /** Milliseconds clock (tests). */
  clock?: () => number;
}

/**
 * Runs named checks with a timeout each and caches the report briefly; callers arriving while a run
 * is under way share it.
 *
 * @example
 * const probe = new HealthProbe({ store: () => stores.accounts.get("health-probe").then(() => {}) });
 * const report = await probe.report(); // { status: "ok", checks: { store: { status: "ok", durationMs: 3 } } }
 */
export class HealthProbe {
  private readonly cacheMs: number;
  private readonly timeoutMs: number;
  private readonly clock: () => number;
  private cached?: { at: number; report: Promise<HealthReport> };

  constructor(
    private readonly checks: Record<string, () => Promise<void>>,
    options: HealthProbeOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? HEALTH_CACHE_MS;
    this.timeoutMs = options.timeoutMs ?? HEALTH_CHECK_TIMEOUT_MS;
    this.clock = options.clock ?? (() => performance.now());
  }

  report(): Promise<HealthReport> {
    const now = this.clock();
    if (!this.cached || now - this.cached.at >= this.cacheMs) this.cached = { at: now, report: this.run() };
    return this.cached.report;
  }

  private async run(): Promise<HealthReport> {
    const names = Object.keys(this.checks);
    const results = await Promise.all(names.map((name) => this.runOne(this.checks[name]!)));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
    return {
      status: results.every((r) => r.status === "ok") ? "ok" : "failed",
      checkedAt: new Date().toISOString(),
      checks,
    };
  }

  private async runOne(check: () => Promise<void>): Promise<HealthCheckResult> {
    const started = this.clock();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.timeoutMs);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([check().then(() => "ok" as const), timeout]);
      const durationMs = Math.round(this.clock() - started);
      return outcome === "ok" ? { status: "ok", durationMs } : { status: "failed", durationMs, code: "TIMEOUT" };
    } catch (error) {
      return { status: "failed", durationMs: Math.round(this.clock() - started), code: isApiError(error) ? error.code : "INTERNAL_ERROR" };
    } finally {
      clearTimeout(timer);
    }
  }
}

const probes = new WeakMap<Services["events"], HealthProbe>();

/**
 * The process's probe over its store (a point read of a record that does not exist) and its queues
 * (`ping`: the link to the broker opens). One per process's event pipeline (a handler's input is new
 * on every request), so its cache spans requests.
 */
export function healthProbeOf(services: Uses<"stores" | "events">): HealthProbe {
  let probe = probes.get(services.events);
  if (!probe) {
    const { events, deliveries } = services.events;
    const { stores } = services;
    probe = new HealthProbe({
      store: async () => void (await stores.accounts.get(PROBE_ID)),
      queue: async () => void (await Promise.all([events.ping?.(), deliveries.ping?.()])),
    });
    probes.set(services.events, probe);
  }
  return probe;
}
