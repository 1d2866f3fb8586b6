import { derivedGuid } from "../../platform/ids/derived-guid";
import type { Source } from "../../model/sources";
import { HOUR_MS, type DataConnector, type IngestionSeries } from "../../systems/log-analytics/port";

/**
 * Ingestion anomalies from hourly volumes: pure, so that the method can be checked by hand.
 *
 * Method (written for the people who will be paged by it):
 * 1. Baseline. For an hour H, the samples are the volumes at the same hour of day on each of the
 *    seven previous days (H − 24 h … H − 168 h): seven samples that follow the series' daily rhythm.
 *    p10, p50 and p90 are their percentiles (linear interpolation between order statistics). With
 *    fewer than `minBaselineSamples` samples (a connector younger than that) volume is not judged.
 * 2. NoData. The hour has no data although the source sent data in (almost) every comparable hour
 *    (p10 > 0). A run of at least `noDataHours` such hours is one NoData anomaly; a shorter run is a
 *    VolumeDrop of −100 %.
 * 3. VolumeDrop. Below p10 and at least `dropRatio` below p50, by at least `minAbsoluteMb`.
 *    VolumeSpike: above p90 and at least `spikeRatio` times p50, by at least `minAbsoluteMb`.
 *    The absolute floor keeps tiny tables (a few kB an hour) from paging anyone.
 * 4. Weekly rhythm. A drop or spike is dropped when the same hour one week earlier (the seventh
 *    sample) was on the same side of p50 and the hour is within `weeklyTolerance` of it: a weekend
 *    lull or a weekly batch job is a pattern, not an incident.
 * 5. Latency. The hour's median ingestion delay exceeds both `latencyFloorSeconds` and
 *    `latencyRatio` times the median of the preceding 24 hours' delays (at least six measured).
 * 6. Consecutive hours of one kind on one table form one anomaly: `observed` is their total (MB; for
 *    Latency the worst hour, in seconds), `expected` the sum of the hours' percentiles (for Latency the
 *    baseline of the first hour), `deviationPct` (observed − p50) / p50 in percent (null when p50 is 0).
 *    Hours that end less than `settleMinutes` before `now` are not judged: their data may still arrive.
 * 7. Severity. NoData: High from 4 hours, else Medium. VolumeDrop: High at −90 % or worse, Medium at
 *    −75 %, else Low. VolumeSpike: High at +500 %, Medium at +200 % (or from a zero baseline), else Low.
 *    Latency: High from one hour, Medium from 30 minutes, else Low.
 * 8. Suspected cause, from what else is true at the same time: every table of the workspace down
 *    (daily cap, access, regional outage); the connector reporting itself unhealthy or disconnected;
 *    every table of one connector down (connector, credential or source); one table of several down
 *    (a data type switched off, a filter changed); a spike right after a gap (catch-up, not activity).
 */
export interface DetectionOptions {
  /** The hours to judge: [start, end), hour-aligned. The input series must reach 7 days before start. */
  evaluate: { start: string; end: string };
  now: string;
  settleMinutes?: number;
  minBaselineSamples?: number;
  noDataHours?: number;
  dropRatio?: number;
  spikeRatio?: number;
  minAbsoluteMb?: number;
  weeklyTolerance?: number;
  latencyFloorSeconds?: number;
  latencyRatio?: number;
}

type Thresholds = Required<Omit<DetectionOptions, "evaluate" | "now">>;

export const defaultDetection: Readonly<Thresholds> = {
  settleMinutes: 60,
  minBaselineSamples: 4,
  noDataHours: 2,
  dropRatio: 0.5,
  spikeRatio: 2,
  minAbsoluteMb: 1,
  weeklyTolerance: 0.25,
  latencyFloorSeconds: 600,
  latencyRatio: 3,
};

export const BASELINE_DAYS = 7;

export const anomalyKinds = ["NoData", "VolumeDrop", "VolumeSpike", "Latency"] as const;
export type AnomalyKind = (typeof anomalyKinds)[number];

export const anomalySeverities = ["Low", "Medium", "High"] as const;
export type AnomalySeverity = (typeof anomalySeverities)[number];

export const suspectedCauseCodes = [
  "WorkspaceWideStop",
  "ConnectorUnhealthy",
  "ConnectorDisconnected",
  "ConnectorWideStop",
  "SingleTableStop",
  "SourceStopped",
  "BackfillAfterGap",
  "VolumeSurge",
  "IngestionDelay",
] as const;
export type SuspectedCauseCode = (typeof suspectedCauseCodes)[number];

