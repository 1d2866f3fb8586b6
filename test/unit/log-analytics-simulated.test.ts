import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { detectIngestionAnomalies, requiredHistory } from "../../shared/domain/datasources/ingestion-anomalies";
import { disabledLogAnalytics, type LogAnalytics } from "../../shared/systems/log-analytics/port";
import { createSimulatedLogAnalytics } from "../../shared/systems/log-analytics/simulated/simulated-log-analytics";

const H = 3_600_000;
const start = new Date("2024-06-12T09:30:00.000Z"); // a Wednesday
const demo = buildDemoData("seed-1", start);
const first = demo.workspaces[0]!;

function simulated(seed = "seed-1", clock = { now: start }) {
  return createSimulatedLogAnalytics({ seed, workspaces: demo.workspaces, now: () => clock.now });
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** The last complete day, as the anomalies endpoint would judge it. */
async function anomaliesOf(system: LogAnalytics, workspaceId: string, now: Date) {
  const end = Math.floor(now.getTime() / H) * H;
  const evaluate = { start: new Date(end - 24 * H).toISOString(), end: new Date(end).toISOString() };
  const history = requiredHistory(evaluate);
  const series = await system.ingestionVolumes({ workspaceId, ...history, latencyFrom: new Date(end - 48 * H).toISOString() });
  const connectors = await system.listDataConnectors(workspaceId);
  return detectIngestionAnomalies([{ workspaceId, connectors, series }], { evaluate, now: now.toISOString() });
}

describe("simulated log analytics", () => {
  it("gives each workspace a deterministic set of connectors, each feeding a source and writing tables", async () => {
    const a = await simulated().system.listDataConnectors(first.id);
    expect(await simulated().system.listDataConnectors(first.id)).toEqual(a);
    expect(a.map((c) => c.kind)).toContain("AzureActiveDirectory");
    for (const c of a) {
      expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(c.source).toMatch(/^Source[A-G]$/);
      expect(c.tables.length).toBeGreaterThan(0);
      expect(Date.parse(c.lastLogReceivedAt!)).toBeLessThanOrEqual(start.getTime());
    }
    const otherSeed = await simulated("seed-2").system.listDataConnectors(first.id);
    expect(otherSeed.map((c) => c.id)).not.toEqual(a.map((c) => c.id));
  });

  it("serves hourly series with a daily rhythm, the same on every read", async () => {
    const { system } = simulated();
    const query = { workspaceId: first.id, from: "2024-06-10T00:00:00.000Z", to: "2024-06-11T00:00:00.000Z" };
    const series = await system.ingestionVolumes(query);
    expect(await system.ingestionVolumes(query)).toEqual(series);
    const signins = series.find((s) => s.table === "SigninLogs")!;
    expect(signins.points).toHaveLength(24);
    const at = (hour: number) => signins.points[hour]!.volumeMb;
    expect(at(13)).toBeGreaterThan(at(2) * 1.5); // afternoon over night
  });

  it("holds injected events that the detection finds: an outage, a drop, a spike and a delay, with their causes", async () => {
    const found = await anomaliesOf(simulated().system, first.id, start);
    const kinds = new Set(found.map((a) => a.kind));
    expect([...kinds].sort()).toEqual(["Latency", "NoData", "VolumeDrop", "VolumeSpike"]);
    const outage = found.find((a) => a.kind === "NoData")!;
    expect(outage).toMatchObject({ ongoing: true, suspectedCause: { code: "ConnectorUnhealthy" } });
    expect(found.find((a) => a.kind === "VolumeSpike" && a.table === "SigninLogs")).toBeDefined();
  });

  it("lists the events the console adds, and refuses one for a connector the workspace does not have", async () => {
    const { system, console: consoles } = simulated();
    const entra = (await system.listDataConnectors(first.id)).find((c) => c.kind === "AzureActiveDirectory")!;
    const event = { connectorId: entra.id, kind: "Outage", start: start.toISOString(), end: null, reason: "Diagnostic setting removed." } as const;
    consoles.addEvent(first.id, event);
    expect(consoles.events(first.id)).toContainEqual(event);
    const error = await rejection(Promise.resolve().then(() => consoles.addEvent(first.id, { connectorId: "nope", kind: "Drop", start: start.toISOString(), end: null })));
    expect(error.code).toBe("NOT_FOUND");
  });

  it("lists the workspace's standard tables beside its connectors' for the KQL tool, naming the workspace", async () => {
    const list = await simulated().system.listTables(first.id);
    for (const table of ["Heartbeat", "Operation", "SentinelHealth", "Usage"]) expect(list.tables).toContain(table);
    expect(list.summary).toContain(first.name);
  });

  it("refuses a workspace the console disabled, and everything when no workspace is configured, with EXTENSION_NOT_ENABLED", async () => {
    const { system, console: consoles } = simulated();
    consoles.setEnabled(first.id, false);
    expect(system.isEnabled(first.id)).toBe(false);
    expect((await rejection(system.listTables(first.id))).code).toBe("EXTENSION_NOT_ENABLED");
    consoles.setEnabled(first.id, true);
    expect((await system.listTables(first.id)).success).toBe(true);
    const off = disabledLogAnalytics();
    expect((await rejection(off.ingestionVolumes({ workspaceId: first.id, from: "x", to: "y" }))).code).toBe("EXTENSION_NOT_ENABLED");
  });
});
