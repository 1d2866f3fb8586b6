import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

let clock = Date.now();
let host: TestHost;
let admin: TestPerson;
let userAdmin: TestPerson;
let providerTenant: string;

beforeAll(async () => {
  host = await startTestHost({ now: () => new Date(clock) });
  admin = await host.person({ organizationalRole: "Admin" });
  userAdmin = await host.person({ organizationalRole: "UserAdmin" });
  providerTenant = admin.tenantId;
});
afterAll(() => host?.close());

/** The clock moves on between steps, as it does between a sign-in and a later change. */
const tick = () => (clock += 1000);

/** A session for an existing registration, as the sign-in would start it. */
function sessionOf(userId: string, tenantId: string): TestPerson {
  const { session, setCookie } = host.services.sessions.start({ tenantId, objectId: userId, name: "Someone", email: null, mfa: true }, host.services.now());
  return { userId, tenantId, name: "Someone", headers: { cookie: setCookie.split(";")[0]!, "x-csrf-token": host.services.sessions.csrfToken(session) } };
}

const registration = (over: Json = {}) => ({
  displayName: "Sam Analyst",
  email: `sam.${randomUUID().slice(0, 8)}@contoso-mssp.example`,
  tenantId: providerTenant,
  accountId: host.demo.provider.id,
  organizationalRole: "Member",
  workspaceRoles: [],
  isActive: true,
  ...over,
});

async function put(as: TestPerson, userId: string, body: Json, headers: Record<string, string> = {}) {
  const res = await host.portal(as, "PUT", `/portal/people/${userId}`, { body, headers });
  return { status: res.status, body: await json(res), etag: res.headers.get("etag") };
}

async function audited(accountId: string, userId: string) {
  return (await host.services.stores.audit.listRecent(accountId, 500)).filter((e) => e.targetResourceId === userId).reverse();
}

