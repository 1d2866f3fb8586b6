import { describe, expect, it } from "vitest";
import { derivedGuid } from "../../shared/platform/ids/derived-guid";
import { detectIngestionAnomalies, percentile, requiredHistory, type DetectionOptions, type WorkspaceIngestion } from "../../shared/domain/datasources/ingestion-anomalies";
import type { DataConnector, IngestionSeries } from "../../shared/systems/log-analytics/port";

// Every expected number below is worked out by hand from the method in ingestion-anomalies.ts.

const H = 3_600_000;
const D = 24 * H;
const EVAL = Date.parse("2024-06-10T00:00:00.000Z"); // a Monday
const iso = (ms: number) => new Date(ms).toISOString();
/** Judge the whole evaluation day, long after it ended. */
const day: DetectionOptions = { evaluate: { start: iso(EVAL), end: iso(EVAL + D) }, now: iso(EVAL + 3 * D) };

/** Points from seven days before the evaluation day to its end; `value` undefined leaves the hour out. */
function series(table: string, connectorId: string | null, value: (at: number) => number | undefined, latency?: (at: number) => number | null): IngestionSeries {
  const points = [];
  for (let at = EVAL - 7 * D; at < EVAL + D; at += H) {
    const v = value(at);
    if (v !== undefined) points.push({ start: iso(at), volumeMb: v, latencySeconds: latency?.(at) ?? null });
  }
  return { table, connectorId, source: connectorId === null ? null : "SourceA", points };
}

function connector(id: string, tables: string[], extra: Partial<DataConnector> = {}): DataConnector {
  return {
    id,
    name: id,
    kind: "GenericUI",
    source: "SourceA",
    state: "Connected",
    dataTypes: ["logs"],
    tables,
    lastLogReceivedAt: null,
    health: { status: "Healthy", reason: null, checkedAt: null },
    ...extra,
  };
}

const ws = (series: IngestionSeries[], connectors: DataConnector[] = []): WorkspaceIngestion => ({ workspaceId: "w1", connectors, series });
/** The hour `n` hours into the evaluation day. */
const hour = (n: number) => EVAL + n * H;
const flat = (mb: number) => () => mb;

describe("baseline percentiles", () => {
  it("interpolates between order statistics at p·(n−1)", () => {
    const seven = [1, 2, 3, 4, 5, 6, 7];
    expect(percentile(seven, 0.1)).toBeCloseTo(1.6); // position 0.6
    expect(percentile(seven, 0.5)).toBe(4); // position 3
    expect(percentile(seven, 0.9)).toBeCloseTo(6.4); // position 5.4
    expect(percentile([5], 0.9)).toBe(5);
    expect(percentile([], 0.5)).toBe(0);
  });

  it("needs seven days of history before the first judged hour", () => {
    expect(requiredHistory({ start: "2024-06-10T00:00:00.000Z", end: "2024-06-11T00:00:00.000Z" })).toEqual({
      from: "2024-06-03T00:00:00.000Z",
      to: "2024-06-11T00:00:00.000Z",
    });
  });
});

