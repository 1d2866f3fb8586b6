import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/**
 * The organization's service accounts in the portal: people who manage people manage them too, the
 * secret is shown once, it authenticates on the contract's routes until revoked, and every change is
 * audited with the person as its actor.
 */
let host: TestHost;
let userAdmin: TestPerson;
let workspaceAdmin: TestPerson;
let member: TestPerson;
let workspaceId: string;

beforeAll(async () => {
  host = await startTestHost();
  workspaceId = host.demo.workspaces[0]!.id;
  userAdmin = await host.person({ organizationalRole: "UserAdmin" });
  workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  member = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId, role: "Owner" }] });
});
afterAll(async () => host?.close());

const newAccount = {
  name: "ITSM bridge",
  description: "Links incidents to tickets.",
  organizationalRole: "Member",
  scopes: ["incidents:read", "tickets:read"],
};

async function create(person: TestPerson = userAdmin, body: Json = {}) {
  const res = await host.portal(person, "POST", "/portal/service-accounts", {
    body: { ...newAccount, workspaceAssignments: [{ workspaceId, role: "Analyst" }], ...body },
  });
  return { res, body: await json(res) };
}

/** The provider's audit events about one service account, oldest first. */
async function auditOf(serviceAccountId: string) {
  const events = await host.services.stores.audit.listRecent(host.demo.provider.id, 1000);
  return events
    .filter((e) => e.targetResourceId === serviceAccountId || JSON.parse(e.metadata).serviceAccountId === serviceAccountId)
    .sort((a, b) => (a.timeGenerated < b.timeGenerated ? -1 : 1));
}

const basic = (clientId: string, clientSecret: string) => ({ clientId, clientSecret });

