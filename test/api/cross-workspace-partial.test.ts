import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import type { GamebookRunCursor, GamebookRunFilter } from "../../shared/platform/store/ports";
import { logAnalyticsNotEnabled, type LogAnalytics } from "../../shared/systems/log-analytics/port";
import { createSimulatedLogAnalytics } from "../../shared/systems/log-analytics/simulated/simulated-log-analytics";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

/*
 * The cross-workspace gamebook history, data-source summary and anomaly search answer with what the
 * healthy workspaces give when one workspace fails (docs/contract.md §4.2): 200, the others' data exactly as a
 * request naming only them would give, and `meta.unavailable` naming the failing workspace alone.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

vi.setConfig({ testTimeout: 60_000 });

/** The budget of this host: short, so that a hang past it is reported soon; long enough for a loaded machine's store reads. */
const BUDGET_MS = 1_000;
/** How long a hanging upstream takes before its own timeout ends the call: well past the budget. */
const HANG_MS = 2_500;
const RETRY_AFTER_SECONDS = 17;

/** The failure kinds every endpoint is tried with: a 5xx, a 429 with Retry-After, and a hang past the budget. */
type Fault = "UPSTREAM_ERROR" | "RATE_LIMITED" | "HANG" | "NOT_ENABLED";
const failureKinds = [
  { fault: "UPSTREAM_ERROR", code: "UPSTREAM_ERROR" },
  { fault: "RATE_LIMITED", code: "RATE_LIMITED" },
  { fault: "HANG", code: "TIMEOUT" },
] as const;

let host: TestHost;
/** The host's clock runs ahead by this much: moved on between tests so that breakers opened by one test have cooled down. */
let skewMs = 0;
const now = () => new Date(Date.now() + skewMs);

// --- Log Analytics that fails for chosen workspaces ------------------------------------------------

const laFaults = new Map<string, Fault>();
/** The workspaces Log Analytics was called for, in order. */
const laCalls: string[] = [];
/** Hanging calls still under way, so that a test ends only once they have. */
const hanging: Promise<unknown>[] = [];
let simulated: LogAnalytics | undefined;
/** The simulated Log Analytics of the demo workspaces, built on first use (the demo is the host's). */
const healthy = () => (simulated ??= createSimulatedLogAnalytics({ seed: host.services.config.demoSeed, workspaces: host.demo.workspaces, now }).system);

function faulted<T>(workspaceId: string, call: () => Promise<T>): Promise<T> {
  laCalls.push(workspaceId);
  switch (laFaults.get(workspaceId)) {
    case undefined:
      return call();
    case "UPSTREAM_ERROR":
      return Promise.reject(new ApiError("UPSTREAM_ERROR", `Azure Monitor Logs failed (status 503) while querying workspace ${workspaceId}.`));
    case "RATE_LIMITED":
      return Promise.reject(
        new ApiError("RATE_LIMITED", `Azure Monitor Logs is rate limiting the service (status 429) while querying workspace ${workspaceId}.`, {
          headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
        }),
      );
    case "NOT_ENABLED":
      return Promise.reject(logAnalyticsNotEnabled(workspaceId));
    case "HANG": {
      const call = sleep(HANG_MS).then((): never => {
        throw new ApiError("TIMEOUT", `Azure Monitor Logs timed out while querying workspace ${workspaceId}.`);
      });
      hanging.push(call.catch(() => undefined));
      return call;
    }
  }
}

const faultyLogAnalytics: LogAnalytics = {
  isEnabled: (workspaceId) => healthy().isEnabled(workspaceId),
  listDataConnectors: (workspaceId, signal) => faulted(workspaceId, () => healthy().listDataConnectors(workspaceId, signal)),
  ingestionVolumes: (query, signal) => faulted(query.workspaceId, () => healthy().ingestionVolumes(query, signal)),
  listTables: (workspaceId, signal) => faulted(workspaceId, () => healthy().listTables(workspaceId, signal)),
};

beforeAll(async () => {
  host = await startTestHost({ now, env: { CROSS_WORKSPACE_BUDGET_MS: String(BUDGET_MS) }, logAnalytics: faultyLogAnalytics });
});
afterAll(async () => host?.close());

