import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerResponse } from "node:http";
import { GIVE_UP_AFTER_FAILED_PAGES } from "../../shared/domain/incidents/cross-workspace-listing";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import { startFakeHttpServer, type FakeHttpServer } from "../support/fake-http-server";
import { vendorCount } from "../support/vendor-count";
import { waitFor } from "../support/wait-for";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

// One clock for the service, its breakers and the simulated vendors: cool-downs pass when the test says.
let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);

/** What the failing workspace's own SourceA bridge does. */
type Fault = "500" | "429" | "hang";
let fault: Fault = "500";
/** Hanging answers, ended when the test is done with them. */
const hanging: ServerResponse[] = [];

let host: TestHost;
let vendor: FakeHttpServer;
let caller: { clientId: string; clientSecret: string };
let healthy: WorkspaceRecord[];
let failing: WorkspaceRecord;
const BUDGET_MS = 400;

beforeAll(async () => {
  vendor = await startFakeHttpServer((_req, res) => {
    if (fault === "hang") return void hanging.push(res);
    res.writeHead(fault === "429" ? 429 : 500, fault === "429" ? { "content-type": "application/json", "retry-after": "30" } : { "content-type": "application/json" });
    res.end("{}");
  });
  host = await startTestHost({
    now,
    env: { WORKSPACE_BRIDGES_ALLOW_HTTP: "true", CROSS_WORKSPACE_BUDGET_MS: String(BUDGET_MS), SIMULATED_INCIDENTS_PER_WORKSPACE: "60" },
  });
  [failing, ...healthy] = host.demo.workspaces.slice(0, 3) as [WorkspaceRecord, ...WorkspaceRecord[]];
  caller = await createServiceAccount(host, {
    workspaceAssignments: [failing, ...healthy].map((w) => ({ workspaceId: w.id, role: "Analyst" })),
    scopes: ["incidents:read"],
  });
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await host?.close();
  await vendor?.close();
});

/** Points the failing workspace's SourceA at the faulty bridge (or back at the deployment's vendor). */
async function breakVendor(how: Fault | "mended") {
  const record = (await host.services.stores.workspaces.get(failing.id))!;
  const sources = { ...record.sources, SourceA: how === "mended" ? { enabled: true } : { enabled: true, bridge: { url: `${vendor.origin}/source-a` } } };
  await host.services.stores.workspaces.upsert({ ...record, sources });
  host.services.sources.evict(failing.id);
  if (how !== "mended") fault = how;
  vendor.reset();
}

/** Heals every breaker of the failing workspace: its vendor mended, the cool-down over, one good read. */
async function heal(incidentId: string) {
  await breakVendor("mended");
  clock += 10 * 60_000;
  expect((await host.call("GET", `/workspaces/${failing.id}/incidents/SourceA/${incidentId}`)).status).toBe(200);
  expect(host.services.breakers.report().open).toBe(0);
}

/** Pages a SourceA listing to its end, as the contract says: every page's incidents and report. */
async function pageThrough() {
  const pages: Json[] = [];
  let body: Json = { sources: ["SourceA"], isFirstCall: true, workspacePageTokens: [] };
  for (let i = 0; i < 100; i++) {
    const res = await host.call("POST", "/incidents/across-workspaces", { body, auth: caller });
    expect(res.status).toBe(200);
    const page = await json(res);
    pages.push(page);
    if (!page.data.moreIncidentsAvailable) return pages;
    body = { sources: ["SourceA"], isFirstCall: false, workspacePageTokens: page.data.sourcePageTokens };
  }
  throw new Error("The listing never ended.");
}

async function expectEveryHealthyIncidentOnce(pages: Json[]) {
  const seen = pages.flatMap((p) => p.data.incidents as Json[]);
  const keys = seen.map((i) => `${i.incident.workspaceId}/${i.incident.id}`);
  expect(new Set(keys).size).toBe(keys.length);
  let expected = 0;
  for (const w of healthy) expected += await vendorCount(host.services, w.id, "SourceA", clock);
  expect(expected).toBeGreaterThan(0);
  expect(seen.filter((i) => i.incident.workspaceId !== failing.id)).toHaveLength(expected);
  // Nothing of the failing workspace is invented.
  expect(seen.filter((i) => i.incident.workspaceId === failing.id)).toEqual([]);
}

