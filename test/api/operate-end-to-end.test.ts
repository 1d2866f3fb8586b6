import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureAdminAccount } from "../../shared/domain/organizations/admin-account";
import { ensureAdminPerson } from "../../shared/domain/organizations/admin-person";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import { demoPerson } from "../../shared/hosts/local/identity-provider/demo-people";
import { createSimulatedVendors } from "../../shared/systems/vendors/simulated/simulated-vendor";
import { startVendorBridge, type VendorBridge } from "../support/bridges/vendors-bridge-server";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { signInHeadless } from "../support/oidc-sign-in";
import { waitFor } from "../support/wait-for";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

/**
 * Operating a deployment, from an empty database to an approved run's event at a webhook receiver,
 * with nothing done by hand in the store or under /_local: what `npm run bootstrap` writes, then
 * people signed in through the (local) OpenID provider doing the rest in the portal's endpoints,
 * and a service account doing what integrations do. Runs on both stores.
 */
const BRIDGE_TOKEN = "Bearer woodgrove-bridge-token";
const VENDOR_WORKSPACE = "woodgrove-prod-41b2";

let host: TestHost;
let receiver: HttpsReceiver;
let bridge: VendorBridge;
let vendorConsole: ReturnType<typeof createSimulatedVendors>["console"];
let admin: { clientId: string; clientSecret: string };

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  // The customer's SourceA: a vendor bridge (docs/vendor-bridge.md) in front of a vendor that knows
  // the workspace by its own identifier.
  const vendors = createSimulatedVendors({ seed: "woodgrove", workspaces: [{ id: VENDOR_WORKSPACE, name: "woodgrove-prod", tenantId: randomUUID() }], incidentsPerWorkspace: 5, owners: [], now: () => new Date() });
  vendorConsole = vendors.console;
  bridge = await startVendorBridge(vendors, { authHeader: BRIDGE_TOKEN });
  host = await startTestHost({
    empty: true,
    signIn: true,
    webhookCa: receiver.certificate,
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WORKSPACE_BRIDGES_ALLOW_HTTP: "true", SIMULATED_PLAYBOOK_DELAY_MS: "2" },
  });
});
afterAll(async () => {
  await host?.close();
  await bridge?.close();
  await receiver?.close();
});

/** A person signed in through the identity provider, as a browser would: the session cookie, and the CSRF token `GET /portal/me` gives. */
async function signIn(key: string): Promise<{ person: TestPerson; me: Response }> {
  const { cookies, response } = await signInHeadless({ startUrl: `${host.base}/portal/auth/sign-in`, personId: demoPerson(key).oid });
  expect(response.status).toBe(303);
  const cookie = cookies.header(`${host.base}/portal/me`)!;
  const me = await host.portal({ userId: "", tenantId: "", name: "", headers: { cookie, "x-csrf-token": "" } }, "GET", "/portal/me");
  const token = me.status === 200 ? ((await me.clone().json()) as Json).data.csrfToken : "";
  const person = demoPerson(key);
  return { person: { userId: person.oid, tenantId: person.tid, name: person.name, headers: { cookie, "x-csrf-token": token } }, me };
}

async function ok(res: Response, status = 200): Promise<Json> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body.data;
}