/** The report of exactly one workspace, read for this answer and failed with `code`. */
function reportOf(workspace: WorkspaceRecord, code: string, extra: Json = {}): Json[] {
  return [{ workspaceId: workspace.id, workspaceName: workspace.name, code, detail: expect.any(String), circuitOpen: false, gaveUp: false, ...extra }];
}

const retryAfterOf = (fault: string) => (fault === "RATE_LIMITED" ? { retryAfterSeconds: RETRY_AFTER_SECONDS } : {});

// --- GET /gamebooks/across-workspaces/history ------------------------------------------------------

describe("GET /gamebooks/across-workspaces/history when a workspace's runs cannot be read", () => {
  type List = (workspaceId: string, filter: GamebookRunFilter, limit: number, cursor?: GamebookRunCursor) => Promise<{ items: Json[]; next?: GamebookRunCursor }>;
  /** Makes the store's reads of one workspace fail as `fail` says (undefined: read as usual); the store's own method does the rest. */
  function failStoreReads(workspaceId: string, fail: (cursor: GamebookRunCursor | undefined) => Fault | "STORE_TIMEOUT" | "BUG" | undefined) {
    const store = host.services.stores.gamebookRuns;
    const list = store.list.bind(store) as List;
    const reads: (GamebookRunCursor | undefined)[] = [];
    vi.spyOn(store, "list").mockImplementation(((id: string, filter: GamebookRunFilter, limit: number, cursor?: GamebookRunCursor) => {
      if (id !== workspaceId) return list(id, filter, limit, cursor);
      reads.push(cursor);
      switch (fail(cursor)) {
        case undefined:
          return list(id, filter, limit, cursor);
        case "UPSTREAM_ERROR":
          return Promise.reject(new ApiError("UPSTREAM_ERROR", "The data store is unavailable."));
        case "RATE_LIMITED":
          return Promise.reject(new ApiError("RATE_LIMITED", "The data store is busy. Retry later.", { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } }));
        case "STORE_TIMEOUT":
          return Promise.reject(new ApiError("TIMEOUT", "The data store did not answer in time."));
        case "BUG":
          return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'items')"));
        default:
          // A partition that answers long after the budget: its answer is not waited for.
          return sleep(HANG_MS).then(() => list(id, filter, limit, cursor));
      }
    }) as never);
    return reads;
  }
  beforeAll(async () => {
    // Real runs in the first two demo workspaces and in the one that approves every run.
    expect(await seedDemoGamebookRuns(host.services, host.demo.workspaces)).toBeGreaterThan(0);
  });
  afterEach(() => vi.restoreAllMocks());

  const history = async (workspaces: readonly WorkspaceRecord[], extra = "") =>
    json(await host.call("GET", `/gamebooks/across-workspaces/history?${workspaces.map((w) => `workspaces=${w.id}`).join("&")}${extra}`));
  const ids = (body: Json) => body.data.runs.map((r: Json) => r.id);

  it.each([...failureKinds, { fault: "STORE_TIMEOUT", code: "TIMEOUT" }] as const)(
    "$fault: 200 with the other workspaces' runs, and the report names that workspace alone with $code",
    async ({ fault, code }) => {
      const all = host.demo.workspaces;
      // The first demo workspace has runs of its own.
      const failing = all[0]!;
      const others = all.filter((w) => w !== failing);
      const complete = await history(all);
      expect(complete.data.runs.some((r: Json) => r.workspaceId === failing.id)).toBe(true);
      expect(complete.meta.unavailable).toEqual([]);
      const expected = await history(others);

      failStoreReads(failing.id, () => fault);
      const begun = Date.now();
      const res = await host.call("GET", `/gamebooks/across-workspaces/history?${all.map((w) => `workspaces=${w.id}`).join("&")}`);
      const tookMs = Date.now() - begun;
      expect(res.status).toBe(200);
      const partial = await json(res);
      expect(ids(partial)).toEqual(ids(expected));
      expect(partial.data.runs.some((r: Json) => r.workspaceId === failing.id)).toBe(false);
      expect(partial.data.hasMore).toBe(expected.data.hasMore);
      expect(partial.meta.unavailable).toEqual(reportOf(failing, code, retryAfterOf(fault)));
      if (fault === "HANG") {
        expect(partial.meta.unavailable[0].detail).toContain(`${BUDGET_MS} ms`);
        expect(tookMs).toBeLessThan(HANG_MS);
      }

      // Reading the same page again, once the workspace answers, gives the whole page.
      vi.restoreAllMocks();
      const again = await history(all);
      expect([ids(again), again.meta.unavailable]).toEqual([ids(complete), []]);
    },
  );

  it("a workspace failing on a refill in the middle of the merge: the runs it gave stay, the page goes on with the others, and it is reported", async () => {
    const all = host.demo.workspaces;
    const busy = all[2]!;
    // 30 runs newer than any other: the first read of each workspace takes 21 (two pages' worth over
    // five workspaces), so the busy workspace runs dry in the middle of the page and is read again.
    const template = (await host.services.stores.gamebookRuns.list(all[0]!.id, {}, 1)).items[0]!;
    const base = Date.now() + 3_600_000;
    const made: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = randomUUID();
      await host.services.stores.gamebookRuns.create({ ...template, id, workspaceId: busy.id, creationDate: new Date(base + i * 1_000).toISOString() }, []);
      made.unshift(id);
    }
    const others = all.filter((w) => w !== busy);
    const expectedRest = ids(await history(others));

    const reads = failStoreReads(busy.id, (cursor) => (cursor === undefined ? undefined : "UPSTREAM_ERROR"));
    const partial = await history(all);
    // The busy workspace was read twice: its first batch, and the refill that failed.
    expect(reads).toHaveLength(2);
    const firstBatch = made.slice(0, 21);
    expect(ids(partial)).toEqual([...firstBatch, ...expectedRest].slice(0, 50));
    expect(partial.meta.unavailable).toEqual(reportOf(busy, "UPSTREAM_ERROR"));

    vi.restoreAllMocks();
    const whole = await history(all);
    expect(ids(whole).slice(0, 30)).toEqual(made);
    expect(whole.meta.unavailable).toEqual([]);
  });

  it("a workspace failing while the pages before currentPage are read is left out of the page as well, and reported once", async () => {
    const all = host.demo.workspaces;
    const failing = all[2]!;
    const others = all.filter((w) => w !== failing);
    const expected = await history(others, "&currentPage=2");
    failStoreReads(failing.id, () => "RATE_LIMITED");
    const partial = await history(all, "&currentPage=2");
    expect(ids(partial)).toEqual(ids(expected));
    expect(partial.meta.unavailable).toEqual(reportOf(failing, "RATE_LIMITED", { retryAfterSeconds: RETRY_AFTER_SECONDS }));
  });

  it("a failure that is not an upstream's (a fault of the service) still fails the request", async () => {
    failStoreReads(host.demo.workspaces[0]!.id, () => "BUG");
    const res = await host.call("GET", "/gamebooks/across-workspaces/history");
    expect(res.status).toBe(500);
    expect((await json(res)).code).toBe("INTERNAL_ERROR");
  });
});