describe("creating and reading service accounts", () => {
  it("creates one with its first credential: the secret is in the answer only, and never in a read, a log or the audit trail", async () => {
    const { res, body } = await create();
    expect(res.status).toBe(201);
    const data = body.data;
    expect(data.clientId).toBe(data.id);
    expect(data.clientSecret).toMatch(/^soms_/);
    expect(data.clientSecretPrefix).toBe(data.clientSecret.slice(0, 11));
    expect(res.headers.get("location")).toBe(`${host.base}/portal/service-accounts/${data.id}`);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(data).toMatchObject({
      accountId: host.demo.provider.id,
      name: "ITSM bridge",
      isActive: true,
      organizationalRole: "Member",
      workspaceAssignments: [{ workspaceId, workspaceName: host.demo.workspaces[0]!.name, role: "Analyst" }],
    });
    expect(data.credentials).toEqual([expect.objectContaining({ status: "Active", scopes: ["incidents:read", "tickets:read"] })]);

    const one = await json(await host.portal(workspaceAdmin, "GET", `/portal/service-accounts/${data.id}`));
    const { clientId: _id, clientSecret: _secret, ...asRead } = data;
    expect(one.data).toEqual(asRead);
    const list = await host.portal(userAdmin, "GET", "/portal/service-accounts?pageSize=200");
    const listed = (await json(list)).data as Json[];
    expect(listed.map((sa) => sa.id)).toContain(data.id);
    const everything = JSON.stringify(listed) + JSON.stringify(one) + JSON.stringify(host.logs) + JSON.stringify(await auditOf(data.id));
    expect(everything).not.toContain(data.clientSecret);
    // Only the hash is stored.
    const stored = await host.services.stores.serviceAccounts.get(data.id);
    expect(JSON.stringify(stored)).not.toContain(data.clientSecret);

    // The secret is an HTTP Basic password of the contract's API, for the scopes granted.
    const auth = basic(data.clientId, data.clientSecret);
    expect((await host.call("GET", `/workspaces/${workspaceId}/incidents/SourceA/by-entity?EntityName=nobody`, { auth })).status).toBe(200);
    expect((await host.call("GET", "/service-accounts", { auth })).status).toBe(403);
  });

  it("is audited with the person as the actor, in the same commit as the write", async () => {
    const { body } = await create();
    const [created] = await auditOf(body.data.id);
    expect(created).toMatchObject({ activityType: "ServiceAccountCreated", activityAction: "Create", actorId: userAdmin.userId, actorName: userAdmin.name, targetResourceName: "ITSM bridge" });
    expect(JSON.parse(created!.metadata)).toMatchObject({ scopes: ["incidents:read", "tickets:read"] });
  });

  it("only an Admin grants the Admin role; assignments must name the organization's workspaces", async () => {
    const asUserAdmin = await create(userAdmin, { organizationalRole: "Admin" });
    expect([asUserAdmin.res.status, asUserAdmin.body.code, asUserAdmin.body.target]).toEqual([403, "FORBIDDEN", "organizationalRole"]);
    const admin = await host.person({ organizationalRole: "Admin" });
    expect((await create(admin, { organizationalRole: "Admin", scopes: ["org:service-accounts:manage"] })).res.status).toBe(201);
    const foreign = await create(userAdmin, { workspaceAssignments: [{ workspaceId: randomUUID(), role: "Analyst" }] });
    expect([foreign.res.status, foreign.body.code]).toEqual([400, "VALIDATION_ERROR"]);
  });

  it("roles: UserAdmin and Admin manage, WorkspaceAdmin reads, others are refused; another organization's accounts are 404", async () => {
    const { body } = await create();
    const id = body.data.id;
    expect((await host.portal(member, "GET", "/portal/service-accounts")).status).toBe(403);
    expect((await host.portal(member, "GET", `/portal/service-accounts/${id}`)).status).toBe(403);
    expect((await host.portal(workspaceAdmin, "GET", "/portal/service-accounts")).status).toBe(200);
    const refused = await host.portal(workspaceAdmin, "POST", `/portal/service-accounts/${id}/credentials`, { body: { scopes: ["incidents:read"] } });
    expect([refused.status, (await json(refused)).code]).toEqual([403, "FORBIDDEN"]);
    expect((await create(workspaceAdmin)).res.status).toBe(403);
    expect((await host.portal(workspaceAdmin, "DELETE", `/portal/service-accounts/${id}`)).status).toBe(403);

    const customer = host.demo.customers[0]!;
    const customerAdmin = await host.person({ organizationalRole: "Admin", accountId: customer.id });
    const hidden = await host.portal(customerAdmin, "GET", `/portal/service-accounts/${id}`);
    expect([hidden.status, (await json(hidden)).code]).toEqual([404, "NOT_FOUND"]);
    const listed = (await json(await host.portal(customerAdmin, "GET", "/portal/service-accounts?pageSize=200"))).data as Json[];
    expect(listed.map((sa) => sa.id)).not.toContain(id);
    expect((await host.portal(customerAdmin, "POST", `/portal/service-accounts/${id}/credentials`, { body: { scopes: ["incidents:read"] } })).status).toBe(404);
  });
});

