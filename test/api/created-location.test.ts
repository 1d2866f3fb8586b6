import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../shared/api/route-groups";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import { waitFor } from "../support/wait-for";
import { json } from "../support/json";

/*
 * Every operation that can answer 201 creates a resource and says where it is: `Location`, an
 * absolute URL of this API, which a GET (by the same caller) answers with that resource.
 */

let host: TestHost;
let admin: TestPerson;
let ws: string;
beforeAll(async () => {
  host = await startTestHost();
  ws = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  admin = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
});
afterAll(() => host?.close());

interface Created {
  res: Response;
  /** The created resource's id, as the GET of its Location shows it. */
  id: string;
  /** Where the GET of its Location shows the id: a field, or a path of fields (`webhook.id`). */
  idField?: string;
  /** How the resource is read back. */
  read(url: string): Promise<Response>;
}

const asServiceAccount = (url: string) => host.fetch(url, { headers: { authorization: host.basic(host.admin.clientId, host.admin.clientSecret) } });
const asPerson = (url: string) => host.fetch(url, { headers: admin.headers });

async function newServiceAccount(path: string, call: typeof host.call | ((m: string, p: string, o: { body: unknown }) => Promise<Response>)): Promise<string> {
  const res = await call("POST", path, { body: { name: `located ${randomUUID().slice(0, 8)}`, organizationalRole: "Member", scopes: ["incidents:read"] } });
  expect(res.status).toBe(201);
  return (await json(res)).data.id;
}

const portal = (method: string, path: string, options: { body?: unknown } = {}) => host.portal(admin, method, path, options);

/** A new incident with an entity the playbook acts on (an account by default). */
async function incidentToRun(referenceId = "revoke-sessions") {
  const catalogue = (await host.services.stores.playbookCatalogues.get(ws))!;
  const playbook = catalogue.playbooks.find((p) => p.referenceId === referenceId)!;
  for (let i = 0; i < 300; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Located run", severity: "Low" });
    const entity = incident.entities.find((e) => actsOn(playbook, e));
    if (entity) return { incident, playbookId: playbook.id, entityId: entity.id };
  }
  throw new Error(`no incident for ${referenceId}`);
}

/** A run of one playbook, submitted in the portal and carried out to its end; its id. */
async function endedRun(referenceId?: string): Promise<string> {
  const { incident, playbookId, entityId } = await incidentToRun(referenceId);
  const res = await portal("POST", `/portal/workspaces/${ws}/incidents/SourceA/${incident.id}/runs`, { body: { playbooks: [{ id: playbookId, sequence: 1, entityId, parameters: {} }] } });
  const runId = (await json(res)).data.id as string;
  await waitFor(async () => ["Succeeded", "Failed"].includes((await host.services.stores.gamebookRuns.get(ws, runId))!.value.status), `run ${runId} to end`);
  return runId;
}