describe("operating a deployment, from an empty database", () => {
  it("bootstrap, sign-in, onboarding, curation, a run that waits, its approval, and gamebook.run.v1 at a receiver", async () => {
    const services = host.services;
    // 0. What `npm run bootstrap` writes into an empty deployment: the provider, its admin service
    //    account, and its first person, an Admin.
    const providerId = randomUUID();
    await services.stores.accounts.upsert({ id: providerId, name: "Contoso Managed Security", kind: "ServiceProvider", managedByAccountId: null });
    admin = await ensureAdminAccount(services, { accountId: providerId, name: "Bootstrap admin", workspaceIds: [] });
    const amira = demoPerson("amira");
    await ensureAdminPerson(services, { accountId: providerId, objectId: amira.oid, tenantId: amira.tid, email: amira.email, displayName: amira.name, workspaceIds: [] });
    expect((await services.stores.workspaces.listAll()).length).toBe(0);

    // 1. The Admin signs in through the OpenID provider.
    const { person: operator, me } = await signIn("amira");
    expect(me.status).toBe(200);

    // 2. They onboard a customer organization, and a workspace whose SourceA is the customer's bridge.
    const org = await ok(await host.portal(operator, "POST", "/portal/organizations", { body: { name: "Woodgrove Bank" } }), 201);
    const workspace = await ok(
      await host.portal(operator, "POST", "/portal/workspaces", {
        body: {
          name: "woodgrove-sentinel-prod",
          accountId: org.id,
          tenantId: randomUUID(),
          sources: { SourceA: { enabled: true, vendorWorkspaceId: VENDOR_WORKSPACE, bridge: { url: bridge.baseUrl("SourceA"), authorization: BRIDGE_TOKEN } } },
        },
      }),
      201,
    );
    expect(workspace.sources.SourceA).toMatchObject({ enabled: true, vendorWorkspaceId: VENDOR_WORKSPACE, bridge: { url: bridge.baseUrl("SourceA"), hasAuthorization: true } });
    const ws = workspace.id as string;
    // The SOC lead who will approve: registered by the Admin as the workspace's Owner.
    const jonas = demoPerson("jonas");
    await ok(
      await host.portal(operator, "PUT", `/portal/people/${jonas.oid}`, {
        body: { displayName: jonas.name, email: jonas.email, tenantId: jonas.tid, accountId: providerId, organizationalRole: "Member", workspaceRoles: [{ workspaceId: ws, role: "Owner" }] },
      }),
      201,
    );

    // 3. They curate the workspace's catalogue (imported from the automation backend, one playbook
    //    made admin-only) and its rules, check what the rule matches, and make every run wait.
    const imported = await ok(await host.portal(operator, "POST", `/portal/workspaces/${ws}/playbooks/import`, { body: {} }));
    expect(imported.added.length).toBeGreaterThan(0);
    const catalogue = await ok(await host.portal(operator, "GET", `/portal/workspaces/${ws}/playbooks`));
    const revoke = (catalogue.playbooks as Json[]).find((p) => p.referenceId === "revoke-sessions")!;
    expect(revoke).toBeDefined();
    const { id: revokeId, ...revokeFields } = revoke;
    const edited = Object.fromEntries(Object.entries({ ...revokeFields, isAdminRequired: true }).filter(([k]) => ["referenceId", "name", "description", "entityType", "action", "isAdminRequired", "isRecommended", "recoverPlaybookId", "parameters", "enabled"].includes(k)));
    await ok(await host.portal(operator, "PUT", `/portal/workspaces/${ws}/playbooks/${revokeId}`, { body: edited }));
    await ok(await host.portal(operator, "PUT", `/portal/workspaces/${ws}/gamebook-rules`, { body: { rules: [{ pattern: "Impossible travel*", playbookIds: [revokeId] }] } }));
    const preview = await ok(await host.portal(operator, "POST", `/portal/workspaces/${ws}/gamebook-rules/preview`, { body: { title: "Impossible travel for j.doe@woodgrove.example" } }));
    expect(JSON.stringify(preview)).toContain(revokeId);
    await ok(await host.portal(operator, "PUT", `/portal/workspaces/${ws}/approval-policy`, { body: { mode: "AllRuns", approvalTimeoutHours: 24 } }));

    // 4. A service account (what an integration holds) subscribes a webhook and submits a run on an
    //    incident of the customer's vendor: it waits for approval.
    const created = await host.call("POST", "/service-accounts", {
      auth: admin,
      body: { name: "SOAR connector", organizationalRole: "Member", scopes: ["incidents:read", "gamebooks:read", "gamebooks:execute", "webhooks:read", "webhooks:manage"], workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] },
    });
    const soar = await ok(created, 201);
    const soarAuth = { clientId: soar.clientId as string, clientSecret: soar.clientSecret as string };
    const hook = await ok(
      await host.call("POST", "/webhooks", { auth: soarAuth, body: { name: "runs", url: receiver.url("/hook/runs", "127.0.0.1"), eventTypes: ["gamebook.run.v1"] } }),
      201,
    );
    expect(hook.id).toBeTruthy();
    let incident = vendorConsole.createIncident("SourceA", VENDOR_WORKSPACE, { title: "Impossible travel for j.doe@woodgrove.example", severity: "High" });
    for (let i = 0; i < 50 && !incident.entities.some((e) => actsOn({ entityType: revoke.entityType }, e)); i++) {
      incident = vendorConsole.createIncident("SourceA", VENDOR_WORKSPACE, { title: "Impossible travel for j.doe@woodgrove.example", severity: "High" });
    }
    const entity = incident.entities.find((e) => actsOn({ entityType: revoke.entityType }, e))!;
    // The service reads the incident through the bridge, under the service's own workspace id.
    const read = await ok(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/${incident.id}`, { auth: soarAuth }));
    expect(read.vendorIdentifiers.sourceA).toMatchObject({ incidentId: incident.id });
    expect(read.incident).toMatchObject({ id: incident.id, title: incident.title, workspaceId: ws });
    const submitted = await ok(
      await host.call("POST", `/workspaces/${ws}/gamebooks/run`, {
        auth: soarAuth,
        body: { incidentId: incident.id, incidentTitle: incident.title, source: "SourceA", playbooks: [{ id: revokeId, sequence: 1, entityId: entity.id, parameters: {} }] },
      }),
    );
    expect(submitted).toMatchObject({ status: "Pending", isQueued: true });

    // 5. The SOC lead signs in, finds it in the queue with what approving will do, and approves it.
    const { person: lead } = await signIn("jonas");
    const queue = (await ok(await host.portal(lead, "GET", "/portal/approvals"))) as Json[];
    const request = queue.find((r) => r.runId === submitted.id)!;
    expect(request).toMatchObject({
      workspace: { id: ws },
      isAdminRequired: true,
      requestedBy: { kind: "ServiceAccount", id: soarAuth.clientId },
      matchedRule: { incidentTitle: "Impossible travel*" },
      viewer: { mayApprove: true },
    });
    expect(request.playbooks[0]).toMatchObject({ playbookId: revokeId, entityId: entity.id });
    const approved = await ok(await host.portal(lead, "POST", `/portal/workspaces/${ws}/approvals/${submitted.id}/approve`, { body: { comment: "Confirmed with Woodgrove's on-call." } }));
    expect(approved.decision).toMatchObject({ outcome: "Approved", byUserId: jonas.oid });

    // 6. The run is dispatched, and gamebook.run.v1 reaches the receiver.
    const delivered = await waitFor(() => receiver.requests.find((r) => r.url === "/hook/runs" && JSON.parse(r.body).data?.runId === submitted.id), "gamebook.run.v1 at the receiver");
    const event = JSON.parse(delivered.body);
    expect(event).toMatchObject({ type: "gamebook.run.v1", data: { runId: submitted.id, workspaceId: ws } });
    const history = (await ok(await host.call("GET", `/workspaces/${ws}/gamebooks/history`, { auth: soarAuth }))) as Json[];
    expect(history.find((r) => r.id === submitted.id)).toMatchObject({ isQueued: false });
  });

  it("the same sign-in without MFA, and a person the service does not know, get their clear 403", async () => {
    const sam = await signIn("sam");
    expect(sam.me.status).toBe(403);
    expect(await json(sam.me)).toMatchObject({ code: "MFA_REQUIRED" });
    const oliver = await signIn("oliver");
    expect(oliver.me.status).toBe(403);
    expect(await json(oliver.me)).toMatchObject({ code: "USER_NOT_REGISTERED" });
  });
});
