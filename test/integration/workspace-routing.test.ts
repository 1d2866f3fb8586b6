import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sources, type Source } from "../../shared/model/sources";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import type { WorkspaceSources } from "../../shared/model/organizations/workspace-sources";
import { routeByWorkspace } from "../../shared/systems/vendors/workspace-routing";
import { disabledSource, type DeploymentSources, type SourceGateway } from "../../shared/systems/vendors/port";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { createSimulatedVendors } from "../../shared/systems/vendors/simulated/simulated-vendor";
import { startVendorBridge, type VendorBridge } from "../support/bridges/vendors-bridge-server";
import { apiErrorOf } from "../support/api-error-of";
import { CircuitBreakers } from "../../shared/platform/upstream/circuit-breaker";
import { silentLogger } from "../../shared/platform/logger";
import { ApiError } from "../../shared/platform/errors/api-error";
import type { SourceLimits } from "../../shared/systems/vendors/limiter";

const EVER = { from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z" };
const AUTH = "Bearer routing-test";

/** A deployment whose gateways record the workspace each call names and answer an incident of it. */
function recordingDeployment(enabled: readonly Source[] = sources) {
  const calls: { source: Source; method: string; workspaceId: string }[] = [];
  const incident = (source: Source, workspaceId: string, id = "inc-1") => ({ id, source, workspaceId }) as VendorIncident;
  const gateway = (source: Source): SourceGateway => {
    if (!enabled.includes(source)) return disabledSource(source);
    const note = (method: string, workspaceId: string) => calls.push({ source, method, workspaceId });
    return {
      source,
      getIncident: async (ws, id) => (note("getIncident", ws), incident(source, ws, id)),
      listIncidents: async (q) => (note("listIncidents", q.workspaceId), { items: [incident(source, q.workspaceId)] }),
      setStatus: async (ws, id) => (note("setStatus", ws), incident(source, ws, id)),
      setOwner: async (ws, id) => (note("setOwner", ws), incident(source, ws, id)),
      listComments: async (ws) => (note("listComments", ws), []),
      addComment: async (ws) => (note("addComment", ws), {} as never),
      updateComment: async (ws) => (note("updateComment", ws), {} as never),
      deleteComment: async (ws) => void note("deleteComment", ws),
      getEvidence: async (ws) => (note("getEvidence", ws), { rows: [] }),
      relatedByEntity: async (q) => (note("relatedByEntity", q.workspaceId), [incident(source, q.workspaceId)]),
    };
  };
  const gateways = new Map(sources.map((s) => [s, gateway(s)]));
  const deployment: DeploymentSources = { gateway: (s) => gateways.get(s)!, isEnabled: (s) => enabled.includes(s) };
  return { deployment, calls };
}

function routed(deployment: DeploymentSources, workspaces: Record<string, WorkspaceSources | undefined>, cacheTtlMs = 60_000, nowMs = () => Date.now()) {
  const reads: string[] = [];
  const opened: string[] = [];
  const breakers = new CircuitBreakers({ logger: silentLogger, nowMs });
  const registry = routeByWorkspace(deployment, {
    readWorkspace: async (id) => (reads.push(id), id in workspaces ? { id, sources: workspaces[id], tenantId: "t" } : undefined),
    openSecret: (sealed) => (opened.push(sealed), sealed.replace(/^sealed:/, "")),
    cacheTtlMs,
    timeoutMs: Object.fromEntries(sources.map((s) => [s, 5_000])) as Record<Source, number>,
    limits: Object.fromEntries(sources.map((s) => [s, { maxConcurrency: 4 }])) as Record<Source, { maxConcurrency: number }>,
    nowMs,
    breakers,
  });
  return { registry, reads, opened, breakers };
}

const record = (id: string, settings?: WorkspaceSources): WorkspaceRecord => ({ id, name: id, tenantId: "t", accountId: "a", sources: settings });

let bridge: VendorBridge;
beforeAll(async () => {
  const vendors = createSimulatedVendors({ seed: "routing", workspaces: [{ id: "vendor-ws", name: "v", tenantId: "t" }], incidentsPerWorkspace: 20, owners: [], now: () => new Date() });
  bridge = await startVendorBridge(vendors, { authHeader: AUTH });
});
afterAll(() => bridge?.close());

describe("source routing per workspace", () => {
  it("serves a workspace without settings (or unknown) from the deployment, under its own id", async () => {
    const { deployment, calls } = recordingDeployment();
    const { registry } = routed(deployment, { "ws-1": undefined });
    expect((await registry.gateway("SourceA").getIncident("ws-1", "i")).workspaceId).toBe("ws-1");
    await registry.gateway("SourceB").listIncidents({ workspaceId: "ws-unknown", field: "createdAt", ...EVER, limit: 5 });
    expect(calls).toEqual([
      { source: "SourceA", method: "getIncident", workspaceId: "ws-1" },
      { source: "SourceB", method: "listIncidents", workspaceId: "ws-unknown" },
    ]);
  });

  it("refuses a source switched off for the workspace with EXTENSION_NOT_ENABLED, calling nothing; other workspaces and sources go on", async () => {
    const { deployment, calls } = recordingDeployment();
    const { registry } = routed(deployment, { "ws-1": { SourceA: { enabled: false } }, "ws-2": undefined });
    const refused = await apiErrorOf(registry.gateway("SourceA").getIncident("ws-1", "i"));
    expect(refused).toMatchObject({ code: "EXTENSION_NOT_ENABLED", target: "source" });
    expect(refused.message).toContain("ws-1");
    await registry.gateway("SourceB").getIncident("ws-1", "i");
    await registry.gateway("SourceA").getIncident("ws-2", "i");
    expect(calls.map((c) => `${c.source}/${c.workspaceId}`)).toEqual(["SourceB/ws-1", "SourceA/ws-2"]);
  });

  it("names the workspace as the vendor knows it in every call, and gives the incidents back under the service's id", async () => {
    const { deployment, calls } = recordingDeployment();
    const { registry } = routed(deployment, { "ws-1": { SourceA: { enabled: true, vendorWorkspaceId: "vendor-7" } } });
    const a = registry.gateway("SourceA");
    expect((await a.getIncident("ws-1", "i")).workspaceId).toBe("ws-1");
    expect((await a.listIncidents({ workspaceId: "ws-1", field: "createdAt", ...EVER, limit: 5 })).items.map((i) => i.workspaceId)).toEqual(["ws-1"]);
    expect((await a.setStatus("ws-1", "i", { status: "Active" })).workspaceId).toBe("ws-1");
    expect((await a.setOwner("ws-1", "i", null)).workspaceId).toBe("ws-1");
    expect((await a.relatedByEntity({ workspaceId: "ws-1", limit: 5 })).map((i) => i.workspaceId)).toEqual(["ws-1"]);
    await a.listComments("ws-1", "i");
    await a.updateComment("ws-1", "i", "c", { message: "m" });
    await a.deleteComment("ws-1", "i", "c");
    await a.getEvidence("ws-1", "i");
    expect(new Set(calls.map((c) => c.workspaceId))).toEqual(new Set(["vendor-7"]));
    expect(calls).toHaveLength(9);
  });

  it("serves a workspace's own bridge over HTTP with its opened Authorization, one gateway per bridge, even for a source the deployment lacks", async () => {
    const { deployment, calls } = recordingDeployment([]);
    const own = { enabled: true, vendorWorkspaceId: "vendor-ws", bridge: { url: bridge.baseUrl("SourceA"), authorization: `sealed:${AUTH}` } };
    const { registry, opened } = routed(deployment, { "ws-1": { SourceA: own }, "ws-2": { SourceA: own } });
    bridge.server.reset();
    const page = await registry.gateway("SourceA").listIncidents({ workspaceId: "ws-1", field: "createdAt", ...EVER, limit: 3 });
    expect(page.items.length).toBe(3);
    expect(page.items.every((i) => i.workspaceId === "ws-1")).toBe(true);
    await registry.gateway("SourceA").getIncident("ws-2", page.items[0]!.id);
    expect(bridge.server.requests.map((r) => r.url.split("?")[0])).toEqual(["/source-a/workspaces/vendor-ws/incidents", `/source-a/workspaces/vendor-ws/incidents/${encodeURIComponent(page.items[0]!.id)}`]);
    expect(bridge.server.requests.every((r) => r.headers.authorization === AUTH)).toBe(true);
    // One gateway for the one bridge: its secret opened once.
    expect(opened).toEqual([`sealed:${AUTH}`]);
    expect(calls).toEqual([]);
    expect(registry.isEnabledFor(record("ws-1", { SourceA: own }), "SourceA")).toBe(true);
    expect(registry.isEnabledFor(record("ws-1", { SourceA: own }), "SourceB")).toBe(false);
  });

  it("a bridge whose secret cannot be opened answers UPSTREAM_ERROR without calling it", async () => {
    const { deployment } = recordingDeployment();
    const registry = routeByWorkspace(deployment, {
      readWorkspace: async (id) => ({ id, tenantId: "t", sources: { SourceA: { enabled: true, bridge: { url: bridge.baseUrl("SourceA"), authorization: "not-sealed" } } } }),
      openSecret: () => {
        throw new Error("Not a sealed secret.");
      },
      cacheTtlMs: 0,
      timeoutMs: Object.fromEntries(sources.map((s) => [s, 5_000])) as Record<Source, number>,
      limits: Object.fromEntries(sources.map((s) => [s, { maxConcurrency: 4 }])) as Record<Source, { maxConcurrency: number }>,
      nowMs: () => Date.now(),
      breakers: new CircuitBreakers({ logger: silentLogger }),
    });
    bridge.server.reset();
    expect(await apiErrorOf(registry.gateway("SourceA").getIncident("ws-1", "i"))).toMatchObject({ code: "UPSTREAM_ERROR" });
    expect(bridge.server.requests).toEqual([]);
  });

  it("reads a workspace's settings once per cache period, again after evict; a record handed over with isEnabledFor needs no read", async () => {
    const { deployment } = recordingDeployment();
    const settings: Record<string, WorkspaceSources | undefined> = { "ws-1": undefined, "ws-2": undefined };
    const { registry, reads } = routed(deployment, settings);
    const a = registry.gateway("SourceA");
    await Promise.all([a.getIncident("ws-1", "i"), a.getIncident("ws-1", "j"), registry.gateway("SourceB").getIncident("ws-1", "i")]);
    expect(reads).toEqual(["ws-1"]);
    settings["ws-1"] = { SourceA: { enabled: false } };
    await a.getIncident("ws-1", "i");
    registry.evict("ws-1");
    expect(await apiErrorOf(a.getIncident("ws-1", "i"))).toMatchObject({ code: "EXTENSION_NOT_ENABLED" });
    expect(reads).toEqual(["ws-1", "ws-1"]);
    expect(registry.isEnabledFor(record("ws-2", { SourceA: { enabled: false } }), "SourceA")).toBe(false);
    expect(await apiErrorOf(a.getIncident("ws-2", "i"))).toMatchObject({ code: "EXTENSION_NOT_ENABLED" });
    expect(reads).toEqual(["ws-1", "ws-1"]);

    const uncached = routed(deployment, settings, 0);
    await uncached.registry.gateway("SourceB").getIncident("ws-1", "i");
    await uncached.registry.gateway("SourceB").getIncident("ws-1", "i");
    expect(uncached.reads).toEqual(["ws-1", "ws-1"]);
  });

  it("holds the deployment's system to the source's limits, and a call waiting for a place is not one the vendor has left unanswered", async () => {
    let clock = 0;
    const answers: (() => void)[] = [];
    const hanging: SourceGateway = {
      ...recordingDeployment().deployment.gateway("SourceA"),
      listIncidents: (q) => new Promise((resolve) => answers.push(() => resolve({ items: [{ id: "i", source: "SourceA", workspaceId: q.workspaceId } as VendorIncident] }))),
    };
    const deployment: DeploymentSources = { gateway: () => hanging, isEnabled: () => true };
    const { registry, breakers } = routed(deployment, {}, 60_000, () => clock);
    const list = (workspaceId: string) => registry.gateway("SourceA").listIncidents({ workspaceId, field: "createdAt", ...EVER, limit: 5 });
    const sent = ["ws-1", "ws-2", "ws-3", "ws-4"].map(list);
    await new Promise((r) => setImmediate(r));
    const waiting = list("ws-5");
    await new Promise((r) => setImmediate(r));
    expect(answers).toHaveLength(4);
    clock += 5_000;
    // The four the vendor has are unanswered for 5 s; the fifth has waited as long, in this process's line.
    expect(breakers.pendingMs({ system: "SourceA", workspaceId: "ws-1" })).toBe(5_000);
    expect(breakers.pendingMs({ system: "SourceA", workspaceId: "ws-5" })).toBe(0);
    answers.shift()!();
    await sent[0];
    await new Promise((r) => setImmediate(r));
    expect(answers).toHaveLength(4);
    clock += 1_000;
    expect(breakers.pendingMs({ system: "SourceA", workspaceId: "ws-5" })).toBe(1_000);
    for (const answer of answers.splice(0)) answer();
    await Promise.all([...sent, waiting]);
  });

  it("isEnabledFor: the workspace's switch, and its own bridge or the deployment's system", () => {
    const { deployment } = recordingDeployment(["SourceA"]);
    const { registry } = routed(deployment, {});
    expect(registry.isEnabledFor(record("w"), "SourceA")).toBe(true);
    expect(registry.isEnabledFor(record("w"), "SourceB")).toBe(false);
    expect(registry.isEnabledFor(record("w", { SourceA: { enabled: false } }), "SourceA")).toBe(false);
    expect(registry.isEnabledFor(record("w", { SourceB: { enabled: true, bridge: { url: "https://bridge.example.com/b" } } }), "SourceB")).toBe(true);
    // The deployment's own answer is unchanged.
    expect(registry.isEnabled("SourceB")).toBe(false);
  });
});

describe("a vendor that counts its limits per tenant (SOURCE_<X>_TENANT_MAX_CONCURRENCY, _TENANT_MAX_RPS)", () => {
  /** Workspaces ws-1, ws-2 of tenant T1 and ws-3 of T2, on a deployment whose SourceA answers as `listIncidents` says. */
  function perTenant(listIncidents: SourceGateway["listIncidents"], perTenantLimits: SourceLimits["perTenant"] = { maxConcurrency: 2 }) {
    let clock = 0;
    const tenantOf: Record<string, string> = { "ws-1": "T1", "ws-2": "T1", "ws-3": "T2" };
    const gateway: SourceGateway = { ...recordingDeployment().deployment.gateway("SourceA"), listIncidents };
    const breakers = new CircuitBreakers({ logger: silentLogger, nowMs: () => clock });
    const registry = routeByWorkspace({ gateway: () => gateway, isEnabled: () => true }, {
      readWorkspace: async (id) => ({ id, tenantId: tenantOf[id]!, sources: undefined }),
      openSecret: (sealed) => sealed,
      cacheTtlMs: 60_000,
      timeoutMs: Object.fromEntries(sources.map((s) => [s, 5_000])) as Record<Source, number>,
      limits: Object.fromEntries(sources.map((s) => [s, { maxConcurrency: 10, perTenant: perTenantLimits }])) as Record<Source, SourceLimits>,
      nowMs: () => clock,
      breakers,
    });
    const list = (workspaceId: string) => registry.gateway("SourceA").listIncidents({ workspaceId, field: "createdAt", ...EVER, limit: 5 });
    return { list, breakers, advance: (ms: number) => (clock += ms) };
  }
  const page = (workspaceId: string) => ({ items: [{ id: "i", source: "SourceA", workspaceId } as VendorIncident] });
  const settle = () => new Promise((r) => setImmediate(r));

  it("holds one tenant's calls to the tenant's places across its workspaces, while another tenant's go on", async () => {
    const answers: { workspaceId: string; answer: () => void }[] = [];
    const { list } = perTenant((q) => new Promise((resolve) => answers.push({ workspaceId: q.workspaceId, answer: () => resolve(page(q.workspaceId)) })));
    const calls = ["ws-1", "ws-2", "ws-1", "ws-2", "ws-3"].map(list);
    await settle();
    // Two of T1's four at the vendor (the source has ten places), and T2's at once.
    expect(answers.filter((a) => a.workspaceId !== "ws-3")).toHaveLength(2);
    expect(answers.filter((a) => a.workspaceId === "ws-3")).toHaveLength(1);
    answers.shift()!.answer();
    await settle();
    await settle();
    expect(answers.filter((a) => a.workspaceId !== "ws-3")).toHaveLength(2);
    while (answers.length > 0) {
      answers.shift()!.answer();
      await settle();
      await settle();
    }
    expect((await Promise.all(calls)).map((p) => p.items[0]!.workspaceId)).toEqual(["ws-1", "ws-2", "ws-1", "ws-2", "ws-3"]);
  });

  it("a Retry-After one workspace is answered holds back every workspace of its tenant until it has passed, without calling the vendor or failing the source", async () => {
    const called: string[] = [];
    let throttle = true;
    const { list, breakers, advance } = perTenant(async (q) => {
      called.push(q.workspaceId);
      if (throttle && q.workspaceId === "ws-1") throw new ApiError("RATE_LIMITED", "Too many requests for this tenant.", { headers: { "Retry-After": "30" } });
      return page(q.workspaceId);
    });
    expect((await apiErrorOf(list("ws-1"))).code).toBe("RATE_LIMITED");
    throttle = false;
    advance(10_000);
    // ws-2 shares ws-1's tenant: refused here, with the time left, and the vendor is not called.
    for (let i = 0; i < 20; i++) {
      const refused = await apiErrorOf(list("ws-2"));
      expect(refused.code).toBe("RATE_LIMITED");
      expect(refused.headers["Retry-After"]).toBe("20");
    }
    // The other tenant is called, and the source stayed closed through twenty refusals.
    expect((await list("ws-3")).items).toHaveLength(1);
    expect(breakers.failing({ system: "SourceA" })).toBeUndefined();
    expect(called).toEqual(["ws-1", "ws-3"]);
    advance(20_000);
    expect((await list("ws-2")).items).toHaveLength(1);
    expect(called).toEqual(["ws-1", "ws-3", "ws-2"]);
  });

  it("without tenant limits, a Retry-After holds back only the workspace it was answered for", async () => {
    const called: string[] = [];
    const gateway: SourceGateway = {
      ...recordingDeployment().deployment.gateway("SourceA"),
      listIncidents: async (q) => {
        called.push(q.workspaceId);
        if (q.workspaceId === "ws-1") throw new ApiError("RATE_LIMITED", "Too many requests.", { headers: { "Retry-After": "30" } });
        return page(q.workspaceId);
      },
    };
    const { registry } = routed({ gateway: () => gateway, isEnabled: () => true }, { "ws-1": undefined, "ws-2": undefined });
    const list = (workspaceId: string) => registry.gateway("SourceA").listIncidents({ workspaceId, field: "createdAt", ...EVER, limit: 5 });
    expect((await apiErrorOf(list("ws-1"))).code).toBe("RATE_LIMITED");
    expect((await list("ws-2")).items).toHaveLength(1);
    expect(called).toEqual(["ws-1", "ws-2"]);
  });
});
