import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileWorkspace } from "../../shared/domain/reconciler/reconciler";
import { createSimulatedVendors } from "../../shared/systems/vendors/simulated/simulated-vendor";
import type { CataloguePlaybook } from "../../shared/model/gamebooks/playbook-catalogue-record";
import type { GamebookRunRecord } from "../../shared/model/gamebooks/gamebook-run";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import { startVendorBridge, type VendorBridge } from "../support/bridges/vendors-bridge-server";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import { json, type Json } from "../support/json";

const BRIDGE_AUTH = "Bearer portal-bridge-token";
/** The vendor's own name for the onboarded workspace: the bridge knows it by this, never by the service's id. */
const VENDOR_WORKSPACE = "woodgrove-prod-9f2c";

let host: TestHost;
let bridge: VendorBridge;
let vendors: ReturnType<typeof createSimulatedVendors>;
let admin: TestPerson;
let fabrikam: { id: string; tenantId: string };

beforeAll(async () => {
  host = await startTestHost({ env: { WORKSPACE_BRIDGES_ALLOW_HTTP: "true", SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  vendors = createSimulatedVendors({
    seed: "portal-bridge",
    workspaces: [{ id: VENDOR_WORKSPACE, name: "woodgrove-prod", tenantId: "tenant-woodgrove" }],
    incidentsPerWorkspace: 40,
    owners: [],
    now: () => new Date(),
  });
  bridge = await startVendorBridge(vendors, { authHeader: BRIDGE_AUTH });
  admin = await host.person({ organizationalRole: "Admin" });
  const fabrikamProd = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!;
  fabrikam = { id: fabrikamProd.accountId, tenantId: fabrikamProd.tenantId };
});
afterAll(async () => {
  await host?.close();
  await bridge?.close();
});

async function onboard(body: Json, as: TestPerson = admin): Promise<Json> {
  const res = await host.portal(as, "POST", "/portal/workspaces", { body: { accountId: fabrikam.id, tenantId: fabrikam.tenantId, ...body } });
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBe(201);
  return { ...answer.data, location: res.headers.get("location"), etag: res.headers.get("etag") };
}

async function trail(workspaceId: string) {
  await host.auditSequenced(workspaceId);
  return (await host.services.stores.audit.listWorkspaceTrail(workspaceId, 0, 500)).map((s) => s.event);
}

const offSources = (...except: string[]) => Object.fromEntries(["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF", "SourceG"].filter((s) => !except.includes(s)).map((s) => [s, { enabled: false }]));

describe("portal workspaces: listing", () => {
  it("shows Admin and WorkspaceAdmin every workspace of their organization, others those they hold a role on, filtered by organization", async () => {
    const all = (await json(await host.portal(admin, "GET", "/portal/workspaces"))).data;
    expect(all.map((w: Json) => w.id).sort()).toEqual(expect.arrayContaining(host.demo.workspaces.map((w) => w.id)));
    const [first, second] = host.demo.workspaces;
    const member = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: first!.id, role: "Analyst" }] });
    const theirs = (await json(await host.portal(member, "GET", "/portal/workspaces"))).data;
    expect(theirs.map((w: Json) => w.id)).toEqual([first!.id]);
    expect(theirs[0]).toMatchObject({ workspaceRole: "Analyst", sources: { SourceA: { enabled: true, vendorWorkspaceId: null, bridge: null, inEffect: true } } });
    const filtered = (await json(await host.portal(admin, "GET", `/portal/workspaces?accountId=${second!.accountId}`))).data;
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((w: Json) => w.accountId === second!.accountId)).toBe(true);
    expect((await json(await host.portal(admin, "GET", "/portal/workspaces?accountId=00000000-0000-4000-8000-000000000009"))).data).toEqual([]);
  });
});