export interface WorkspaceIngestion {
  workspaceId: string;
  connectors: readonly DataConnector[];
  series: readonly IngestionSeries[];
}

export interface IngestionAnomaly {
  /** Stable for the same workspace, table, connector, kind and start: a re-run finds the same ids. */
  id: string;
  workspaceId: string;
  connectorId: string | null;
  source: Source | null;
  table: string;
  kind: AnomalyKind;
  window: { start: string; end: string };
  /** True when the anomaly reaches the last judged hour: it is still going on. */
  ongoing: boolean;
  expected: { p10: number; p50: number; p90: number };
  observed: number;
  unit: "MB" | "seconds";
  deviationPct: number | null;
  severity: AnomalySeverity;
  suspectedCause: { code: SuspectedCauseCode; description: string };
  /** Baseline samples behind the first hour's judgement (at most 7; 24 for Latency). */
  baselineSamples: number;
}

/** The ingestion window the evaluation needs: seven days of history before its first hour. */
export function requiredHistory(evaluate: { start: string; end: string }): { from: string; to: string } {
  return { from: new Date(Date.parse(evaluate.start) - BASELINE_DAYS * 24 * HOUR_MS).toISOString(), to: evaluate.end };
}

/** Percentile by linear interpolation between order statistics (position p·(n−1)). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const position = p * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

interface HourVerdict {
  hour: number;
  kind: AnomalyKind;
  observed: number;
  expected: { p10: number; p50: number; p90: number };
  samples: number;
}

export function detectIngestionAnomalies(workspaces: readonly WorkspaceIngestion[], options: DetectionOptions): IngestionAnomaly[] {
  const o = { ...defaultDetection, ...options };
  const start = Date.parse(o.evaluate.start);
  const settledEnd = Math.floor((Date.parse(o.now) - o.settleMinutes * 60_000) / HOUR_MS) * HOUR_MS;
  const end = Math.min(Date.parse(o.evaluate.end), settledEnd);
  const out: IngestionAnomaly[] = [];
  if (!(end > start)) return out;

  for (const workspace of workspaces) {
    const runs = workspace.series.map((series) => ({ series, runs: judgeSeries(series, start, end, o) }));
    const judged = runs.filter((r) => r.runs.judgedVolume);
    for (const { series, runs: found } of runs) {
      for (const run of found.runs) {
        const anomaly = describeRun(workspace, series, run, end);
        anomaly.suspectedCause = causeOf(workspace, series, run, judged, found.runs);
        out.push(anomaly);
      }
    }
  }
  const rank: Record<AnomalySeverity, number> = { High: 0, Medium: 1, Low: 2 };
  return out.sort((a, b) => rank[a.severity] - rank[b.severity] || (a.window.end < b.window.end ? 1 : a.window.end > b.window.end ? -1 : 0) || (a.id < b.id ? -1 : 1));
}

interface Run {
  kind: AnomalyKind;
  hours: HourVerdict[];
}

function judgeSeries(series: IngestionSeries, start: number, end: number, o: Thresholds): { runs: Run[]; judgedVolume: boolean } {
  const volume = new Map<number, number>();
  const latency = new Map<number, number>();
  for (const point of series.points) {
    const at = Date.parse(point.start);
    volume.set(at, point.volumeMb);
    if (point.latencySeconds !== null) latency.set(at, point.latencySeconds);
  }
  const verdicts: (HourVerdict | undefined)[] = [];
  const latencyVerdicts: (HourVerdict | undefined)[] = [];
  let judgedVolume = false;
  for (let hour = start; hour < end; hour += HOUR_MS) {
    const observed = volume.get(hour) ?? 0;
    const samples: number[] = [];
    for (let d = 1; d <= BASELINE_DAYS; d++) {
      const value = volume.get(hour - d * 24 * HOUR_MS);
      if (value !== undefined) samples.push(value);
    }
    let verdict: HourVerdict | undefined;
    if (samples.length >= o.minBaselineSamples) {
      judgedVolume = true;
      const sorted = [...samples].sort((a, b) => a - b);
      const expected = { p10: percentile(sorted, 0.1), p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
      const base = { hour, observed, expected, samples: samples.length };
      const lastWeek = volume.get(hour - BASELINE_DAYS * 24 * HOUR_MS);
      const weekly = (below: boolean) =>
        lastWeek !== undefined &&
        (below ? lastWeek < expected.p50 : lastWeek > expected.p50) &&
        Math.abs(observed - lastWeek) <= o.weeklyTolerance * Math.max(lastWeek, observed);
      if (observed === 0 && expected.p10 > 0) verdict = { ...base, kind: "NoData" };
      else if (observed < expected.p10 && observed <= expected.p50 * (1 - o.dropRatio) && expected.p50 - observed >= o.minAbsoluteMb && !weekly(true)) {
        verdict = { ...base, kind: "VolumeDrop" };
      } else if (observed > expected.p90 && observed >= expected.p50 * o.spikeRatio && observed - expected.p50 >= o.minAbsoluteMb && !weekly(false)) {
        verdict = { ...base, kind: "VolumeSpike" };
      }
    }
    verdicts.push(verdict);

    const delay = latency.get(hour);
    let latencyVerdict: HourVerdict | undefined;
    if (delay !== undefined) {
      const previous: number[] = [];
      for (let h = 1; h <= 24; h++) {
        const value = latency.get(hour - h * HOUR_MS);
        if (value !== undefined) previous.push(value);
      }
      if (previous.length >= 6) {
        const sorted = previous.sort((a, b) => a - b);
        const expected = { p10: percentile(sorted, 0.1), p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
        if (delay > o.latencyFloorSeconds && delay > o.latencyRatio * expected.p50) {
          latencyVerdict = { hour, kind: "Latency", observed: delay, expected, samples: previous.length };
        }
      }
    }
    latencyVerdicts.push(latencyVerdict);
  }

  // A short silence is a −100 % drop, judged by the drop's absolute floor.
  const volumeRuns = group(verdicts).flatMap((run): Run[] => {
    if (run.kind !== "NoData" || run.hours.length >= o.noDataHours) return [run];
    const asDrop = run.hours.filter((h) => h.expected.p50 - h.observed >= o.minAbsoluteMb);
    return asDrop.length === run.hours.length ? [{ kind: "VolumeDrop", hours: run.hours.map((h) => ({ ...h, kind: "VolumeDrop" })) }] : [];
  });
  return { runs: [...regroup(volumeRuns), ...group(latencyVerdicts)], judgedVolume };
}

/** Consecutive hours of the same kind. */
function group(verdicts: readonly (HourVerdict | undefined)[]): Run[] {
  const runs: Run[] = [];
  let current: Run | undefined;
  for (const verdict of verdicts) {
    if (verdict && current && current.kind === verdict.kind && current.hours[current.hours.length - 1]!.hour + HOUR_MS === verdict.hour) {
      current.hours.push(verdict);
      continue;
    }
    current = verdict ? { kind: verdict.kind, hours: [verdict] } : undefined;
    if (current) runs.push(current);
  }
  return runs;
}

