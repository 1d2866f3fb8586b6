import { isFinalFailure, statusClassOf, type DeliveryOutcome, type StatusClass } from "../../model/webhooks/delivery-log";

/*
 * A webhook's health as its delivery log shows it (what Svix's and Stripe's endpoint pages show):
 * counts by outcome and the success rate over a window, latency percentiles, the last failures, and
 * deliveries over time for a chart. Pure figures over the outcome fields of the window's entries.
 * One attempt is one entry: a delivery retried three times counts three attempts. Test events are
 * left out (they probe the endpoint; auto-disable ignores them too).
 */

export const healthWindows = {
  "24h": { spanMs: 24 * 3_600_000, bucketMs: 3_600_000, bucket: "1h" },
  "7d": { spanMs: 7 * 86_400_000, bucketMs: 86_400_000, bucket: "1d" },
} as const;

export type HealthWindow = keyof typeof healthWindows;

/** At most this many entries are read per window, newest first; the figures say when there were more. */
export const HEALTH_SCAN_LIMIT = 10_000;
/** How many of the newest failures a health summary lists. */
export const RECENT_FAILURES = 10;

export interface LatencyPercentiles {
  p50: number;
  p95: number;
  p99: number;
  /** Attempts that got an HTTP response: the percentiles' population. */
  sampleSize: number;
}

export interface DeliveryCounts {
  succeeded: number;
  pending: number;
  failed: number;
  /** Of the finished attempts (succeeded and failed), the share that succeeded, 0 to 1; null when none finished. */
  successRate: number | null;
}

export interface DeliveryFigures extends DeliveryCounts {
  from: string;
  to: string;
  /** Of the attempts failed, those that ended their delivery (no retry to come). */
  finalFailures: number;
  latencyMs: LatencyPercentiles | null;
  /** More entries than `HEALTH_SCAN_LIMIT` in the window: the figures are the newest ones'. */
  truncated: boolean;
}

export interface RecentFailure {
  logId: string;
  createdAt: string;
  eventId: string;
  eventType: string;
  httpStatusCode: number;
  statusClass: StatusClass;
  attempt: number;
  final: boolean;
  error: string | null;
}

export interface DeliveryBucket extends Omit<DeliveryCounts, "successRate"> {
  start: string;
}

/** Counts by outcome of non-test attempts, with the success rate. */
export function deliveryCounts(outcomes: readonly DeliveryOutcome[]): DeliveryCounts {
  const counted = outcomes.filter((e) => !e.isTest);
  const succeeded = counted.filter((e) => e.status === "Succeeded").length;
  const failed = counted.filter((e) => e.status === "Failed").length;
  const pending = counted.length - succeeded - failed;
  return { succeeded, pending, failed, successRate: succeeded + failed === 0 ? null : round(succeeded / (succeeded + failed), 4) };
}

/** The window's figures: counts, final failures and latency percentiles of `durationMs` over attempts answered with an HTTP status. */
export function deliveryFigures(outcomes: readonly DeliveryOutcome[], range: { from: string; to: string }, truncated: boolean): DeliveryFigures {
  const counted = outcomes.filter((e) => !e.isTest);
  const answered = counted.filter((e) => e.httpStatusCode > 0).map((e) => e.durationMs).sort((a, b) => a - b);
  return {
    from: range.from,
    to: range.to,
    ...deliveryCounts(counted),
    finalFailures: counted.filter(isFinalFailure).length,
    latencyMs: answered.length === 0 ? null : { p50: nearestRank(answered, 50), p95: nearestRank(answered, 95), p99: nearestRank(answered, 99), sampleSize: answered.length },
    truncated,
  };
}

/** The newest failed attempts first, test events included (a failing test is worth seeing), at most `limit`. */
export function recentFailures(outcomes: readonly DeliveryOutcome[], limit = RECENT_FAILURES): RecentFailure[] {
  return outcomes
    .filter((e) => e.status === "Failed")
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
    .slice(0, limit)
    .map((e) => ({
      logId: e.id,
      createdAt: e.createdAt,
      eventId: e.eventId,
      eventType: e.eventType,
      httpStatusCode: e.httpStatusCode,
      statusClass: statusClassOf(e.httpStatusCode),
      attempt: e.attempt,
      final: isFinalFailure(e),
      error: e.error,
    }));
}

/** Where a chart's buckets start and end: whole UTC hours (24h) or days (7d), the last one holding `now`. */
export function chartRange(window: HealthWindow, now: Date): { from: string; to: string; starts: string[] } {
  const { spanMs, bucketMs } = healthWindows[window];
  const count = spanMs / bucketMs;
  const last = Math.floor(now.getTime() / bucketMs) * bucketMs;
  const starts = Array.from({ length: count }, (_, i) => new Date(last - (count - 1 - i) * bucketMs).toISOString());
  return { from: starts[0]!, to: new Date(now.getTime() + 1).toISOString(), starts };
}

/** Non-test attempts by outcome per bucket, oldest bucket first; entries outside every bucket are left out. */
export function deliveryBuckets(outcomes: readonly DeliveryOutcome[], window: HealthWindow, starts: readonly string[]): DeliveryBucket[] {
  const { bucketMs } = healthWindows[window];
  const first = Date.parse(starts[0]!);
  const buckets = starts.map((start) => ({ start, succeeded: 0, pending: 0, failed: 0 }));
  for (const e of outcomes) {
    if (e.isTest) continue;
    const bucket = buckets[Math.floor((Date.parse(e.createdAt) - first) / bucketMs)];
    if (!bucket) continue;
    if (e.status === "Succeeded") bucket.succeeded++;
    else if (e.status === "Failed") bucket.failed++;
    else bucket.pending++;
  }
  return buckets;
}

/** The nearest-rank percentile of ascending values: the smallest value with at least p% of them at or below it. */
export function nearestRank(ascending: readonly number[], p: number): number {
  return ascending[Math.max(0, Math.ceil((p / 100) * ascending.length) - 1)]!;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