describe("volume anomalies", () => {
  it("flags a drop below p10 and at least 50 % under p50, with the record's every field", () => {
    const s = series("Syslog", "c1", (at) => (at === hour(5) ? 2 : 10));
    const [anomaly, ...rest] = detectIngestionAnomalies([ws([s], [connector("c1", ["Syslog"])])], day);
    expect(rest).toEqual([]);
    expect(anomaly).toEqual({
      id: derivedGuid(`ingestion-anomaly\nw1/Syslog/c1/VolumeDrop/${iso(hour(5))}`),
      workspaceId: "w1",
      connectorId: "c1",
      source: "SourceA",
      table: "Syslog",
      kind: "VolumeDrop",
      window: { start: iso(hour(5)), end: iso(hour(6)) },
      ongoing: false,
      expected: { p10: 10, p50: 10, p90: 10 },
      observed: 2,
      unit: "MB",
      deviationPct: -80, // (2 − 10) / 10
      severity: "Medium", // −80 % is past −75 %, not −90 %
      suspectedCause: expect.objectContaining({ code: "SourceStopped" }),
      baselineSamples: 7,
    });
  });

  it("flags a spike above p90 and at least twice p50: samples 8,9,10,10,11,12,14 give p10 8.6, p50 10, p90 12.8", () => {
    const samples = [14, 8, 10, 12, 9, 11, 10]; // one per previous day, in any order
    const s = series("SigninLogs", "c1", (at) => {
      if (at === hour(9)) return 31;
      const daysBack = Math.round((hour(9) - at) / D);
      return at % D === hour(9) % D && daysBack >= 1 && daysBack <= 7 ? samples[daysBack - 1] : 10;
    });
    const found = detectIngestionAnomalies([ws([s])], day);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: "VolumeSpike",
      expected: { p10: 8.6, p50: 10, p90: 12.8 },
      observed: 31,
      deviationPct: 210, // (31 − 10) / 10
      severity: "Medium",
      suspectedCause: { code: "VolumeSurge" },
    });
  });

  it("does not flag what stays inside the range or misses a threshold", () => {
    const s = series("Syslog", "c1", (at) =>
      at === hour(1) ? 6 : // below p10 but only 40 % under p50
      at === hour(2) ? 19 : // above p90 but not twice p50
      10,
    );
    expect(detectIngestionAnomalies([ws([s])], day)).toEqual([]);
  });

  it("makes one NoData anomaly of five silent hours: totals of the hours' percentiles, −100 %, High", () => {
    const s = series("AWSCloudTrail", "c1", (at) => (at >= hour(3) && at < hour(8) ? 0 : 4));
    const [anomaly] = detectIngestionAnomalies([ws([s])], day);
    expect(anomaly).toMatchObject({
      kind: "NoData",
      window: { start: iso(hour(3)), end: iso(hour(8)) },
      expected: { p10: 20, p50: 20, p90: 20 }, // 5 hours × 4 MB
      observed: 0,
      deviationPct: -100,
      severity: "High",
      ongoing: false,
    });
  });

  it("calls a single silent hour a −100 % drop, and an ongoing silence ongoing", () => {
    const short = series("Syslog", "c1", (at) => (at === hour(4) ? 0 : 10));
    expect(detectIngestionAnomalies([ws([short])], day)[0]).toMatchObject({ kind: "VolumeDrop", deviationPct: -100, severity: "High" });
    const still = series("Syslog", "c1", (at) => (at >= hour(21) ? 0 : 10));
    expect(detectIngestionAnomalies([ws([still])], day)[0]).toMatchObject({ kind: "NoData", ongoing: true, severity: "Medium", window: { start: iso(hour(21)), end: iso(hour(24)) } });
  });

  it("ignores small absolute changes on tiny tables, but not their silence", () => {
    const dip = series("Heartbeat", "c1", (at) => (at === hour(6) ? 0.01 : 0.2)); // −95 % but 0.19 MB
    expect(detectIngestionAnomalies([ws([dip])], day)).toEqual([]);
    const silent = series("Heartbeat", "c1", (at) => (at >= hour(6) && at < hour(9) ? 0 : 0.2));
    expect(detectIngestionAnomalies([ws([silent])], day)).toMatchObject([{ kind: "NoData", expected: { p50: 0.6 } }]);
  });

  it("does not call a silence NoData where the source is often silent at that hour (p10 is 0)", () => {
    const nightly = series("Syslog", "c1", (at) => ((at - EVAL) % D === 2 * H && Math.round((EVAL - at) / D) % 2 === 0 ? 0 : 10));
    // Hour 2 was silent on days −2, −4, −6 and today: samples 10,0,10,0,10,0,10 → p10 0, p50 10.
    expect(detectIngestionAnomalies([ws([nightly])], day).filter((a) => a.kind === "NoData")).toEqual([]);
  });

  it("takes the same hour a week earlier as a weekly rhythm: a drop it repeats is not flagged", () => {
    const weekly = series("OfficeActivity", "c1", (at) => (at === hour(10) || at === hour(10) - 7 * D ? 2.2 : 10));
    expect(detectIngestionAnomalies([ws([weekly])], day)).toEqual([]);
    const once = series("OfficeActivity", "c1", (at) => (at === hour(10) ? 2.2 : 10));
    expect(detectIngestionAnomalies([ws([once])], day)).toMatchObject([{ kind: "VolumeDrop" }]);
  });

  it("does not judge volume with fewer than four days of history", () => {
    const young = series("Syslog", "c1", (at) => (at < EVAL - 3 * D ? undefined : at === hour(5) ? 0 : 10));
    expect(detectIngestionAnomalies([ws([young])], day)).toEqual([]);
  });

  it("leaves hours that ended less than an hour ago unjudged: their data may still arrive", () => {
    const s = series("Syslog", "c1", (at) => (at === hour(12) ? 0 : 10));
    expect(detectIngestionAnomalies([ws([s])], { ...day, now: iso(hour(13) + 30 * 60_000) })).toEqual([]);
    expect(detectIngestionAnomalies([ws([s])], { ...day, now: iso(hour(14)) })).toHaveLength(1);
  });
});