let knownIncident: string;

describe("the cross-workspace listing when one workspace's vendor fails", () => {
  beforeAll(async () => {
    const pages = await pageThrough();
    knownIncident = pages.flatMap((p) => p.data.incidents as Json[]).find((i) => i.incident.workspaceId === failing.id)!.incident.id;
    expect(pages.every((p) => p.meta.unavailable.length === 0)).toBe(true);
  });

  it("answers 500s with the healthy workspaces' incidents, reports UPSTREAM_ERROR, retries the stream and gives it up; the breaker stops the calls", async () => {
    await breakVendor("500");
    const pages = await pageThrough();
    await expectEveryHealthyIncidentOnce(pages);
    const reports = pages.flatMap((p) => p.meta.unavailable as Json[]);
    expect(new Set(reports.map((r) => r.workspaceId))).toEqual(new Set([failing.id]));
    expect(reports.every((r) => r.code === "UPSTREAM_ERROR" && r.source === "SourceA" && r.workspaceName === failing.name)).toBe(true);
    // Its token stayed while it was retried, and the last report gives it up.
    const served = reports.filter((r) => r.failedPages !== undefined);
    expect(served.map((r) => r.failedPages)).toEqual(Array.from({ length: GIVE_UP_AFTER_FAILED_PAGES }, (_, i) => i + 1));
    expect(served.at(-1)).toMatchObject({ gaveUp: true });
    expect(served.slice(0, -1).every((r) => r.gaveUp === false)).toBe(true);
    // Two calls opened the workspace's breaker: the third try made none, and said so.
    expect(vendor.requests).toHaveLength(2);
    expect(served.at(-1)).toMatchObject({ circuitOpen: true, retryAfterSeconds: 30 });
    await heal(knownIncident);
  });

  it("answers a 429 with Retry-After with the healthy workspaces' incidents, and holds the workspace back that long", async () => {
    await breakVendor("429");
    const pages = await pageThrough();
    await expectEveryHealthyIncidentOnce(pages);
    const reports = pages.flatMap((p) => p.meta.unavailable as Json[]);
    expect(new Set(reports.map((r) => r.workspaceId))).toEqual(new Set([failing.id]));
    expect(reports[0]).toMatchObject({ code: "RATE_LIMITED", retryAfterSeconds: 30, circuitOpen: false, failedPages: 1 });
    expect(reports.slice(1).every((r) => r.code === "RATE_LIMITED" && r.circuitOpen === true)).toBe(true);
    // The vendor asked for 30 s: one call, and none after it.
    expect(vendor.requests).toHaveLength(1);
    await heal(knownIncident);
  });

  it("does not wait on a vendor that never answers: the page comes within its budget, reports TIMEOUT and calls it no more meanwhile", async () => {
    await breakVendor("hang");
    const first = await json(await host.call("POST", "/incidents/across-workspaces", { body: { sources: ["SourceA"], isFirstCall: true, workspacePageTokens: [] }, auth: caller }));
    // The page answered while the vendor's call was still open: it did not wait for the vendor's own timeout.
    expect(hanging.filter((res) => !res.writableEnded && !res.destroyed)).toHaveLength(1);
    expect(first.meta.unavailable).toEqual([
      expect.objectContaining({ workspaceId: failing.id, source: "SourceA", code: "TIMEOUT", circuitOpen: false, gaveUp: false, failedPages: 1 }),
    ]);
    expect(first.meta.unavailable[0].detail).toContain(`within the page's ${BUDGET_MS} ms`);
    expect(first.data.moreIncidentsAvailable).toBe(true);
    clock += BUDGET_MS + 1;
    const pages = [first, ...(await pageThroughFrom(first))];
    await expectEveryHealthyIncidentOnce(pages);
    // While the first call hangs, no second one is started.
    expect(vendor.requests).toHaveLength(1);
    const reports = pages.flatMap((p) => p.meta.unavailable as Json[]);
    expect(reports.every((r) => r.workspaceId === failing.id && r.code === "TIMEOUT")).toBe(true);
    expect(reports.at(-1)).toMatchObject({ gaveUp: true });
    for (const res of hanging.splice(0)) res.destroy();
    // The hung call ends (its connection closed), and its failure is counted, before the workspace is healed.
    await waitFor(() => host.services.breakers.pendingMs({ system: "SourceA", workspaceId: failing.id }) === 0, "the hung call to end");
    await heal(knownIncident);
  });
});