describe("credentials", () => {
  it("a new credential authenticates at once; revoked, it is refused at once and stays listed as Revoked", async () => {
    const { body } = await create();
    const id = body.data.id;
    const added = await host.portal(userAdmin, "POST", `/portal/service-accounts/${id}/credentials`, { body: { scopes: ["incidents:read"] } });
    expect(added.status).toBe(201);
    const credential = (await json(added)).data;
    expect(credential).toMatchObject({ clientId: id, status: "Active", scopes: ["incidents:read"] });
    const auth = basic(id, credential.clientSecret);
    const contractRead = `/workspaces/${workspaceId}/incidents/SourceA/by-entity?EntityName=nobody`;
    expect((await host.call("GET", contractRead, { auth })).status).toBe(200);

    const read = await host.portal(userAdmin, "GET", `/portal/service-accounts/${id}`);
    expect(JSON.stringify(await json(read))).not.toContain(credential.clientSecret);

    const revoked = await host.portal(userAdmin, "POST", `/portal/service-accounts/${id}/credentials/${credential.id}/revoke`);
    expect(revoked.status).toBe(200);
    const view = (await json(revoked)).data;
    expect(view.credentials.find((c: Json) => c.id === credential.id).status).toBe("Revoked");
    const refused = await host.call("GET", contractRead, { auth });
    expect([refused.status, (await json(refused)).code]).toEqual([401, "UNAUTHORIZED"]);
    // The first credential still works.
    expect((await host.call("GET", contractRead, { auth: basic(id, body.data.clientSecret) })).status).toBe(200);

    const again = await host.portal(userAdmin, "POST", `/portal/service-accounts/${id}/credentials/${credential.id}/revoke`);
    expect([again.status, (await json(again)).code]).toEqual([409, "CONFLICT"]);
    expect((await host.portal(userAdmin, "POST", `/portal/service-accounts/${id}/credentials/${randomUUID()}/revoke`)).status).toBe(404);

    const events = (await auditOf(id)).map((e) => [e.activityType, e.actorId]);
    expect(events).toEqual([
      ["ServiceAccountCreated", userAdmin.userId],
      ["ServiceAccountCredentialCreated", userAdmin.userId],
      ["ServiceAccountCredentialRevoked", userAdmin.userId],
    ]);
  });
});

describe("changing and deleting service accounts", () => {
  it("deactivating refuses its credentials at once, activating again lets them in; If-Match is honoured", async () => {
    const { body } = await create();
    const id = body.data.id;
    const auth = basic(id, body.data.clientSecret);
    const contractRead = `/workspaces/${workspaceId}/incidents/SourceA/by-entity?EntityName=nobody`;
    const etag = (await host.portal(userAdmin, "GET", `/portal/service-accounts/${id}`)).headers.get("etag")!;
    const off = await host.portal(userAdmin, "PATCH", `/portal/service-accounts/${id}`, { body: { isActive: false }, headers: { "if-match": etag } });
    expect(off.status).toBe(200);
    expect((await json(off)).data).toMatchObject({ isActive: false, name: "ITSM bridge" });
    expect((await host.call("GET", contractRead, { auth })).status).toBe(401);
    const stale = await host.portal(userAdmin, "PATCH", `/portal/service-accounts/${id}`, { body: { isActive: true }, headers: { "if-match": etag } });
    expect(stale.status).toBe(409);
    expect((await host.portal(userAdmin, "PATCH", `/portal/service-accounts/${id}`, { body: { isActive: true } })).status).toBe(200);
    expect((await host.call("GET", contractRead, { auth })).status).toBe(200);
    const updates = (await auditOf(id)).filter((e) => e.activityType === "ServiceAccountUpdated");
    expect(updates.map((e) => JSON.parse(e.metadata).isActive)).toEqual([false, true]);
  });

  it("deleting one stops its credentials at once; a platform-managed account cannot be changed or deleted", async () => {
    const { body } = await create();
    const id = body.data.id;
    expect((await host.portal(userAdmin, "DELETE", `/portal/service-accounts/${id}`)).status).toBe(204);
    expect((await host.call("GET", "/users", { auth: basic(id, body.data.clientSecret) })).status).toBe(401);
    expect((await host.portal(userAdmin, "GET", `/portal/service-accounts/${id}`)).status).toBe(404);
    expect((await auditOf(id)).map((e) => [e.activityType, e.actorId]).at(-1)).toEqual(["ServiceAccountDeleted", userAdmin.userId]);

    const platform = await host.portal(userAdmin, "DELETE", `/portal/service-accounts/${host.admin.clientId}`);
    expect([platform.status, (await json(platform)).code]).toEqual([403, "FORBIDDEN"]);
    expect((await host.portal(userAdmin, "PATCH", `/portal/service-accounts/${host.admin.clientId}`, { body: { isActive: false } })).status).toBe(403);
  });
});