describe("latency anomalies", () => {
  it("flags an hour whose delay exceeds 10 minutes and three times the previous day's median", () => {
    const s = series("CommonSecurityLog", "c1", flat(10), (at) => (at === hour(15) ? 900 : at === hour(16) ? 2000 : at === hour(17) ? 170 : 60));
    const found = detectIngestionAnomalies([ws([s])], day);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: "Latency",
      unit: "seconds",
      window: { start: iso(hour(15)), end: iso(hour(17)) },
      observed: 2000, // the worst hour
      expected: { p10: 60, p50: 60, p90: 60 },
      deviationPct: 3233.3, // (2000 − 60) / 60
      severity: "Medium", // ≥ 30 minutes, < 1 hour
      baselineSamples: 24,
      suspectedCause: { code: "IngestionDelay" },
    });
  });
});

describe("suspected causes", () => {
  const silentFrom3to8 = (at: number) => (at >= hour(3) && at < hour(8) ? 0 : 10);

  it("sees every table of the workspace stopping at once", () => {
    const found = detectIngestionAnomalies([ws([series("A", "c1", silentFrom3to8), series("B", "c2", silentFrom3to8)])], day);
    expect(found.map((a) => a.suspectedCause.code)).toEqual(["WorkspaceWideStop", "WorkspaceWideStop"]);
  });

  it("quotes the connector's own health reason", () => {
    const unhealthy = connector("c1", ["AWSCloudTrail"], { health: { status: "Unhealthy", reason: "AccessDenied assuming role arn:aws:iam::123456789012:role/SentinelRole", checkedAt: null } });
    const found = detectIngestionAnomalies([ws([series("AWSCloudTrail", "c1", silentFrom3to8), series("Syslog", "c2", flat(10))], [unhealthy])], day);
    expect(found).toHaveLength(1);
    expect(found[0]!.suspectedCause).toEqual({
      code: "ConnectorUnhealthy",
      description: "The connector reports itself unhealthy: AccessDenied assuming role arn:aws:iam::123456789012:role/SentinelRole.",
    });
  });

  it("tells a whole connector stopping from one of its tables stopping", () => {
    const whole = detectIngestionAnomalies([ws([series("SigninLogs", "entra", silentFrom3to8), series("AuditLogs", "entra", silentFrom3to8), series("Syslog", "c2", flat(10))])], day);
    expect(whole.map((a) => a.suspectedCause.code)).toEqual(["ConnectorWideStop", "ConnectorWideStop"]);
    const one = detectIngestionAnomalies([ws([series("SigninLogs", "entra", silentFrom3to8), series("AuditLogs", "entra", flat(10)), series("Syslog", "c2", flat(10))])], day);
    expect(one.map((a) => a.suspectedCause.code)).toEqual(["SingleTableStop"]);
  });

  it("calls a spike right after a gap a catch-up, and sorts High first", () => {
    const s = series("Syslog", "c1", (at) => (at >= hour(3) && at < hour(8) ? 0 : at === hour(8) ? 45 : 10));
    const found = detectIngestionAnomalies([ws([s, series("Other", "c2", flat(10))])], day);
    expect(found.map((a) => [a.kind, a.severity, a.suspectedCause.code])).toEqual([
      ["NoData", "High", "SourceStopped"],
      ["VolumeSpike", "Medium", "BackfillAfterGap"], // +350 %
    ]);
  });
});