describe("portal workspaces: onboarding", () => {
  it("onboards with per-source settings, keeps the bridge's Authorization sealed and never shows it, audited in the workspace's trail", async () => {
    const created = await onboard({
      name: "fabrikam-sentinel-dev",
      sources: {
        SourceA: { vendorWorkspaceId: "fabrikam-dev-41b2", bridge: { url: "https://bridge.fabrikam.example/source-a/", authorization: "Bearer top-secret-value" } },
        SourceG: { enabled: false },
      },
    });
    expect(created.location).toMatch(new RegExp(`/api/v2/portal/workspaces/${created.id}$`));
    expect(created.sources.SourceA).toEqual({ enabled: true, vendorWorkspaceId: "fabrikam-dev-41b2", bridge: { url: "https://bridge.fabrikam.example/source-a", hasAuthorization: true }, inEffect: true });
    expect(created.sources.SourceG).toEqual({ enabled: false, vendorWorkspaceId: null, bridge: null, inEffect: false });
    expect(created.sources.SourceB).toMatchObject({ enabled: true, bridge: null });
    const read = await host.portal(admin, "GET", `/portal/workspaces/${created.id}`);
    expect(JSON.stringify(await read.clone().json())).not.toContain("top-secret-value");
    expect(read.headers.get("etag")).toBe(created.etag);
    const stored = await host.services.stores.workspaces.get(created.id);
    expect(stored!.sources!.SourceA!.bridge!.authorization).toMatch(/^v1\./);
    expect(host.services.secretBox.open(stored!.sources!.SourceA!.bridge!.authorization!)).toBe("Bearer top-secret-value");
    const [event] = await trail(created.id);
    expect(event).toMatchObject({ activityType: "WorkspaceOnboarded", activityAction: "Create", discriminator: "Workspace", actorId: admin.userId, targetResourceName: "fabrikam-sentinel-dev" });
    expect(event!.metadata).not.toContain("top-secret-value");
    expect(JSON.parse(event!.metadata).sources.SourceA).toEqual({ enabled: true, vendorWorkspaceId: "fabrikam-dev-41b2", bridgeUrl: "https://bridge.fabrikam.example/source-a", hasAuthorization: true });
    // Every route of the contract and the portal knows it at once.
    expect((await json(await host.portal(admin, "GET", "/portal/workspaces"))).data.map((w: Json) => w.id)).toContain(created.id);
    // From its first minute, containment waits for an Owner: approval for playbooks that need an administrator.
    expect(JSON.parse(event!.metadata).approvalMode).toBe("AdminRequiredPlaybooks");
    expect((await json(await host.portal(admin, "GET", `/portal/workspaces/${created.id}/approval-policy`))).data).toMatchObject({ mode: "AdminRequiredPlaybooks" });
    // No approval is there only when asked for.
    const asked = await onboard({ name: "fabrikam-sentinel-lab", approvalMode: "NoApproval" });
    expect((await json(await host.portal(admin, "GET", `/portal/workspaces/${asked.id}/approval-policy`))).data).toMatchObject({ mode: "NoApproval" });
  });

  it("points each validation problem at its field", async () => {
    const cases: [Json, string][] = [
      [{ name: "x", sources: { SourceA: { bridge: { url: "ftp://bridge.example.com" } } } }, "sources.SourceA.bridge.url"],
      [{ name: "x", sources: { SourceA: { bridge: { url: "https://user:pw@bridge.example.com" } } } }, "sources.SourceA.bridge.url"],
      [{ name: "x", sources: { SourceA: { bridge: { url: "https://bridge.example.com/a?key=1" } } } }, "sources.SourceA.bridge.url"],
      [{ name: "x", sources: { SourceA: { bridge: { url: "https://bridge.example.com", authorization: "Bearer a\r\nX-Evil: 1" } } } }, "sources.SourceA.bridge.authorization"],
      [{ name: "x", sources: { SourceZ: { enabled: false } } }, "sources.SourceZ"],
      [{ name: "x", sources: { SourceA: { enabled: "yes" } } }, "sources.SourceA.enabled"],
      [{ name: "" }, "name"],
      [{ name: "x", accountId: "00000000-0000-4000-8000-000000000009" }, "accountId"],
      [{ name: "x", tenantId: "not-a-guid" }, "tenantId"],
    ];
    for (const [body, field] of cases) {
      const res = await host.portal(admin, "POST", "/portal/workspaces", { body: { accountId: fabrikam.id, tenantId: fabrikam.tenantId, ...body } });
      const problem = await json(res);
      expect({ field, status: res.status, code: problem.code }).toEqual({ field, status: 400, code: "VALIDATION_ERROR" });
      expect(Object.keys(problem.errors), field).toContain(field);
    }
    // A name the organization has already is a conflict, not a validation problem.
    expect(await json(await host.portal(admin, "POST", "/portal/workspaces", { body: { name: "FABRIKAM-SENTINEL-PROD", accountId: fabrikam.id, tenantId: fabrikam.tenantId } }))).toMatchObject({
      status: 409,
      target: "name",
    });
  });

  it("refuses plain http for a bridge unless the deployment allows it for local testing", async () => {
    const strict = await startTestHost();
    try {
      const person = await strict.person({ organizationalRole: "WorkspaceAdmin" });
      const res = await strict.portal(person, "POST", "/portal/workspaces", {
        body: { name: "x", accountId: fabrikam.id, tenantId: fabrikam.tenantId, sources: { SourceA: { bridge: { url: "http://bridge.example.com" } } } },
      });
      expect(await json(res)).toMatchObject({ status: 400, errors: { "sources.SourceA.bridge.url": [expect.stringContaining("WORKSPACE_BRIDGES_ALLOW_HTTP")] } });
    } finally {
      await strict.close();
    }
  });
});