// --- Log Analytics: the data-source summary and the anomaly search ----------------------------------

describe("Log Analytics failing for a workspace", () => {
  afterEach(async () => {
    laFaults.clear();
    await Promise.all(hanging.splice(0));
    // Past every breaker's cool-down, and one good call per workspace closes what a test opened.
    skewMs += 10 * 60_000;
    for (const w of host.demo.workspaces) await host.services.logAnalytics.listDataConnectors(w.id);
    laCalls.length = 0;
  });

  const summary = async (workspaces: readonly WorkspaceRecord[]) => host.call("GET", `/datasources/across-workspaces?${workspaces.map((w) => `workspaceIds=${w.id}`).join("&")}`);
  /** An explicit window of whole past hours, so that two calls a moment apart judge the same hours. */
  const window = () => {
    const end = Math.floor(now().getTime() / 3_600_000) * 3_600_000 - 2 * 3_600_000;
    return { start: new Date(end - 24 * 3_600_000).toISOString(), end: new Date(end).toISOString() };
  };
  const anomalies = async (workspaces: readonly WorkspaceRecord[], w: { start: string; end: string }) =>
    host.call("POST", "/datasources/across-workspaces/anomalies", { body: { workspaceIds: workspaces.map((x) => x.id), window: w, pageSize: 200 } });

  describe("GET /datasources/across-workspaces", () => {
    it.each(failureKinds)("$fault: 200 with the other workspaces' summary, and the report names that workspace alone with $code", async ({ fault, code }) => {
      const all = host.demo.workspaces;
      const failing = all[1]!;
      const others = all.filter((w) => w !== failing);
      const expected = await json(await summary(others));
      expect(expected.meta.unavailable).toEqual([]);

      laFaults.set(failing.id, fault);
      const begun = Date.now();
      const res = await summary(all);
      const tookMs = Date.now() - begun;
      expect(res.status).toBe(200);
      const partial = await json(res);
      expect(partial.data).toEqual(expected.data);
      expect(partial.data.workspaces).not.toContain(failing.id);
      expect(partial.meta.unavailable).toEqual(reportOf(failing, code, retryAfterOf(fault)));
      if (fault === "HANG") {
        expect(partial.meta.unavailable[0].detail).toContain(`${BUDGET_MS} ms`);
        expect(tookMs).toBeLessThan(HANG_MS);
      }
    });

    it("a workspace whose Log Analytics asked to back off is not called again for the cool-down: reported circuitOpen, and its own endpoint answers 429 at once", async () => {
      const all = host.demo.workspaces;
      const failing = all[3]!;
      laFaults.set(failing.id, "RATE_LIMITED");
      expect((await json(await summary(all))).meta.unavailable).toEqual(reportOf(failing, "RATE_LIMITED", { retryAfterSeconds: RETRY_AFTER_SECONDS }));
      laFaults.clear();
      laCalls.length = 0;

      const next = await json(await summary(all));
      expect(next.meta.unavailable).toEqual([
        { workspaceId: failing.id, workspaceName: failing.name, code: "RATE_LIMITED", detail: expect.stringContaining("not being called"), retryAfterSeconds: expect.any(Number), circuitOpen: true, gaveUp: false },
      ]);
      expect([...next.data.workspaces].sort()).toEqual(all.filter((w) => w !== failing).map((w) => w.id).sort());
      expect(laCalls).not.toContain(failing.id);

      const own = await host.call("GET", `/workspaces/${failing.id}/datasources`);
      expect([own.status, (await json(own)).code, Number(own.headers.get("retry-after")) > 0]).toEqual([429, "RATE_LIMITED", true]);
      expect(laCalls).not.toContain(failing.id);
    });

    it("EXTENSION_NOT_ENABLED from a workspace's Log Analytics is the deployment's answer, not a workspace's failure: the whole request is 400, as before", async () => {
      laFaults.set(host.demo.workspaces[2]!.id, "NOT_ENABLED");
      const res = await summary(host.demo.workspaces);
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ code: "EXTENSION_NOT_ENABLED", target: "logAnalytics" });
    });
  });

  describe("POST /datasources/across-workspaces/anomalies", () => {
    it.each(failureKinds)("$fault: 200 with the other workspaces' anomalies, and the report names that workspace alone with $code", async ({ fault, code }) => {
      const all = host.demo.workspaces;
      // The first demo workspace is where the simulation injects every kind of anomaly.
      const failing = all[0]!;
      const others = all.filter((w) => w !== failing);
      const w = window();
      const complete = await json(await anomalies(all, w));
      expect(complete.data.anomalies.some((a: Json) => a.workspaceId === failing.id)).toBe(true);
      const expected = await json(await anomalies(others, w));
      expect(expected.meta.unavailable).toEqual([]);

      laFaults.set(failing.id, fault);
      const begun = Date.now();
      const res = await anomalies(all, w);
      const tookMs = Date.now() - begun;
      expect(res.status).toBe(200);
      const partial = await json(res);
      expect(partial.data.window).toEqual(expected.data.window);
      expect(partial.data.workspaces).toEqual(expected.data.workspaces);
      expect(partial.data.anomalies.map((a: Json) => a.id)).toEqual(expected.data.anomalies.map((a: Json) => a.id));
      expect(partial.pagination.hasMore).toBe(expected.pagination.hasMore);
      expect(partial.meta.unavailable).toEqual(reportOf(failing, code, retryAfterOf(fault)));
      if (fault === "HANG") {
        expect(partial.meta.unavailable[0].detail).toContain(`${BUDGET_MS} ms`);
        expect(tookMs).toBeLessThan(HANG_MS);
      }
    });
  });
});
