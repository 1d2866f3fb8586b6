import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { anomalyQueryBody } from "../../shared/api/datasources/datasource-schemas";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
let WS: string;
/** A WorkspaceAdmin of the provider: switches the workspace's integrations in the portal. */
let workspaceAdmin: TestPerson;
const switchIntegrations = async (body: Record<string, boolean>) => {
  const res = await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${WS}/integrations`, { body });
  expect(res.status).toBe(200);
};
const anomalies = (body: unknown, auth?: { clientId: string; clientSecret: string }) => host.call("POST", "/datasources/across-workspaces/anomalies", { body, auth });

beforeAll(async () => {
  host = await startTestHost();
  WS = host.demo.workspaces[0]!.id;
  workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
afterAll(async () => host?.close());

describe("data sources of a workspace", () => {
  it("lists the workspace's connectors with kind, source, state, tables, last log received and health", async () => {
    const res = await host.call("GET", `/workspaces/${WS}/datasources`);
    expect(res.status).toBe(200);
    const data = (await json(res)).data as Json[];
    // The same connectors the port reports, by name (times left out: the simulation's clock moves on).
    const timeless = (c: Json): Json => ({ ...c, lastLogReceivedAt: typeof c.lastLogReceivedAt, health: { ...c.health, checkedAt: typeof c.health.checkedAt } });
    const expected = (await host.services.logAnalytics.listDataConnectors(WS)).map(timeless).sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(data.map(timeless)).toEqual(expected);
    expect(data.map((c) => c.kind)).toContain("AzureActiveDirectory");
    // The first demo workspace has a connector in an ongoing outage: unhealthy, with a reason.
    const down = data.find((c) => c.health.status === "Unhealthy");
    expect(down?.health.reason).toEqual(expect.any(String));
  });

  it("answers 400 EXTENSION_NOT_ENABLED naming logAnalytics when the workspace's integration is off", async () => {
    await switchIntegrations({ logAnalytics: false });
    try {
      for (const path of [`/workspaces/${WS}/datasources`, `/workspaces/${WS}/agent/tools/kql/tables`]) {
        const res = await host.call("GET", path);
        expect(res.status).toBe(400);
        expect(await json(res)).toMatchObject({ code: "EXTENSION_NOT_ENABLED", target: "logAnalytics" });
      }
      // Cross-workspace calls leave the workspace out instead.
      const summary = await json(await host.call("GET", "/datasources/across-workspaces"));
      expect(summary.data.workspaces).not.toContain(WS);
      expect((await json(await anomalies({}))).data.workspaces).not.toContain(WS);
    } finally {
      await switchIntegrations({ logAnalytics: true });
    }
  });

  it("needs datasources:read and a role on the workspace", async () => {
    const noScope = await createServiceAccount(host, { scopes: ["incidents:read"], workspaceAssignments: [{ workspaceId: WS, role: "Analyst" }] });
    expect((await json(await host.call("GET", `/workspaces/${WS}/datasources`, { auth: noScope }))).code).toBe("INSUFFICIENT_SCOPE");
    expect((await json(await host.call("GET", "/datasources/across-workspaces", { auth: noScope }))).code).toBe("INSUFFICIENT_SCOPE");
    expect((await json(await anomalies({}, noScope))).code).toBe("INSUFFICIENT_SCOPE");
    const noRole = await createServiceAccount(host, { scopes: ["datasources:read"], workspaceAssignments: [] });
    expect((await json(await host.call("GET", `/workspaces/${WS}/datasources`, { auth: noRole }))).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
  });

  it("passes an upstream failure through as its contract code", async () => {
    const spy = vi.spyOn(host.services.logAnalytics, "listDataConnectors").mockRejectedValueOnce(new ApiError("RATE_LIMITED", "Throttled.", { headers: { "Retry-After": "12" } }));
    const res = await host.call("GET", `/workspaces/${WS}/datasources`);
    spy.mockRestore();
    expect([res.status, res.headers.get("retry-after"), (await json(res)).code]).toEqual([429, "12", "RATE_LIMITED"]);
  });
});

describe("data-source summary across workspaces", () => {
  it("is exactly docs/contract.md §2.12's summary, for every mapped workspace when none is named", async () => {
    const res = await host.call("GET", "/datasources/across-workspaces");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(Object.keys(data).sort()).toEqual(["sources", "workspaces"]);
    expect([...data.workspaces].sort()).toEqual(host.demo.workspaces.map((w) => w.id).sort());
    for (const s of data.sources) expect(Object.keys(s).sort()).toEqual(["dataConnectorCount", "source", "tenantId", "workspaceId", "workspaceName"]);
    const connectors = await host.services.logAnalytics.listDataConnectors(WS);
    const entra = connectors.filter((c) => c.source === "SourceA").length;
    const demo = host.demo.workspaces[0]!;
    expect(data.sources).toContainEqual({ workspaceId: WS, workspaceName: demo.name, tenantId: demo.tenantId, source: "SourceA", dataConnectorCount: entra });
  });

  it("takes repeated workspaceIds, and leaves out workspaces not mapped to the credential", async () => {
    const [a, b, c] = host.demo.workspaces;
    const two = await json(await host.call("GET", `/datasources/across-workspaces?workspaceIds=${a!.id}&workspaceIds=${b!.id}`));
    expect([...two.data.workspaces].sort()).toEqual([a!.id, b!.id].sort());
    expect(new Set(two.data.sources.map((s: Json) => s.workspaceId))).toEqual(new Set([a!.id, b!.id]));
    const one = await json(await host.call("GET", `/datasources/across-workspaces?workspaceIds=${c!.id}`));
    expect(one.data.workspaces).toEqual([c!.id]);

    const limited = await createServiceAccount(host, { scopes: ["datasources:read"], workspaceAssignments: [{ workspaceId: a!.id, role: "Analyst" }] });
    const mine = await json(await host.call("GET", `/datasources/across-workspaces?workspaceIds=${a!.id}&workspaceIds=${b!.id}`, { auth: limited }));
    expect(mine.data.workspaces).toEqual([a!.id]);
    const none = await json(await host.call("GET", `/datasources/across-workspaces?workspaceIds=${b!.id}`, { auth: limited }));
    expect(none.data).toEqual({ workspaces: [], sources: [] });
  });

  it("refuses a workspace id that is not a GUID and unknown parameters (400 VALIDATION_ERROR)", async () => {
    expect((await json(await host.call("GET", "/datasources/across-workspaces?workspaceIds=abc"))).code).toBe("VALIDATION_ERROR");
    expect((await json(await host.call("GET", "/datasources/across-workspaces?workspaces=x"))).code).toBe("VALIDATION_ERROR");
  });
});

describe("ingestion anomalies across workspaces", () => {
  it("the OpenAPI example finds the first demo workspace's injected outage and drop, most severe first", async () => {
    const example = (anomalyQueryBody.meta() as { examples: Json[] }).examples[0]!;
    const res = await anomalies({ ...example, workspaceIds: [WS], sources: [] });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.pagination).toEqual({ hasMore: false });
    const found = body.data.anomalies as Json[];
    expect(found.map((a) => a.kind)).toContain("NoData");
    for (const a of found) {
      expect(["NoData", "VolumeDrop"]).toContain(a.kind);
      expect(["High", "Medium"]).toContain(a.severity);
      expect(a).toMatchObject({ workspaceId: WS, workspaceName: host.demo.workspaces[0]!.name, expected: { p10: expect.any(Number), p50: expect.any(Number), p90: expect.any(Number) } });
    }
    const ranks = found.map((a) => (a.severity === "High" ? 0 : 1));
    expect(ranks).toEqual([...ranks].sort());
    const outage = found.find((a) => a.kind === "NoData")!;
    expect(outage.suspectedCause.code).toEqual(expect.any(String));
    expect(outage.ongoing).toBe(true);
  });

  it("finds every kind the simulation injects in the first workspace: NoData, VolumeDrop, VolumeSpike, Latency", async () => {
    const { data } = await json(await anomalies({ workspaceIds: [WS] }));
    expect(new Set(data.anomalies.map((a: Json) => a.kind))).toEqual(new Set(["NoData", "VolumeDrop", "VolumeSpike", "Latency"]));
    expect(data.workspaces).toEqual([WS]);
    const end = Date.parse(data.window.end);
    expect(end - Date.parse(data.window.start)).toBe(24 * 3_600_000);
    expect(end % 3_600_000).toBe(0);
  });

  it("pages with continuationToken: every anomaly once, in order, the window fixed at the first page", async () => {
    const all = (await json(await anomalies({ pageSize: 200 }))).data.anomalies as Json[];
    expect(all.length).toBeGreaterThan(3);
    const seen: Json[] = [];
    let token: string | undefined;
    let window: Json | undefined;
    for (let i = 0; i < 50; i++) {
      const body = await json(await anomalies({ pageSize: 2, ...(token ? { continuationToken: token } : {}) }));
      window ??= body.data.window;
      expect(body.data.window).toEqual(window);
      seen.push(...body.data.anomalies);
      if (!body.pagination.hasMore) break;
      token = body.pagination.continuationToken;
    }
    expect(seen.map((a) => a.id)).toEqual(all.map((a) => a.id));
  });

  it("a token used with other filters, or modified, is 400 VALIDATION_ERROR", async () => {
    const first = await json(await anomalies({ pageSize: 1 }));
    const token = first.pagination.continuationToken as string;
    const other = await anomalies({ pageSize: 1, kinds: ["NoData"], continuationToken: token });
    expect([other.status, (await json(other)).target]).toEqual([400, "continuationToken"]);
    const forged = await anomalies({ pageSize: 1, continuationToken: `x${token}` });
    expect(forged.status).toBe(400);
  });

  it("filters by kind, table, source, severity and ongoing", async () => {
    const spikes = (await json(await anomalies({ workspaceIds: [WS], kinds: ["VolumeSpike"], tables: ["signinlogs"] }))).data.anomalies as Json[];
    expect(spikes.length).toBeGreaterThan(0);
    for (const a of spikes) expect([a.kind, a.table]).toEqual(["VolumeSpike", "SigninLogs"]);
    const ongoing = (await json(await anomalies({ workspaceIds: [WS], ongoingOnly: true }))).data.anomalies as Json[];
    expect(ongoing.every((a) => a.ongoing)).toBe(true);
    const sourceA = (await json(await anomalies({ sources: ["sourcea"], severities: ["High"] }))).data.anomalies as Json[];
    expect(sourceA.every((a) => a.source === "SourceA" && a.severity === "High")).toBe(true);
  });

  it("refuses a window that is inverted, too long or too old, and unknown fields (400 VALIDATION_ERROR)", async () => {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const body of [
      { window: { start: iso(now - 3_600_000), end: iso(now - 5 * 3_600_000) } },
      { window: { start: iso(now - 9 * 86_400_000), end: iso(now) } },
      { window: { start: iso(now - 40 * 86_400_000), end: iso(now - 39 * 86_400_000) } },
      { window: { start: "yesterday", end: iso(now) } },
      { kinds: ["Silence"] },
      { pageSize: 0 },
      { minutes: 5 },
    ]) {
      const res = await anomalies(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).code).toBe("VALIDATION_ERROR");
    }
  });

  it("an explicit window judges those hours only", async () => {
    const end = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 3_600_000;
    const window = { start: new Date(end - 48 * 3_600_000).toISOString(), end: new Date(end).toISOString() };
    const { data } = await json(await anomalies({ workspaceIds: [WS], window }));
    expect(data.window).toEqual(window);
    for (const a of data.anomalies as Json[]) {
      expect(Date.parse(a.window.start)).toBeGreaterThanOrEqual(end - 48 * 3_600_000);
      expect(Date.parse(a.window.end)).toBeLessThanOrEqual(end);
    }
  });
});

describe("KQL tables", () => {
  it("lists the workspace's tables as docs/contract.md §2.12's {success, summary, tables}", async () => {
    const res = await host.call("GET", `/workspaces/${WS}/agent/tools/kql/tables`);
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(Object.keys(data).sort()).toEqual(["success", "summary", "tables"]);
    expect(data.success).toBe(true);
    expect(data.tables).toEqual(expect.arrayContaining(["SigninLogs", "SecurityAlert"]));
  });

  it("says success false with a readable summary when the workspace cannot be read, and needs investigation:read", async () => {
    const spy = vi.spyOn(host.services.logAnalytics, "listTables").mockResolvedValueOnce({ success: false, summary: "Access to the Log Analytics workspace was refused.", tables: [] });
    const res = await json(await host.call("GET", `/workspaces/${WS}/agent/tools/kql/tables`));
    spy.mockRestore();
    expect(res.data).toEqual({ success: false, summary: "Access to the Log Analytics workspace was refused.", tables: [] });
    const noScope = await createServiceAccount(host, { scopes: ["datasources:read"], workspaceAssignments: [{ workspaceId: WS, role: "Analyst" }] });
    expect((await json(await host.call("GET", `/workspaces/${WS}/agent/tools/kql/tables`, { auth: noScope }))).code).toBe("INSUFFICIENT_SCOPE");
  });
});