describe("portal workspaces: per-workspace vendor routing", () => {
  let workspaceId: string;
  let caller: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    const created = await onboard({
      name: "woodgrove-prod",
      sources: { ...offSources("SourceA"), SourceA: { vendorWorkspaceId: VENDOR_WORKSPACE, bridge: { url: bridge.baseUrl("SourceA"), authorization: BRIDGE_AUTH } } },
    });
    workspaceId = created.id;
    const account = await createServiceAccount(host, { scopes: ["incidents:read"], workspaceAssignments: [{ workspaceId, role: "Analyst" }] });
    caller = { clientId: account.clientId, clientSecret: account.clientSecret };
  });

  it("lists the workspace's incidents through its own bridge, named as the vendor knows it, answered under the service's id", async () => {
    bridge.server.reset();
    const res = await host.call("POST", "/incidents/across-workspaces", { auth: caller, body: { isFirstCall: true, workspacePageTokens: [] } });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data.incidents.length).toBeGreaterThan(0);
    expect(new Set(body.data.incidents.map((i: Json) => i.source))).toEqual(new Set(["SourceA"]));
    expect(new Set(body.data.incidents.map((i: Json) => i.incident.workspaceId))).toEqual(new Set([workspaceId]));
    expect(bridge.server.requests.length).toBeGreaterThan(0);
    for (const request of bridge.server.requests) {
      expect(request.url).toMatch(new RegExp(`^/source-a/workspaces/${VENDOR_WORKSPACE}/incidents`));
      expect(request.headers.authorization).toBe(BRIDGE_AUTH);
    }

    const one = body.data.incidents[0];
    const read = await json(await host.call("GET", `/workspaces/${workspaceId}/incidents/SourceA/${one.incident.id}`, { auth: caller }));
    expect(read.data).toMatchObject({ source: "SourceA", incident: { id: one.incident.id, workspaceId } });
    expect(bridge.server.requests.map((r) => r.url)).toContain(`/source-a/workspaces/${VENDOR_WORKSPACE}/incidents/${encodeURIComponent(one.incident.id)}`);
  });

  it("answers EXTENSION_NOT_ENABLED for a source switched off for the workspace, and the reconciler passes it over", async () => {
    const off = await json(await host.call("GET", `/workspaces/${workspaceId}/incidents/SourceB/anything`, { auth: caller }));
    expect(off).toMatchObject({ status: 400, code: "EXTENSION_NOT_ENABLED", target: "source", detail: expect.stringContaining(workspaceId) });
    bridge.server.reset();
    const result = await reconcileWorkspace(host.services, { workspaceId, passId: "portal-test", passStartedAt: host.services.now().toISOString() });
    expect(result.outcome, JSON.stringify(result)).toBe("done");
    expect(result.vendorCalls).toBeGreaterThan(0);
    expect(bridge.server.requests.every((r) => r.url.startsWith(`/source-a/workspaces/${VENDOR_WORKSPACE}/`))).toBe(true);
  });

  it("applies a change of the settings at once: switched off the source answers EXTENSION_NOT_ENABLED, back on it is served again", async () => {
    const incident = (await json(await host.call("POST", "/incidents/across-workspaces", { auth: caller, body: { isFirstCall: true, workspacePageTokens: [] } }))).data.incidents[0].incident;
    const path = `/workspaces/${workspaceId}/incidents/SourceA/${incident.id}`;
    const off = await host.portal(admin, "PATCH", `/portal/workspaces/${workspaceId}`, { body: { sources: { SourceA: { enabled: false } } } });
    expect((await json(off)).data.sources.SourceA).toMatchObject({ enabled: false, inEffect: false, bridge: { hasAuthorization: true } });
    expect(await json(await host.call("GET", path, { auth: caller }))).toMatchObject({ status: 400, code: "EXTENSION_NOT_ENABLED" });
    // The cross-workspace listing leaves the workspace out rather than failing.
    const listed = await json(await host.call("POST", "/incidents/across-workspaces", { auth: caller, body: { isFirstCall: true, workspacePageTokens: [] } }));
    expect(listed.data.incidents).toEqual([]);
    await host.portal(admin, "PATCH", `/portal/workspaces/${workspaceId}`, { body: { sources: { SourceA: { enabled: true } } } });
    expect((await host.call("GET", path, { auth: caller })).status).toBe(200);
  });

  it("keeps a bridge's Authorization only while its URL stays: a new address gets none unless sent", async () => {
    const moved = await json(await host.portal(admin, "PATCH", `/portal/workspaces/${workspaceId}`, { body: { sources: { SourceA: { bridge: { url: `${bridge.server.origin}/elsewhere` } } } } }));
    expect(moved.data.sources.SourceA.bridge).toEqual({ url: `${bridge.server.origin}/elsewhere`, hasAuthorization: false });
    const back = await json(
      await host.portal(admin, "PATCH", `/portal/workspaces/${workspaceId}`, { body: { sources: { SourceA: { bridge: { url: bridge.baseUrl("SourceA"), authorization: BRIDGE_AUTH } } } } }),
    );
    expect(back.data.sources.SourceA.bridge).toEqual({ url: bridge.baseUrl("SourceA"), hasAuthorization: true });
    const same = await json(await host.portal(admin, "PATCH", `/portal/workspaces/${workspaceId}`, { body: { name: "woodgrove-production", sources: { SourceA: { bridge: { url: bridge.baseUrl("SourceA") } } } } }));
    expect(same.data).toMatchObject({ name: "woodgrove-production", sources: { SourceA: { bridge: { hasAuthorization: true } } } });
    const events = (await trail(workspaceId)).filter((e) => e.activityType === "WorkspaceUpdated");
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.map((e) => e.metadata).join()).not.toContain(BRIDGE_AUTH);
  });

  it("a deployment-default workspace is served as before, and a stale If-Match is 409", async () => {
    const demo = host.demo.workspaces[0]!.id;
    const read = await host.portal(admin, "GET", `/portal/workspaces/${demo}`);
    const etag = read.headers.get("etag")!;
    const renamed = await host.portal(admin, "PATCH", `/portal/workspaces/${demo}`, { body: { sources: { SourceC: { enabled: false } } }, headers: { "if-match": etag } });
    expect(renamed.status).toBe(200);
    const stale = await host.portal(admin, "PATCH", `/portal/workspaces/${demo}`, { body: { sources: { SourceC: { enabled: true } } }, headers: { "if-match": etag } });
    expect(await json(stale)).toMatchObject({ status: 409, code: "CONFLICT", target: "If-Match" });
    expect(await json(await host.call("GET", `/workspaces/${demo}/incidents/SourceC/x`))).toMatchObject({ status: 400, code: "EXTENSION_NOT_ENABLED" });
    await host.portal(admin, "PATCH", `/portal/workspaces/${demo}`, { body: { sources: { SourceC: { enabled: true } } } });
    expect(await json(await host.call("GET", `/workspaces/${demo}/incidents/SourceC/x`))).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });
});