describe("the last-modified listing when one workspace's vendor fails", () => {
  it("answers the healthy workspaces' window and reports the failing one as not read (nothing continues in this mode)", async () => {
    await breakVendor("500");
    const res = await host.call("POST", "/incidents/across-workspaces", {
      body: { sources: ["SourceA"], filterByLastModified: true, isFirstCall: true, workspacePageTokens: [], timeFilterSelection: { type: "FortyEightHours" } },
      auth: caller,
    });
    expect(res.status).toBe(200);
    const page = await json(res);
    expect(page.meta.unavailable).toEqual([expect.objectContaining({ workspaceId: failing.id, source: "SourceA", code: "UPSTREAM_ERROR", gaveUp: true })]);
    const workspaces = new Set((page.data.incidents as Json[]).map((i) => i.incident.workspaceId));
    expect(workspaces).toEqual(new Set(healthy.map((w) => w.id)));
    expect(page.data.sourcePageTokens).toEqual([]);
    await heal(knownIncident);
  });
});

/** The rest of a listing after `page`. */
async function pageThroughFrom(page: Json): Promise<Json[]> {
  const pages: Json[] = [];
  let last = page;
  while (last.data.moreIncidentsAvailable) {
    const res = await host.call("POST", "/incidents/across-workspaces", {
      body: { sources: ["SourceA"], isFirstCall: false, workspacePageTokens: last.data.sourcePageTokens },
      auth: caller,
    });
    expect(res.status).toBe(200);
    last = await json(res);
    pages.push(last);
    if (pages.length > 100) throw new Error("The listing never ended.");
  }
  return pages;
}

describe("a workspace's circuit breaker, shared by single reads, the reconciler and /health", () => {
  it("opens after two failures: reads answer at once with the code and Retry-After, the reconciler skips it, /health and the logs show it; a good trial closes it", async () => {
    await breakVendor("500");
    for (let i = 0; i < 2; i++) {
      const res = await host.call("GET", `/workspaces/${failing.id}/incidents/SourceA/${knownIncident}`);
      expect(res.status).toBe(502);
    }
    expect(vendor.requests).toHaveLength(2);
    const refused = await host.call("GET", `/workspaces/${failing.id}/incidents/SourceA/${knownIncident}`);
    expect(refused.status).toBe(502);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect((await json(refused)).detail).toMatch(/not being called: it failed 2 times in a row/);
    expect(vendor.requests).toHaveLength(2);
    expect(host.logs).toContainEqual(expect.objectContaining({ level: "warn", message: "circuit opened", fields: expect.objectContaining({ system: "SourceA", workspaceId: failing.id }) }));

    const health = await json(await host.call("GET", "/health", { auth: null }));
    expect(health.data.circuits).toEqual({
      open: 1,
      breakers: [{ system: "SourceA", workspaceId: failing.id, state: "open", code: "UPSTREAM_ERROR", retryAt: new Date(clock + 30_000).toISOString(), opens: 1 }],
    });

    // The reconciler's pass goes through the same breaker: it makes no call to the workspace meanwhile.
    const pass = await host.local("POST", "/reconcile");
    expect(pass.status).toBe(200);
    expect(vendor.requests).toHaveLength(2);

    // After the cool-down, one trial goes to the vendor; mended, it closes the breaker.
    await breakVendor("mended");
    clock += 30_000;
    expect((await host.call("GET", `/workspaces/${failing.id}/incidents/SourceA/${knownIncident}`)).status).toBe(200);
    expect(host.logs).toContainEqual(expect.objectContaining({ level: "info", message: "circuit closed", fields: { system: "SourceA", workspaceId: failing.id } }));
    expect((await json(await host.call("GET", "/health", { auth: null }))).data.circuits).toEqual({ open: 0, breakers: [] });
  });
});
