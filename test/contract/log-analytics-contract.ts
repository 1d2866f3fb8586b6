import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { TABLE_NAME } from "../../shared/systems/log-analytics/connector-tables";
import {
  connectorHealthStatuses,
  connectorStates,
  HOUR_MS,
  type DataConnector,
  type IngestionQuery,
  type IngestionSeries,
  type LogAnalytics,
} from "../../shared/systems/log-analytics/port";
import { createSimulatedLogAnalytics, type SimulatedLogAnalytics } from "../../shared/systems/log-analytics/simulated/simulated-log-analytics";
import { apiErrorOf } from "../support/api-error-of";

/** A Wednesday morning. */
const NOW = new Date("2024-06-12T09:30:00.000Z");
const SEED = "log-analytics-contract";
const HOUR = HOUR_MS;
/** The start of the hour of NOW. */
const THIS_HOUR = Math.floor(NOW.getTime() / HOUR) * HOUR;
const iso = (at: number) => new Date(at).toISOString();

/**
 * The log analytics both adapters read: the demo organization's Sentinel workspaces, simulated, with
 * their connectors and the events the simulation places in them (the first workspace holds one of each
 * kind), at a clock the tests move.
 */
export interface LogAnalyticsSystem {
  analytics: SimulatedLogAnalytics;
  workspaces: { id: string; name: string }[];
  clock: { now: Date };
}

export interface LogAnalyticsFixture {
  /** The adapter under test, reading `system`'s workspaces. */
  logAnalytics: LogAnalytics;
  /** The id the adapter gives the system's connector `connectorId` of `workspaceId` (adapters name connectors their own way). */
  connectorId(workspaceId: string, connectorId: string): string;
  teardown(): Promise<void>;
}

function logAnalyticsSystem(): LogAnalyticsSystem {
  const demo = buildDemoData(SEED, NOW);
  const clock = { now: NOW };
  const workspaces = demo.workspaces.map(({ id, name }) => ({ id, name }));
  return { analytics: createSimulatedLogAnalytics({ seed: SEED, workspaces, now: () => clock.now }), workspaces, clock };
}

const seriesOf = (all: IngestionSeries[], table: string): IngestionSeries => {
  const found = all.find((s) => s.table === table);
  expect(found, `a series for ${table}`).toBeDefined();
  return found!;
};
const pointAt = (series: IngestionSeries, at: number) => series.points.find((p) => p.start === iso(at))!;

/**
 * The behaviour every log analytics adapter must have, pinned once and run against each adapter.
 * Each test gets a fresh simulated system (`system`); `setup` gives the adapter that reads it.
 */