describe("portal people", () => {
  it("lists the organization's people with their roles, filtered and paged", async () => {
    const first = await json(await host.portal(userAdmin, "GET", "/portal/people?pageSize=2"));
    expect(first.data).toHaveLength(2);
    expect(Object.keys(first.data[0]).sort()).toEqual(
      ["accountId", "createdAt", "displayName", "email", "isActive", "lastModifiedAt", "organizationalRole", "sessionsValidFrom", "tenantId", "userId", "workspaceRoles"].sort(),
    );
    expect(first.pagination.hasMore).toBe(true);
    const token = encodeURIComponent(first.pagination.continuationToken);
    const second = await json(await host.portal(userAdmin, "GET", `/portal/people?pageSize=2&continuationToken=${token}`));
    expect(second.data.map((p: Json) => p.userId)).not.toContain(first.data[0].userId);
    // A token is the person's and the listing's: another filter, or another person, cannot use it.
    expect((await host.portal(userAdmin, "GET", `/portal/people?pageSize=2&role=Member&continuationToken=${token}`)).status).toBe(400);
    expect((await host.portal(admin, "GET", `/portal/people?pageSize=2&continuationToken=${token}`)).status).toBe(400);
    const [fabrikam] = host.demo.customers;
    const theirs = await json(await host.portal(userAdmin, "GET", `/portal/people?accountId=${fabrikam!.id}&pageSize=200`));
    expect(theirs.data.map((p: Json) => p.userId).sort()).toEqual(host.demo.users.filter((u) => u.accountId === fabrikam!.id).map((u) => u.id).sort());
    const admins = await json(await host.portal(userAdmin, "GET", "/portal/people?role=Admin&pageSize=200"));
    expect(admins.data.every((p: Json) => p.organizationalRole === "Admin")).toBe(true);
    const member = await host.person({ organizationalRole: "Member" });
    expect(await json(await host.portal(member, "GET", "/portal/people"))).toMatchObject({ status: 403, code: "FORBIDDEN", target: "organizationalRole" });
  });

  it("registers a person (201) with workspace roles, audited; the registration signs in, and its roles apply", async () => {
    const userId = randomUUID();
    const workspace = host.demo.workspaces[0]!;
    const created = await put(userAdmin, userId, registration({ workspaceRoles: [{ workspaceId: workspace.id.toUpperCase(), role: "Analyst" }] }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ userId, organizationalRole: "Member", workspaceRoles: [{ workspaceId: workspace.id, role: "Analyst" }], isActive: true, sessionsValidFrom: null });
    const read = await host.portal(userAdmin, "GET", `/portal/people/${userId}`);
    expect((await json(read)).data).toEqual(created.body.data);
    expect(read.headers.get("etag")).toBe(created.etag);
    const [event] = await audited(host.demo.provider.id, userId);
    expect(event).toMatchObject({ activityType: "PersonRegistered", activityAction: "Create", actorId: userAdmin.userId, targetResourceType: "User" });
    expect(JSON.parse(event!.metadata).after).toMatchObject({ organizationalRole: "Member", workspaceRoles: [{ workspaceId: workspace.id, role: "Analyst" }] });

    const them = sessionOf(userId, providerTenant);
    expect((await json(await host.portal(them, "GET", "/portal/me"))).data).toMatchObject({ userId, workspaceRoles: [{ workspaceId: workspace.id, role: "Analyst" }] });
    expect((await host.portal(them, "GET", `/portal/workspaces/${workspace.id}`)).status).toBe(200);
    // Taking the role away applies at once on this instance.
    tick();
    expect((await put(userAdmin, userId, registration({ email: created.body.data.email }))).status).toBe(200);
    expect(await json(await host.portal(them, "GET", `/portal/workspaces/${workspace.id}`))).toMatchObject({ status: 403, code: "INSUFFICIENT_WORKSPACE_ROLE" });
    // The contract's users listing shows them too.
    expect((await json(await host.call("GET", `/users/${userId}`))).data).toMatchObject({ id: userId, organizationalRole: "Member", isActive: true });
  });

  it("points validation problems at the field: workspaces of another organization, twice the same, an unknown organization", async () => {
    const northwindWorkspace = host.demo.workspaces.find((w) => w.accountId === host.demo.customers[1]!.id)!;
    const fabrikam = host.demo.customers[0]!;
    const cases: [Json, string][] = [
      [registration({ accountId: fabrikam.id, workspaceRoles: [{ workspaceId: northwindWorkspace.id, role: "Analyst" }] }), "workspaceRoles[0].workspaceId"],
      [registration({ workspaceRoles: [{ workspaceId: host.demo.workspaces[0]!.id, role: "Analyst" }, { workspaceId: host.demo.workspaces[0]!.id, role: "Owner" }] }), "workspaceRoles[1].workspaceId"],
      [registration({ workspaceRoles: [{ workspaceId: host.demo.workspaces[0]!.id, role: "Boss" }] }), "workspaceRoles[0].role"],
      [registration({ accountId: "00000000-0000-4000-8000-000000000009" }), "accountId"],
      [registration({ email: "not-an-address" }), "email"],
      [registration({ organizationalRole: "King" }), "organizationalRole"],
    ];
    for (const [body, field] of cases) {
      const res = await put(userAdmin, randomUUID(), body);
      expect({ field, status: res.status, code: res.body.code }).toEqual({ field, status: 400, code: "VALIDATION_ERROR" });
      expect(Object.keys(res.body.errors), field).toContain(field);
    }
    // A provider's person may hold a role on a customer's workspace: the provider's organization includes it.
    expect((await put(userAdmin, randomUUID(), registration({ workspaceRoles: [{ workspaceId: northwindWorkspace.id, role: "Analyst" }] }))).status).toBe(201);
    const taken = host.demo.users.find((u) => u.accountId === host.demo.provider.id)!;
    expect((await put(userAdmin, randomUUID(), registration({ email: taken.email.toUpperCase() }))).body).toMatchObject({ status: 409, code: "CONFLICT", target: "email" });
  });

  it("only an Admin grants or takes away Admin; nobody changes their own role or deactivates themselves", async () => {
    const userId = randomUUID();
    expect((await put(userAdmin, userId, registration({ organizationalRole: "Admin" }))).body).toMatchObject({ status: 403, code: "FORBIDDEN", target: "organizationalRole" });
    const made = await put(admin, userId, registration({ organizationalRole: "Admin" }));
    expect(made.status).toBe(201);
    const email = made.body.data.email;
    expect((await put(userAdmin, userId, registration({ email, organizationalRole: "Member" }))).body).toMatchObject({ status: 403, target: "organizationalRole" });
    expect((await put(userAdmin, userId, registration({ email, organizationalRole: "Admin", isActive: false }))).body).toMatchObject({ status: 403, target: "isActive" });
    // Nor anything else of an Admin's registration.
    expect((await put(userAdmin, userId, registration({ email, organizationalRole: "Admin", displayName: "Renamed Admin" }))).body).toMatchObject({ status: 403, target: "userId" });
    expect((await put(admin, userId, registration({ email, organizationalRole: "Member" }))).status).toBe(200);

    const me = (await json(await host.portal(userAdmin, "GET", `/portal/people/${userAdmin.userId}`))).data;
    const mine = { displayName: me.displayName, email: me.email, tenantId: me.tenantId, accountId: me.accountId, workspaceRoles: [] };
    expect((await put(userAdmin, userAdmin.userId, { ...mine, organizationalRole: "Member", isActive: true })).body).toMatchObject({ status: 403, target: "organizationalRole" });
    expect((await put(userAdmin, userAdmin.userId, { ...mine, organizationalRole: "UserAdmin", isActive: false })).body).toMatchObject({ status: 403, target: "isActive" });
    expect((await put(userAdmin, userAdmin.userId, { ...mine, organizationalRole: "UserAdmin", displayName: "Still me", isActive: true })).status).toBe(200);
  });

  it("no role is lifted by the one who holds it, nor an Admin's registration touched by a lesser role, and Owner is an Admin's to grant", async () => {
    const workspace = host.demo.workspaces[0]!;
    const adminId = randomUUID();
    const made = await put(admin, adminId, registration({ organizationalRole: "Admin", workspaceRoles: [{ workspaceId: workspace.id, role: "Owner" }] }));
    expect(made.status).toBe(201);
    const email = made.body.data.email;
    const adminSession = sessionOf(adminId, providerTenant);
    expect((await host.portal(adminSession, "GET", "/portal/me")).status).toBe(200);
    // A UserAdmin cannot move the Admin to another directory (a lock-out), nor strip their workspace roles, nor change a thing.
    for (const change of [{ tenantId: randomUUID() }, { workspaceRoles: [] }, { displayName: "Renamed" }]) {
      const res = await put(userAdmin, adminId, registration({ email, organizationalRole: "Admin", workspaceRoles: [{ workspaceId: workspace.id, role: "Owner" }], ...change }));
      expect(res.body, JSON.stringify(change)).toMatchObject({ status: 403, code: "FORBIDDEN", target: "userId" });
    }
    // A UserAdmin does not make themselves Owner, nor Analyst, of a workspace of theirs or of a customer's.
    const me = (await json(await host.portal(userAdmin, "GET", `/portal/people/${userAdmin.userId}`))).data;
    const mine = { displayName: me.displayName, email: me.email, tenantId: me.tenantId, accountId: me.accountId, organizationalRole: "UserAdmin", isActive: true };
    for (const role of ["Owner", "Analyst"]) {
      const res = await put(userAdmin, userAdmin.userId, { ...mine, workspaceRoles: [{ workspaceId: workspace.id, role }] });
      expect(res.body, role).toMatchObject({ status: 403, target: "workspaceRoles" });
    }
    const fabrikam = host.demo.customers[0]!;
    const fabrikamWorkspace = host.demo.workspaces.find((w) => w.accountId === fabrikam.id)!;
    const selfInCustomer = await put(userAdmin, userAdmin.userId, {
      ...mine,
      accountId: fabrikam.id,
      organizationalRole: "Member",
      email: `ua.${randomUUID().slice(0, 8)}@fabrikam.example`,
      workspaceRoles: [{ workspaceId: fabrikamWorkspace.id, role: "Owner" }],
    });
    expect(selfInCustomer.body).toMatchObject({ status: 403, target: "workspaceRoles" });
    // Owner, which approves containment, is granted by an Admin only; Analyst by a UserAdmin.
    const someone = randomUUID();
    expect((await put(userAdmin, someone, registration({ workspaceRoles: [{ workspaceId: workspace.id, role: "Owner" }] }))).body).toMatchObject({ status: 403, target: "workspaceRoles" });
    const analyst = await put(userAdmin, someone, registration({ workspaceRoles: [{ workspaceId: workspace.id, role: "Analyst" }] }));
    expect(analyst.status).toBe(201);
    expect((await put(admin, someone, registration({ email: analyst.body.data.email, workspaceRoles: [{ workspaceId: workspace.id, role: "Owner" }] }))).status).toBe(200);
    // An Admin moving the registration to another directory ends its sessions: moving it back revives none.
    tick();
    const moved = await put(admin, adminId, registration({ email, organizationalRole: "Admin", tenantId: randomUUID(), workspaceRoles: [{ workspaceId: workspace.id, role: "Owner" }] }));
    expect(moved.body.data.sessionsValidFrom).toBe(new Date(clock).toISOString());
    tick();
    expect((await put(admin, adminId, registration({ email, organizationalRole: "Admin", workspaceRoles: [{ workspaceId: workspace.id, role: "Owner" }] }))).status).toBe(200);
    expect(await json(await host.portal(adminSession, "GET", "/portal/me"))).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
  });

  it("a customer signing out a person it registered ends its own registration's sessions only, and learns of no other", async () => {
    const userId = randomUUID();
    await put(userAdmin, userId, registration());
    const fabrikam = host.demo.customers[0]!;
    const customerAdmin = await host.person({ organizationalRole: "UserAdmin", accountId: fabrikam.id });
    // The customer registers the provider's person (whose directory identity it knows) in its own organization.
    const theirs = await put(customerAdmin, userId, registration({ accountId: fabrikam.id, email: `p.${randomUUID().slice(0, 8)}@fabrikam.example` }));
    expect(theirs.status).toBe(201);
    const them = sessionOf(userId, providerTenant);
    tick();
    const res = await json(await host.portal(customerAdmin, "POST", `/portal/people/${userId}/sign-out-everywhere?accountId=${fabrikam.id}`));
    expect(res.data).toMatchObject({ userId, registrations: 1 });
    // The provider's registration, through which the person acts, is untouched: the session goes on.
    expect((await host.portal(them, "GET", "/portal/me")).status).toBe(200);
    expect((await json(await host.portal(userAdmin, "GET", `/portal/people/${userId}`))).data.sessionsValidFrom).toBeNull();
  });

  it("deactivating ends the person's sessions at once: refused while inactive, and the old session stays over once reactivated", async () => {
    const userId = randomUUID();
    const made = await put(userAdmin, userId, registration());
    const them = sessionOf(userId, providerTenant);
    expect((await host.portal(them, "GET", "/portal/me")).status).toBe(200);
    tick();
    const off = await put(userAdmin, userId, registration({ email: made.body.data.email, isActive: false }), { "if-match": made.etag! });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ isActive: false, sessionsValidFrom: new Date(clock).toISOString() });
    expect(await json(await host.portal(them, "GET", "/portal/me"))).toMatchObject({ status: 403, code: "USER_NOT_REGISTERED" });
    tick();
    expect((await put(userAdmin, userId, registration({ email: made.body.data.email, isActive: true }))).status).toBe(200);
    expect(await json(await host.portal(them, "GET", "/portal/me"))).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    tick();
    expect((await host.portal(sessionOf(userId, providerTenant), "GET", "/portal/me")).status).toBe(200);
    const events = await audited(host.demo.provider.id, userId);
    expect(events.map((e) => e.activityType)).toEqual(["PersonRegistered", "PersonUpdated", "PersonUpdated"]);
    expect(JSON.parse(events[1]!.metadata)).toMatchObject({ before: { isActive: true }, after: { isActive: false }, sessionsEnded: true });
    // A stale If-Match is 409 and changes nothing.
    expect((await put(userAdmin, userId, registration({ email: made.body.data.email, displayName: "Stale" }), { "if-match": made.etag! })).body).toMatchObject({
      status: 409,
      target: "If-Match",
    });
  });

  it("signs a person out everywhere: every session begun before is over, on each registration, audited", async () => {
    tick();
    const userId = randomUUID();
    await put(userAdmin, userId, registration());
    // The same person, registered by a customer of the provider too.
    const fabrikam = host.demo.customers[0]!;
    await put(admin, userId, registration({ accountId: fabrikam.id, email: `sam.${randomUUID().slice(0, 8)}@fabrikam.example` }));
    const them = sessionOf(userId, providerTenant);
    expect((await host.portal(them, "GET", "/portal/me")).status).toBe(200);
    tick();
    const res = await json(await host.portal(userAdmin, "POST", `/portal/people/${userId}/sign-out-everywhere`));
    expect(res.data).toEqual({ userId, sessionsValidFrom: new Date(clock).toISOString(), registrations: 2 });
    expect(await json(await host.portal(them, "GET", "/portal/me"))).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    for (const accountId of [host.demo.provider.id, fabrikam.id]) {
      expect((await audited(accountId, userId)).map((e) => e.activityType)).toContain("PersonSignedOutEverywhere");
    }
    tick();
    expect((await host.portal(sessionOf(userId, providerTenant), "GET", "/portal/me")).status).toBe(200);
    expect(await json(await host.portal(userAdmin, "POST", `/portal/people/${randomUUID()}/sign-out-everywhere`))).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("leaves the contract's /users endpoints as they were", async () => {
    const userId = randomUUID();
    const res = await host.call("PUT", "/users", { body: { userId, displayName: "Via API", email: `api.${userId.slice(0, 8)}@contoso-mssp.example`, tenantId: providerTenant, isOwner: false } });
    expect(res.status).toBe(201);
    expect((await json(await host.call("GET", `/users/${userId}`))).data).toEqual({ id: userId, displayName: "Via API", email: `api.${userId.slice(0, 8)}@contoso-mssp.example`, organizationalRole: "Member", isActive: true });
    expect((await json(await host.portal(userAdmin, "GET", `/portal/people/${userId}`))).data).toMatchObject({ userId, workspaceRoles: [], isActive: true });
    expect((await host.call("DELETE", `/users/${userId}`)).status).toBe(200);
  });
});
