import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVALID_PAGE_TOKEN_MESSAGE } from "../../shared/platform/errors/api-error";
import { ensureAdminAccount } from "../../shared/domain/organizations/admin-account";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => host?.close());

const newUser = (over: Json = {}) => ({
  userId: randomUUID(),
  displayName: "Sam Analyst",
  email: `sam.${randomUUID().slice(0, 8)}@contoso-mssp.example`,
  tenantId: randomUUID(),
  isOwner: false,
  ...over,
});

describe("users", () => {
  it("lists the organization's users, including managed accounts', with the contract fields", async () => {
    const body = await json(await host.call("GET", "/users?pageSize=200"));
    expect(body.pagination).toEqual({ hasMore: false });
    expect(body.data.length).toBe(host.demo.users.length);
    for (const user of body.data) {
      expect(Object.keys(user).sort()).toEqual(["displayName", "email", "id", "isActive", "organizationalRole"]);
    }
  });

  it("a customer account sees only its own users", async () => {
    const customer = host.demo.customers[0]!;
    const admin = await ensureAdminAccount(host.services, { accountId: customer.id, name: "Fabrikam admin", workspaceIds: [] });
    const body = await json(await host.call("GET", "/users?pageSize=200", { auth: { clientId: admin.clientId, clientSecret: admin.clientSecret } }));
    const expected = host.demo.users.filter((u) => u.accountId === customer.id).map((u) => u.id).sort();
    expect(body.data.map((u: Json) => u.id).sort()).toEqual(expected);
  });

  it("filters by e-mail (case-insensitive) and by role", async () => {
    const target = host.demo.users[1]!;
    const byEmail = await json(await host.call("GET", `/users?email=${encodeURIComponent(target.email.toUpperCase())}`));
    expect(byEmail.data.map((u: Json) => u.id)).toEqual([target.id]);
    const members = await json(await host.call("GET", "/users?role=Member&pageSize=200"));
    expect(members.data.length).toBe(host.demo.users.filter((u) => u.organizationalRole === "Member").length);
    expect(members.data.every((u: Json) => u.organizationalRole === "Member")).toBe(true);
    expect((await host.call("GET", "/users?role=King")).status).toBe(400);
  });

  it("pages with tokens bound to the filter", async () => {
    const first = await json(await host.call("GET", "/users?pageSize=2"));
    expect(first.pagination.hasMore).toBe(true);
    const token = encodeURIComponent(first.pagination.continuationToken);
    const second = await json(await host.call("GET", `/users?pageSize=2&continuationToken=${token}`));
    expect(second.data.map((u: Json) => u.id)).not.toContain(first.data[0].id);
    const otherFilter = await host.call("GET", `/users?pageSize=2&role=Member&continuationToken=${token}`);
    expect(otherFilter.status).toBe(400);
    expect((await json(otherFilter)).detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
  });

  it("PUT creates, then updates, a user; data is true", async () => {
    const user = newUser();
    const created = await host.call("PUT", "/users", { body: user });
    expect(created.status).toBe(201);
    expect((await json(created)).data).toBe(true);
    const read = await json(await host.call("GET", `/users/${user.userId}`));
    expect(read.data).toEqual({ id: user.userId, displayName: "Sam Analyst", email: user.email, organizationalRole: "Member", isActive: true });
    const updated = await host.call("PUT", "/users", { body: { ...user, displayName: "Sam Senior" } });
    expect(updated.status).toBe(200);
    expect((await json(await host.call("GET", `/users/${user.userId}`))).data.displayName).toBe("Sam Senior");
  });

  it("isOwner grants Admin, and changing the role needs org:users:roles", async () => {
    const manager = await createServiceAccount(host, { scopes: ["org:users:manage", "org:users:read"] });
    const owner = newUser({ isOwner: true });
    const denied = await host.call("PUT", "/users", { auth: manager, body: owner });
    expect(denied.status).toBe(403);
    expect(await json(denied)).toMatchObject({ code: "INSUFFICIENT_SCOPE", target: "org:users:roles" });
    const plain = newUser();
    expect((await host.call("PUT", "/users", { auth: manager, body: plain })).status).toBe(201);

    expect((await host.call("PUT", "/users", { body: owner })).status).toBe(201);
    expect((await json(await host.call("GET", `/users/${owner.userId}`))).data.organizationalRole).toBe("Admin");
    expect((await host.call("PUT", "/users", { body: { ...owner, isOwner: false } })).status).toBe(200);
    expect((await json(await host.call("GET", `/users/${owner.userId}`))).data.organizationalRole).toBe("Member");
  });

  it("an e-mail already used by another user of the account is 409", async () => {
    const taken = host.demo.users.find((u) => u.accountId === host.demo.provider.id)!;
    const res = await host.call("PUT", "/users", { body: newUser({ email: taken.email.toUpperCase() }) });
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ code: "CONFLICT", target: "email" });
  });

  it("validates the body strictly", async () => {
    const res = await host.call("PUT", "/users", { body: { ...newUser(), email: "not-an-email", isApproved: true } });
    expect(res.status).toBe(400);
    expect(Object.keys((await json(res)).errors).sort()).toEqual(["email", "isApproved"]);
  });

  it("DELETE removes a user; data is true; a second delete is 404", async () => {
    const user = newUser();
    await host.call("PUT", "/users", { body: user });
    const res = await host.call("DELETE", `/users/${user.userId}`);
    expect(res.status).toBe(200);
    expect((await json(res)).data).toBe(true);
    expect((await host.call("GET", `/users/${user.userId}`)).status).toBe(404);
    expect((await host.call("DELETE", `/users/${user.userId}`)).status).toBe(404);
    const audit = await host.services.stores.audit.listRecent(host.demo.provider.id, 100);
    expect(audit.filter((e) => e.targetResourceId === user.userId).map((e) => e.activityType).sort()).toEqual(["UserCreated", "UserDeleted"]);
  });

  it("another organization's users are 404", async () => {
    const accountId = randomUUID();
    await host.services.stores.accounts.upsert({ id: accountId, name: "Elsewhere", kind: "Customer", managedByAccountId: null });
    const stamp = new Date().toISOString();
    const stranger = { id: randomUUID(), accountId, displayName: "Stranger", email: "s@elsewhere.example", tenantId: randomUUID(), organizationalRole: "Member" as const, isActive: true, createdAt: stamp, lastModifiedAt: stamp };
    await host.services.stores.users.create(stranger);
    expect((await host.call("GET", `/users/${stranger.id}`)).status).toBe(404);
    expect((await host.call("DELETE", `/users/${stranger.id}`)).status).toBe(404);
    const list = await json(await host.call("GET", "/users?pageSize=200"));
    expect(list.data.map((u: Json) => u.id)).not.toContain(stranger.id);
  });

  it("scopes are enforced: read needs org:users:read, writes org:users:manage", async () => {
    const reader = await createServiceAccount(host, { scopes: ["org:users:read"] });
    expect((await host.call("GET", "/users", { auth: reader })).status).toBe(200);
    const put = await host.call("PUT", "/users", { auth: reader, body: newUser() });
    expect(put.status).toBe(403);
    expect((await json(put)).code).toBe("INSUFFICIENT_SCOPE");
    expect((await host.call("DELETE", `/users/${host.demo.users[0]!.id}`, { auth: reader })).status).toBe(403);
    const nobody = await createServiceAccount(host, { scopes: ["incidents:read"] });
    expect((await host.call("GET", `/users/${host.demo.users[0]!.id}`, { auth: nobody })).status).toBe(403);
  });
});