describe("portal workspaces: integrations", () => {
  async function playbook(workspaceId: string, referenceId: string): Promise<CataloguePlaybook> {
    const found = (await host.services.stores.playbookCatalogues.get(workspaceId))?.playbooks.find((p) => p.referenceId === referenceId);
    if (!found) throw new Error(`no ${referenceId}`);
    return found;
  }

  it("switches integrations, audited; playbook automation off fails a run's automation steps when they come to run", async () => {
    const ws = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
    const path = `/portal/workspaces/${ws}/integrations`;
    const before = (await json(await host.portal(admin, "GET", path))).data;
    expect(before.playbookAutomation).toEqual({ switchedOn: true, inEffect: true, notInEffect: null });
    const off = await json(await host.portal(admin, "PUT", path, { body: { playbookAutomation: false } }));
    expect(off.data).toMatchObject({ playbookAutomation: { switchedOn: false, inEffect: false, notInEffect: "Switched off for this workspace." }, ticketing: { switchedOn: true } });
    const [event] = (await trail(ws)).filter((e) => e.activityType === "WorkspaceIntegrations");
    expect(event).toMatchObject({ actorId: admin.userId });
    expect(JSON.parse(event!.metadata).after.playbookAutomation).toBe(false);
    expect(await json(await host.portal(admin, "PUT", path, { body: {} }))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });

    const revoke = await playbook(ws, "revoke-sessions");
    let incident;
    for (let i = 0; i < 200 && !incident; i++) {
      const made = host.simulated.vendors.createIncident("SourceA", ws, { title: "Suspicious sign-in", severity: "High" });
      if (made.entities.some((e) => actsOn(revoke, e))) incident = made;
    }
    const entity = incident!.entities.find((e) => actsOn(revoke, e))!;
    const submitted = await json(
      await host.call("POST", `/workspaces/${ws}/gamebooks/run`, {
        body: { incidentId: incident!.id, incidentTitle: incident!.title, source: "SourceA", playbooks: [{ id: revoke.id, sequence: 1, entityId: entity.id, parameters: {} }] },
      }),
    );
    const run = await waitFor(async () => {
      const found = (await host.services.stores.gamebookRuns.get(ws, submitted.data.id))?.value as GamebookRunRecord | undefined;
      return found && ["Failed", "Succeeded"].includes(found.status) ? found : undefined;
    }, "the run to end");
    expect(run.status).toBe("Failed");
    expect(run.playbooks[0]!.errorMessage).toMatch(/playbook automation integration is not enabled/);
    expect(host.simulated.automation.executions().filter((e) => e.runId === run.id)).toEqual([]);
    await host.portal(admin, "PUT", path, { body: { playbookAutomation: true } });
  });
});