export function describeLogAnalyticsContract(name: string, setup: (system: LogAnalyticsSystem) => Promise<LogAnalyticsFixture>): void {
  describe(`${name} log analytics`, () => {
    let system: LogAnalyticsSystem;
    let fixture: LogAnalyticsFixture;
    let la: LogAnalytics;

    beforeEach(async () => {
      system = logAnalyticsSystem();
      fixture = await setup(system);
      la = fixture.logAnalytics;
    });
    afterEach(async () => {
      await fixture?.teardown();
    });

    const first = () => system.workspaces[0]!.id;
    /** The system's own view of a workspace's connectors: which tables each writes, which events it has. */
    const systemConnectors = () => system.analytics.system.listDataConnectors(first());
    /** A connector of the first workspace that no placed event touches. */
    const quietConnector = async (): Promise<DataConnector> => {
      const touched = new Set(system.analytics.console.events(first()).map((e) => e.connectorId));
      const quiet = (await systemConnectors()).find((c) => !touched.has(c.id));
      expect(quiet, "a connector without events").toBeDefined();
      return quiet!;
    };
    const connectorView = async (systemId: string): Promise<DataConnector> => {
      const id = fixture.connectorId(first(), systemId);
      const found = (await la.listDataConnectors(first())).find((c) => c.id === id);
      expect(found, `connector ${id}`).toBeDefined();
      return found!;
    };
    const day = (extra: Partial<IngestionQuery> = {}): IngestionQuery => ({ workspaceId: first(), from: iso(THIS_HOUR - 24 * HOUR), to: iso(THIS_HOUR), ...extra });

    describe("workspaces", () => {
      it("reads exactly the system's workspaces: any other is EXTENSION_NOT_ENABLED on every call", async () => {
        for (const w of system.workspaces) expect(la.isEnabled(w.id), w.name).toBe(true);
        const stranger = "00000000-0000-4000-8000-000000000000";
        expect(la.isEnabled(stranger)).toBe(false);
        for (const call of [
          () => la.listDataConnectors(stranger),
          () => la.ingestionVolumes({ ...day(), workspaceId: stranger }),
          () => la.listTables(stranger),
        ]) {
          expect((await apiErrorOf(call)).code).toBe("EXTENSION_NOT_ENABLED");
        }
      });

      it("lists the workspace's tables sorted and once each, among them every table a connector writes or a series measures, and says how many", async () => {
        for (const w of system.workspaces) {
          const list = await la.listTables(w.id);
          expect(list.success).toBe(true);
          expect([...new Set(list.tables)].sort()).toEqual(list.tables);
          const connectors = await la.listDataConnectors(w.id);
          const series = await la.ingestionVolumes({ ...day(), workspaceId: w.id });
          for (const t of [...connectors.flatMap((c) => c.tables), ...series.map((s) => s.table)]) expect(list.tables, w.name).toContain(t);
          expect(list.summary).toContain(`${list.tables.length} tables`);
        }
      });
    });

    describe("data connectors", () => {
      it("lists each workspace's connectors with ids of their own, a state, a health and the tables they write", async () => {
        const ids = new Set<string>();
        for (const w of system.workspaces) {
          const connectors = await la.listDataConnectors(w.id);
          expect(connectors.length).toBeGreaterThan(0);
          for (const c of connectors) {
            expect(ids.has(c.id), c.id).toBe(false);
            ids.add(c.id);
            expect(c.name.length).toBeGreaterThan(0);
            expect(c.kind.length).toBeGreaterThan(0);
            expect(connectorStates).toContain(c.state);
            expect(connectorHealthStatuses).toContain(c.health.status);
            expect(c.tables.length).toBeGreaterThan(0);
            expect(new Set(c.tables).size).toBe(c.tables.length);
            for (const t of c.tables) expect(t).toMatch(TABLE_NAME);
            if (c.lastLogReceivedAt !== null) expect(Date.parse(c.lastLogReceivedAt)).toBeLessThanOrEqual(NOW.getTime());
            if (c.health.checkedAt !== null) expect(Date.parse(c.health.checkedAt)).toBeLessThanOrEqual(NOW.getTime());
            if (c.health.status === "Healthy") expect(c.health.reason).toBeNull();
            else expect(c.health.reason?.length, `${c.name}: ${c.health.status}`).toBeGreaterThan(0);
          }
        }
      });

      it("reports a connector in an ongoing outage Unhealthy with the outage's reason, its last data from before the outage", async () => {
        const outage = system.analytics.console.events(first()).find((e) => e.kind === "Outage" && e.end === null);
        expect(outage).toBeDefined();
        const connector = await connectorView(outage!.connectorId);
        expect(connector.health).toMatchObject({ status: "Unhealthy", reason: outage!.reason });
        expect(Date.parse(connector.lastLogReceivedAt!)).toBeLessThan(Date.parse(outage!.start));
        const healthy = (await la.listDataConnectors(first())).filter((c) => c.health.status === "Healthy");
        expect(healthy.length).toBeGreaterThan(0);
        for (const c of healthy) expect(Date.parse(c.lastLogReceivedAt!)).toBeGreaterThan(NOW.getTime() - HOUR);
      });

      it("follows the system: an outage beginning turns the connector Unhealthy, its end Healthy again", async () => {
        const quiet = await quietConnector();
        expect((await connectorView(quiet.id)).health.status).toBe("Healthy");
        const start = NOW.toISOString();
        system.analytics.console.addEvent(first(), { connectorId: quiet.id, kind: "Outage", start, end: null, reason: "The diagnostic setting was removed." });
        system.clock.now = new Date(NOW.getTime() + 10 * 60_000);
        const down = await connectorView(quiet.id);
        expect(down.health).toMatchObject({ status: "Unhealthy", reason: "The diagnostic setting was removed." });
        expect(Date.parse(down.lastLogReceivedAt!)).toBeLessThan(Date.parse(start));
        system.analytics.console.resolve(first(), quiet.id);
        system.clock.now = new Date(NOW.getTime() + 20 * 60_000);
        const back = await connectorView(quiet.id);
        expect(back.health).toMatchObject({ status: "Healthy", reason: null });
        expect(Date.parse(back.lastLogReceivedAt!)).toBeGreaterThan(Date.parse(start));
      });

      it("reports a connector whose data arrives late Degraded, with a reason", async () => {
        const quiet = await quietConnector();
        system.analytics.console.addEvent(first(), { connectorId: quiet.id, kind: "Delay", start: iso(THIS_HOUR - HOUR), end: null, factor: 2400 });
        const late = await connectorView(quiet.id);
        expect(late.health.status).toBe("Degraded");
        expect(late.health.reason?.length).toBeGreaterThan(0);
      });
    });

    describe("ingestion volumes", () => {
      it("gives one series per table, one point per hour of [from, to) oldest first, in megabytes never negative, no delay unless asked", async () => {
        const query = day({ from: "2024-06-10T00:00:00.000Z", to: "2024-06-11T00:00:00.000Z" });
        const series = await la.ingestionVolumes(query);
        expect(series.length).toBeGreaterThan(0);
        expect(new Set(series.map((s) => s.table)).size).toBe(series.length);
        const hours = Array.from({ length: 24 }, (_, i) => iso(Date.parse(query.from) + i * HOUR));
        for (const s of series) {
          expect(s.points.map((p) => p.start), s.table).toEqual(hours);
          for (const p of s.points) {
            expect(Number.isFinite(p.volumeMb) && p.volumeMb >= 0).toBe(true);
            expect(p.latencySeconds).toBeNull();
          }
        }
        expect(series.some((s) => s.points.some((p) => p.volumeMb > 0))).toBe(true);
      });

      it("attributes a series to the one connector writing its table, and to none when several or none do", async () => {
        for (const w of system.workspaces) {
          const connectors = await la.listDataConnectors(w.id);
          const series = await la.ingestionVolumes({ ...day(), workspaceId: w.id });
          for (const s of series) {
            const writers = connectors.filter((c) => c.tables.includes(s.table));
            expect(s.connectorId, `${w.name} ${s.table}`).toBe(writers.length === 1 ? writers[0]!.id : null);
            expect(s.source).toBe(writers.length === 1 ? writers[0]!.source : null);
          }
          for (const t of connectors.flatMap((c) => c.tables)) expect(series.map((s) => s.table), `${w.name} ${t}`).toContain(t);
          expect(series.some((s) => s.connectorId !== null)).toBe(true);
        }
      });

      it("shows a spike in the hours it covers, multiplied, and leaves every other hour as it was", async () => {
        const quiet = await quietConnector();
        const table = quiet.tables[0]!;
        const before = await la.ingestionVolumes(day());
        const start = THIS_HOUR - 10 * HOUR;
        system.analytics.console.addEvent(first(), { connectorId: quiet.id, table, kind: "Spike", start: iso(start), end: iso(start + 3 * HOUR), factor: 4 });
        const after = await la.ingestionVolumes(day());
        for (const s of after) {
          const was = seriesOf(before, s.table);
          s.points.forEach((p, i) => {
            const at = Date.parse(p.start);
            if (s.table === table && at >= start && at < start + 3 * HOUR) {
              expect(was.points[i]!.volumeMb).toBeGreaterThan(0);
              expect(p.volumeMb).toBeCloseTo(was.points[i]!.volumeMb * 4, 2);
            } else {
              expect(p, `${s.table} ${p.start}`).toEqual(was.points[i]);
            }
          });
        }
      });

      it("shows no volume from an outage's start on, in every table of the connector, and none after now", async () => {
        const quiet = await quietConnector();
        const start = THIS_HOUR - 5 * HOUR;
        const query = day({ to: iso(THIS_HOUR + 3 * HOUR) });
        const before = await la.ingestionVolumes(query);
        system.analytics.console.addEvent(first(), { connectorId: quiet.id, kind: "Outage", start: iso(start), end: null, reason: "Stopped." });
        const after = await la.ingestionVolumes(query);
        for (const table of quiet.tables) {
          const s = seriesOf(after, table);
          const was = seriesOf(before, table);
          for (const [i, p] of s.points.entries()) {
            if (Date.parse(p.start) >= start) expect(p.volumeMb, `${table} ${p.start}`).toBe(0);
            else expect(p).toEqual(was.points[i]);
          }
          expect(was.points.filter((p) => Date.parse(p.start) < start).every((p) => p.volumeMb > 0)).toBe(true);
        }
        for (const s of after) {
          for (const p of s.points) if (Date.parse(p.start) > NOW.getTime()) expect(p.volumeMb, `${s.table} ${p.start}`).toBe(0);
        }
        expect(after.some((s) => pointAt(s, THIS_HOUR).volumeMb > 0)).toBe(true);
      });

      it("measures the delay of the hours from latencyFrom on that received data, and of no hour before", async () => {
        const latencyFrom = THIS_HOUR - 12 * HOUR;
        const series = await la.ingestionVolumes(day({ to: iso(THIS_HOUR + HOUR), latencyFrom: iso(latencyFrom) }));
        let measured = 0;
        for (const s of series) {
          for (const p of s.points) {
            const at = Date.parse(p.start);
            if (at < latencyFrom) expect(p.latencySeconds, `${s.table} ${p.start}`).toBeNull();
            else if (p.volumeMb > 0) {
              expect(p.latencySeconds, `${s.table} ${p.start}`).toBeGreaterThanOrEqual(0);
              measured++;
            }
          }
        }
        expect(measured).toBeGreaterThan(12);
      });

      it("has no delay for an hour in which the table received nothing", async () => {
        const quiet = await quietConnector();
        const start = THIS_HOUR - 4 * HOUR;
        system.analytics.console.addEvent(first(), { connectorId: quiet.id, kind: "Outage", start: iso(start), end: iso(start + 2 * HOUR), reason: "Stopped." });
        const series = await la.ingestionVolumes(day({ latencyFrom: iso(THIS_HOUR - 12 * HOUR) }));
        for (const table of quiet.tables) {
          const s = seriesOf(series, table);
          for (const at of [start, start + HOUR]) expect(pointAt(s, at)).toMatchObject({ volumeMb: 0, latencySeconds: null });
          expect(pointAt(s, start + 2 * HOUR).latencySeconds).not.toBeNull();
        }
      });

      it("measures a delay from an hour's start: the hour latencyFrom falls inside has none", async () => {
        const hour = THIS_HOUR - 6 * HOUR;
        const series = await la.ingestionVolumes(day({ latencyFrom: iso(hour + 30 * 60_000) }));
        const busy = series.filter((s) => pointAt(s, hour).volumeMb > 0 && pointAt(s, hour + HOUR).volumeMb > 0);
        expect(busy.length).toBeGreaterThan(0);
        for (const s of busy) {
          expect(pointAt(s, hour).latencySeconds, s.table).toBeNull();
          expect(pointAt(s, hour + HOUR).latencySeconds, s.table).not.toBeNull();
        }
      });

      it("shows a delay in the hours it covers, in seconds", async () => {
        const quiet = await quietConnector();
        const start = THIS_HOUR - 8 * HOUR;
        system.analytics.console.addEvent(first(), { connectorId: quiet.id, kind: "Delay", start: iso(start), end: iso(start + 2 * HOUR), factor: 1800 });
        const series = await la.ingestionVolumes(day({ latencyFrom: iso(THIS_HOUR - 12 * HOUR) }));
        for (const table of quiet.tables) {
          const s = seriesOf(series, table);
          expect([start - HOUR, start, start + HOUR, start + 2 * HOUR].map((at) => pointAt(s, at).latencySeconds === 1800)).toEqual([false, true, true, false]);
        }
      });

      it("refuses windows that are not whole UTC hours, not ordered or longer than 31 days, and a latencyFrom that is not a time", async () => {
        const expectInvalid = async (query: IngestionQuery, field: string) => {
          const error = await apiErrorOf(la.ingestionVolumes(query));
          expect(error.code, field).toBe("VALIDATION_ERROR");
          expect(error.errors).toHaveProperty(field);
        };
        await expectInvalid(day({ from: "2024-06-10T00:30:00.000Z" }), "from");
        await expectInvalid(day({ to: "2024-06-11T00:00:01.000Z" }), "to");
        await expectInvalid(day({ from: "not a time" }), "from");
        await expectInvalid(day({ from: iso(THIS_HOUR), to: iso(THIS_HOUR) }), "to");
        await expectInvalid(day({ from: iso(THIS_HOUR), to: iso(THIS_HOUR - HOUR) }), "to");
        await expectInvalid(day({ from: iso(THIS_HOUR - 32 * 24 * HOUR) }), "to");
        await expectInvalid(day({ latencyFrom: "soon" }), "latencyFrom");
        expect((await la.ingestionVolumes(day({ from: iso(THIS_HOUR - 31 * 24 * HOUR) }))).length).toBeGreaterThan(0);
      });
    });
  });
}