/** Joins runs that became adjacent and alike (a short silence turned drop, next to a drop). */
function regroup(runs: readonly Run[]): Run[] {
  return group(runs.flatMap((r) => r.hours).sort((a, b) => a.hour - b.hour));
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function describeRun(workspace: WorkspaceIngestion, series: IngestionSeries, run: Run, end: number): IngestionAnomaly {
  const first = run.hours[0]!;
  const last = run.hours[run.hours.length - 1]!;
  const latency = run.kind === "Latency";
  const sum = (pick: (h: HourVerdict) => number) => Math.round(run.hours.reduce((total, h) => total + pick(h), 0) * 1000) / 1000;
  const expected = latency
    ? { p10: round1(first.expected.p10), p50: round1(first.expected.p50), p90: round1(first.expected.p90) }
    : { p10: sum((h) => h.expected.p10), p50: sum((h) => h.expected.p50), p90: sum((h) => h.expected.p90) };
  const observed = latency ? Math.max(...run.hours.map((h) => h.observed)) : sum((h) => h.observed);
  const deviationPct = expected.p50 > 0 ? round1(((observed - expected.p50) / expected.p50) * 100) : null;
  const window = { start: new Date(first.hour).toISOString(), end: new Date(last.hour + HOUR_MS).toISOString() };
  return {
    id: derivedGuid(`ingestion-anomaly\n${workspace.workspaceId}/${series.table}/${series.connectorId ?? ""}/${run.kind}/${window.start}`),
    workspaceId: workspace.workspaceId,
    connectorId: series.connectorId,
    source: series.source,
    table: series.table,
    kind: run.kind,
    window,
    ongoing: last.hour + HOUR_MS >= end,
    expected,
    observed,
    unit: latency ? "seconds" : "MB",
    deviationPct,
    severity: severityOf(run, observed, deviationPct),
    suspectedCause: { code: "SourceStopped", description: "" },
    baselineSamples: first.samples,
  };
}

function severityOf(run: Run, observed: number, deviationPct: number | null): AnomalySeverity {
  switch (run.kind) {
    case "NoData":
      return run.hours.length >= 4 ? "High" : "Medium";
    case "VolumeDrop":
      return deviationPct === null ? "Low" : deviationPct <= -90 ? "High" : deviationPct <= -75 ? "Medium" : "Low";
    case "VolumeSpike":
      return deviationPct === null ? "Medium" : deviationPct >= 500 ? "High" : deviationPct >= 200 ? "Medium" : "Low";
    case "Latency":
      return observed >= 3600 ? "High" : observed >= 1800 ? "Medium" : "Low";
  }
}

const overlaps = (a: Run, b: Run) => a.hours[0]!.hour <= b.hours[b.hours.length - 1]!.hour && b.hours[0]!.hour <= a.hours[a.hours.length - 1]!.hour;
const isLoss = (run: Run) => run.kind === "NoData" || run.kind === "VolumeDrop";

function causeOf(
  workspace: WorkspaceIngestion,
  series: IngestionSeries,
  run: Run,
  judged: readonly { series: IngestionSeries; runs: { runs: Run[] } }[],
  ownRuns: readonly Run[],
): IngestionAnomaly["suspectedCause"] {
  const connector = series.connectorId === null ? undefined : workspace.connectors.find((c) => c.id === series.connectorId);
  if (run.kind === "Latency") {
    return { code: "IngestionDelay", description: "Data arrives late: the agent or forwarder is buffering, or the ingestion pipeline lags. It should arrive rather than be lost; expect a catch-up spike." };
  }
  if (run.kind === "VolumeSpike") {
    const start = run.hours[0]!.hour;
    const gapBefore = ownRuns.some((r) => isLoss(r) && r.hours[r.hours.length - 1]!.hour < start && start - r.hours[r.hours.length - 1]!.hour <= 3 * HOUR_MS);
    if (gapBefore) return { code: "BackfillAfterGap", description: "Delayed data arriving after the preceding gap (a catch-up), not new activity." };
    return {
      code: "VolumeSurge",
      description: "More data than usual: attack activity (brute force, scanning), a verbosity or audit-policy change, or duplicated collection. Compare the table's top sources with the baseline.",
    };
  }
  const down = (s: IngestionSeries) => judged.find((j) => j.series === s)?.runs.runs.some((r) => isLoss(r) && overlaps(r, run)) ?? false;
  if (judged.length >= 2 && judged.every((j) => down(j.series))) {
    return { code: "WorkspaceWideStop", description: "Every table of the workspace dropped at once: check the workspace's daily cap, its network and access settings, or a regional ingestion outage." };
  }
  if (connector?.health.status === "Unhealthy" || connector?.health.status === "Degraded") {
    return { code: "ConnectorUnhealthy", description: `The connector reports itself ${connector.health.status.toLowerCase()}: ${connector.health.reason ?? "no reason given"}.` };
  }
  if (connector?.state === "Disconnected") {
    return { code: "ConnectorDisconnected", description: "The connector is disconnected: reconnect it or restore its permissions." };
  }
  const siblings = judged.filter((j) => j.series.connectorId !== null && j.series.connectorId === series.connectorId);
  if (siblings.length >= 2) {
    if (siblings.every((j) => down(j.series))) {
      return { code: "ConnectorWideStop", description: "Every table of this connector dropped while the rest of the workspace is normal: the connector, its credential or the source system stopped sending." };
    }
    return { code: "SingleTableStop", description: "Only this table of the connector dropped: a data type was switched off at the source, or a collection rule or filter changed." };
  }
  return { code: "SourceStopped", description: "The source stopped sending, or the agent or forwarder in front of it is down." };
}