/** Per 201 operation: how to create one. */
const cases: Record<string, () => Promise<Created>> = {
  "POST /service-accounts": async () => {
    const res = await host.call("POST", "/service-accounts", { body: { name: "located", organizationalRole: "Member", scopes: ["incidents:read"] } });
    return { res, id: (await json(res)).data.id, read: asServiceAccount };
  },
  "POST /service-accounts/{id}/credentials": async () => {
    const account = await newServiceAccount("/service-accounts", host.call);
    const res = await host.call("POST", `/service-accounts/${account}/credentials`, { body: { scopes: ["incidents:read"] } });
    return { res, id: (await json(res)).data.id, read: asServiceAccount };
  },
  "PUT /users": async () => {
    const userId = randomUUID();
    const res = await host.call("PUT", "/users", { body: { userId, displayName: "Located User", email: `located-${userId.slice(0, 8)}@example.com`, tenantId: randomUUID() } });
    return { res, id: userId, read: asServiceAccount };
  },
  "POST /webhooks": async () => {
    const res = await host.call("POST", "/webhooks", { body: { name: "located", url: "https://hooks.example.com/located", eventTypes: ["incident.created.v1"] } });
    return { res, id: (await json(res)).data.id, read: asServiceAccount };
  },
  "POST /workspaces/{workspaceId}/tickets/link": async () => {
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Linked for Location", severity: "Low" });
    const res = await host.call("POST", `/workspaces/${ws}/tickets/link`, { body: { source: "SourceA", incidentId: incident.id, ticketNumber: "SEC-2219" } });
    return { res, id: (await json(res)).data.id, read: asServiceAccount };
  },
  "POST /workspaces/{workspaceId}/incidents/{source}/{incidentId}/comments": async () => {
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Commented for Location", severity: "Low" });
    const res = await host.call("POST", `/workspaces/${ws}/incidents/SourceA/${incident.id}/comments`, { body: { message: "Located." } });
    return { res, id: (await json(res)).data.id, read: asServiceAccount };
  },
  "POST /portal/workspaces/{workspaceId}/sops": async () => {
    const form = new FormData();
    form.append("file", new Blob(["# Located\n\nA runbook.\n"], { type: "text/markdown" }), "located.md");
    const res = await host.fetch(`${host.base}/portal/workspaces/${ws}/sops`, { method: "POST", headers: admin.headers, body: form });
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "POST /portal/workspaces": async () => {
    const fabrikam = host.demo.workspaces.find((w) => w.id === ws)!;
    const res = await portal("POST", "/portal/workspaces", { body: { accountId: fabrikam.accountId, tenantId: fabrikam.tenantId, name: `located-${randomUUID().slice(0, 8)}` } });
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "POST /portal/webhooks": async () => {
    const res = await portal("POST", "/portal/webhooks", { body: { name: "located", url: "https://hooks.example.com/located", eventTypes: ["incident.created.v1"] } });
    return { res, id: (await json(res)).data.webhook.id, idField: "webhook.id", read: asPerson };
  },
  "POST /portal/organizations": async () => {
    const res = await portal("POST", "/portal/organizations", { body: { name: `Located ${randomUUID().slice(0, 8)}` } });
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "POST /portal/service-accounts": async () => {
    const res = await portal("POST", "/portal/service-accounts", { body: { name: "located", organizationalRole: "Member", scopes: ["incidents:read"] } });
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "POST /portal/service-accounts/{id}/credentials": async () => {
    const account = await newServiceAccount("/portal/service-accounts", portal);
    const res = await portal("POST", `/portal/service-accounts/${account}/credentials`, { body: { scopes: ["incidents:read"] } });
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "PUT /portal/people/{userId}": async () => {
    const userId = randomUUID();
    const provider = host.demo.provider.id;
    const tenantId = host.demo.users.find((u) => u.accountId === provider)!.tenantId;
    const body = { displayName: "Located Person", email: `person-${userId.slice(0, 8)}@example.com`, tenantId, accountId: provider, organizationalRole: "Member" };
    const res = await portal("PUT", `/portal/people/${userId}`, { body });
    return { res, id: userId, idField: "userId", read: asPerson };
  },
  "POST /portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/runs": async () => {
    const { incident, playbookId, entityId } = await incidentToRun();
    const res = await portal("POST", `/portal/workspaces/${ws}/incidents/SourceA/${incident.id}/runs`, { body: { playbooks: [{ id: playbookId, sequence: 1, entityId, parameters: {} }] } });
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "POST /portal/workspaces/{workspaceId}/gamebook-runs/{runId}/retry": async () => {
    host.simulated.automation.setOutcome("revoke-sessions", { status: "Failed", errorMessage: "Refused." });
    const failed = await endedRun();
    host.simulated.automation.setOutcome("revoke-sessions", undefined);
    const res = await portal("POST", `/portal/workspaces/${ws}/gamebook-runs/${failed}/retry`);
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "POST /portal/workspaces/{workspaceId}/gamebook-runs/{runId}/undo": async () => {
    host.simulated.automation.setOutcome("block-ip", { status: "Succeeded", errorMessage: null });
    const done = await endedRun("block-ip");
    host.simulated.automation.setOutcome("block-ip", undefined);
    const res = await portal("POST", `/portal/workspaces/${ws}/gamebook-runs/${done}/undo`, { body: {} });
    return { res, id: (await json(res)).data.id, read: asPerson };
  },
  "POST /portal/workspaces/{workspaceId}/pre-authorizations": async () => {
    // The workspace's own organization records it: Fabrikam's Owner of the workspace.
    const accountId = host.demo.workspaces.find((w) => w.id === ws)!.accountId;
    const owner = await host.person({ organizationalRole: "Member", accountId, workspaceAssignments: [{ workspaceId: ws, role: "Owner" }] });
    const playbookId = (await host.services.stores.playbookCatalogues.get(ws))!.playbooks[0]!.id;
    const endsAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await host.portal(owner, "POST", `/portal/workspaces/${ws}/pre-authorizations`, { body: { playbookIds: [playbookId], endsAt } });
    return { res, id: (await json(res)).data.id, read: (url: string) => host.fetch(url, { headers: owner.headers }) };
  },
  "PUT /portal/workspaces/{workspaceId}/playbooks/{playbookId}": async () => {
    const playbookId = randomUUID();
    const res = await portal("PUT", `/portal/workspaces/${ws}/playbooks/${playbookId}`, { body: { referenceId: `located-${playbookId.slice(0, 8)}`, name: "Located", entityType: "Host" } });
    return { res, id: playbookId, read: asPerson };
  },
};

describe("Location on every 201", () => {
  const created = allRoutes()
    .filter((r) => [r.successStatus ?? 200].flat().includes(201))
    .map((r) => `${r.method} ${r.path}`);

  it("every operation that can answer 201 is tried here", () => {
    expect(created.sort()).toEqual(Object.keys(cases).sort());
  });

  for (const [operation, create] of Object.entries(cases)) {
    it(`${operation}: 201 names the new resource, which a GET of Location answers`, async () => {
      const { res, id, idField = "id", read } = await create();
      expect(res.status, JSON.stringify(await json(res))).toBe(201);
      const location = res.headers.get("location");
      expect(location, operation).toBeTruthy();
      const url = new URL(location!);
      expect(url.origin + url.pathname).toMatch(new RegExp(`^${new URL(host.base).origin}/api/v2/`));
      const got = await read(location!);
      expect(got.status, `GET ${location}`).toBe(200);
      expect(idField.split(".").reduce((value, key) => value?.[key], (await json(got)).data)).toBe(id);
    });
  }
});