describe("portal workspaces: offboarding", () => {
  it("denies waiting runs and cancels dispatched ones, marks the workspace offboarded: 404 everywhere, out of every listing, its audit trail exportable by the organization's Admins", async () => {
    const created = await onboard({
      name: "fabrikam-sentinel-old",
      sources: { ...offSources("SourceA"), SourceA: { vendorWorkspaceId: VENDOR_WORKSPACE, bridge: { url: bridge.baseUrl("SourceA"), authorization: BRIDGE_AUTH } } },
    });
    const ws = created.id;
    // The workspace's catalogue, as a demo workspace's; a run waiting for approval and one dispatched.
    const demo = host.demo.workspaces[0]!.id;
    const catalogue = (await host.services.stores.playbookCatalogues.get(demo))!;
    await host.services.stores.playbookCatalogues.put({ ...catalogue, workspaceId: ws, playbooks: catalogue.playbooks.map((p) => ({ ...p, workspaceId: ws })) });
    const comment = catalogue.playbooks.find((p) => p.referenceId === "add-comment")!;
    const incident = vendors.console.createIncident("SourceA", VENDOR_WORKSPACE, { title: "Suspicious sign-in", severity: "High" });
    const serviceAccount = await createServiceAccount(host, { scopes: ["incidents:read", "audit:read", "gamebooks:execute"], workspaceAssignments: [{ workspaceId: ws, role: "Owner" }] });
    const caller = { clientId: serviceAccount.clientId, clientSecret: serviceAccount.clientSecret };
    const waiting = await json(
      await host.call("POST", `/workspaces/${ws}/gamebooks/run`, {
        auth: caller,
        body: { incidentId: incident.id, incidentTitle: incident.title, source: "SourceA", isQueued: true, playbooks: [{ id: comment.id, sequence: 1, entityId: incident.id, parameters: { message: "Hello" } }] },
      }),
    );
    expect(waiting.data, JSON.stringify(waiting)).toMatchObject({ status: "Pending", isQueued: true });
    const record = (await host.services.stores.gamebookRuns.get(ws, waiting.data.id))!.value;
    const dispatchedId = "0f0e0d0c-0b0a-4090-8070-605040302010";
    await host.services.stores.gamebookRuns.create({ ...record, id: dispatchedId, isQueued: false }, []);

    expect((await host.call("GET", `/workspaces/${ws}/export/audit`, { auth: caller })).status).toBe(200);

    const member = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: ws, role: "Owner" }] });
    expect(await json(await host.portal(member, "DELETE", `/portal/workspaces/${ws}`))).toMatchObject({ status: 403, code: "FORBIDDEN" });
    expect(await json(await host.portal(admin, "DELETE", `/portal/workspaces/${ws}`, { headers: { "if-match": "\"stale\"" } }))).toMatchObject({ status: 409, target: "If-Match" });
    expect((await host.services.stores.gamebookRuns.get(ws, waiting.data.id))?.value.status).toBe("Pending");
    const gone = await host.portal(admin, "DELETE", `/portal/workspaces/${ws}`);
    const result = await json(gone);
    expect(gone.status, JSON.stringify(result)).toBe(200);
    expect(result.data).toMatchObject({ id: ws, runsDenied: 1, runsCancelled: 1 });
    expect((await host.services.stores.gamebookRuns.get(ws, waiting.data.id))?.value).toMatchObject({ status: "Denied", approval: { decision: "Denied", comment: "The workspace was offboarded." } });
    expect((await host.services.stores.gamebookRuns.get(ws, dispatchedId))?.value).toMatchObject({ status: "Cancelled", playbooks: [{ status: "Skipped" }] });

    expect(await json(await host.portal(admin, "GET", `/portal/workspaces/${ws}`))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(await json(await host.portal(admin, "DELETE", `/portal/workspaces/${ws}`))).toMatchObject({ status: 404 });
    expect((await json(await host.portal(admin, "GET", "/portal/workspaces"))).data.map((w: Json) => w.id)).not.toContain(ws);
    expect(await json(await host.call("GET", `/workspaces/${ws}/export/audit`, { auth: caller }))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/${incident.id}`, { auth: caller }))).toMatchObject({ status: 404 });
    const listed = await json(await host.call("POST", "/incidents/across-workspaces", { auth: caller, body: { isFirstCall: true, workspacePageTokens: [] } }));
    expect(listed.data.incidents).toEqual([]);
    expect((await host.services.stores.workspaces.listAll()).map((w) => w.id)).not.toContain(ws);

    const offboarded = (await json(await host.portal(admin, "GET", `/portal/organizations/${fabrikam.id}/offboarded-workspaces`))).data;
    expect(offboarded).toContainEqual(expect.objectContaining({ id: ws, name: "fabrikam-sentinel-old", offboardedBy: { userId: admin.userId, name: admin.name } }));
    const exportPath = `/portal/organizations/${fabrikam.id}/offboarded-workspaces/${ws}/audit?pageSize=2`;
    const events: Json[] = [];
    let page = await json(await host.portal(admin, "GET", exportPath));
    events.push(...page.data);
    while (page.pagination.hasMore) {
      page = await json(await host.portal(admin, "GET", `${exportPath}&continuationToken=${encodeURIComponent(page.pagination.continuationToken)}`));
      events.push(...page.data);
    }
    const trail = events.map((e) => [e.activityType, JSON.parse(e.metadata).activity ?? null]);
    // The two runs are ended in the order they are listed (newest first), which two runs made in the
    // same millisecond do not fix: the denial and the cancellation may come either way round.
    expect([...trail.slice(0, 2), ...trail.slice(2, 4).sort(), trail[4]]).toEqual([
      ["WorkspaceOnboarded", null],
      ["GamebookRun", "Submit"],
      ["GamebookApproval", "Deny"],
      ["GamebookRun", "Cancel"],
      ["WorkspaceOffboarded", null],
    ]);
    expect(trail).toHaveLength(5);
    expect(events.at(-1)).toMatchObject({ activityAction: "Delete", actorId: admin.userId, actorName: admin.name, workspaceId: ws });
    // Only Admins export; a workspace still onboarded has no trail here.
    const workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
    expect(await json(await host.portal(workspaceAdmin, "GET", exportPath))).toMatchObject({ status: 403, code: "FORBIDDEN" });
    expect(await json(await host.portal(admin, "GET", `/portal/organizations/${fabrikam.id}/offboarded-workspaces/${demo}/audit`))).toMatchObject({ status: 404 });
  });
});
