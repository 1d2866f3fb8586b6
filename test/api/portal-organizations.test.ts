import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAdminAccount } from "../../shared/domain/organizations/admin-account";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
let admin: TestPerson;
let workspaceAdmin: TestPerson;

beforeAll(async () => {
  host = await startTestHost();
  admin = await host.person({ organizationalRole: "Admin" });
  workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
afterAll(() => host?.close());

/** The organization's audit events about one target, oldest first. */
async function audited(accountId: string, targetId: string) {
  return (await host.services.stores.audit.listRecent(accountId, 500)).filter((e) => e.targetResourceId === targetId).reverse();
}

async function createOrganization(name: string, as: TestPerson = admin): Promise<Response> {
  const res = await host.portal(as, "POST", "/portal/organizations", { body: { name } });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  return res;
}

describe("portal organizations", () => {
  it("lists the person's organization: their account first, then the customers it manages", async () => {
    const body = await json(await host.portal(admin, "GET", "/portal/organizations"));
    expect(body.data[0]).toMatchObject({ id: host.demo.provider.id, kind: "ServiceProvider", managedByAccountId: null, isActive: true });
    expect(body.data.slice(1).map((o: Json) => o.id).sort()).toEqual(host.demo.customers.map((c) => c.id).sort());
    // A customer's person sees their own organization only.
    const customer = host.demo.customers[0]!;
    const theirs = await host.person({ organizationalRole: "Member", accountId: customer.id });
    expect((await json(await host.portal(theirs, "GET", "/portal/organizations"))).data.map((o: Json) => o.id)).toEqual([customer.id]);
  });

  it("creates a customer organization managed by the provider: 201 with Location and ETag, audited with the person as actor", async () => {
    const res = await createOrganization("Woodgrove Bank", workspaceAdmin);
    const created = (await json(res)).data;
    expect(created).toMatchObject({ name: "Woodgrove Bank", kind: "Customer", managedByAccountId: host.demo.provider.id, isActive: true, deactivatedAt: null });
    expect(res.headers.get("location")).toMatch(new RegExp(`/api/v2/portal/organizations/${created.id}$`));
    expect(res.headers.get("etag")).toBeTruthy();
    const read = await host.portal(workspaceAdmin, "GET", `/portal/organizations/${created.id}`);
    expect((await json(read)).data).toEqual(created);
    expect(read.headers.get("etag")).toBe(res.headers.get("etag"));
    // The organization listing shows it at once, for the person who made it.
    expect((await json(await host.portal(workspaceAdmin, "GET", "/portal/organizations"))).data.map((o: Json) => o.id)).toContain(created.id);
    const [event] = await audited(created.id, created.id);
    expect(event).toMatchObject({
      activityType: "OrganizationCreated",
      activityAction: "Create",
      discriminator: "Organization",
      actorId: workspaceAdmin.userId,
      actorName: workspaceAdmin.name,
      targetResourceName: "Woodgrove Bank",
    });
    expect(event!.actorEmail).toMatch(/@contoso\.example$/);
  });

  it("refuses a second organization of the same name (409), an empty name (400 at name), and a customer's people (403)", async () => {
    await createOrganization("Tailspin Toys");
    const again = await json(await host.portal(admin, "POST", "/portal/organizations", { body: { name: "tailspin toys" } }));
    expect(again).toMatchObject({ status: 409, code: "CONFLICT", target: "name" });
    const empty = await json(await host.portal(admin, "POST", "/portal/organizations", { body: { name: " " } }));
    expect(empty).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(Object.keys(empty.errors)).toEqual(["name"]);
    const unknown = await json(await host.portal(admin, "POST", "/portal/organizations", { body: { name: "X", kind: "ServiceProvider" } }));
    expect(Object.keys(unknown.errors)).toContain("kind");
    const customerAdmin = await host.person({ organizationalRole: "Admin", accountId: host.demo.customers[0]!.id });
    expect(await json(await host.portal(customerAdmin, "POST", "/portal/organizations", { body: { name: "Nested" } }))).toMatchObject({ status: 403, code: "FORBIDDEN" });
  });

  it("an organization outside the person's own does not exist for them (404)", async () => {
    const [fabrikam, northwind] = host.demo.customers;
    const fabrikamAdmin = await host.person({ organizationalRole: "Admin", accountId: fabrikam!.id });
    for (const [method, path, body] of [
      ["GET", `/portal/organizations/${northwind!.id}`, undefined],
      ["PATCH", `/portal/organizations/${northwind!.id}`, { name: "Mine now" }],
      ["GET", `/portal/organizations/${host.demo.provider.id}/partner-approval`, undefined],
    ] as const) {
      expect(await json(await host.portal(fabrikamAdmin, method, path, { body })), `${method} ${path}`).toMatchObject({ status: 404, code: "NOT_FOUND", target: "accountId" });
    }
  });

  it("renames with If-Match: a stale ETag is 409 and changes nothing, the current one succeeds with a new ETag", async () => {
    const created = (await json(await createOrganization("Litware"))).data;
    const read = await host.portal(admin, "GET", `/portal/organizations/${created.id}`);
    const etag = read.headers.get("etag")!;
    const renamed = await host.portal(admin, "PATCH", `/portal/organizations/${created.id}`, { body: { name: "Litware Inc" }, headers: { "if-match": etag } });
    expect(renamed.status).toBe(200);
    expect((await json(renamed)).data.name).toBe("Litware Inc");
    expect(renamed.headers.get("etag")).not.toBe(etag);
    const stale = await host.portal(admin, "PATCH", `/portal/organizations/${created.id}`, { body: { name: "Litware Stale" }, headers: { "if-match": etag } });
    expect(await json(stale)).toMatchObject({ status: 409, code: "CONFLICT", target: "If-Match" });
    expect((await json(await host.portal(admin, "GET", `/portal/organizations/${created.id}`))).data.name).toBe("Litware Inc");
    const events = await audited(created.id, created.id);
    expect(events.map((e) => e.activityType)).toEqual(["OrganizationCreated", "OrganizationUpdated"]);
    expect(JSON.parse(events[1]!.metadata)).toEqual({ before: { name: "Litware", isActive: true }, after: { name: "Litware Inc", isActive: true } });
    // An empty change is a validation problem, not a write.
    expect(await json(await host.portal(admin, "PATCH", `/portal/organizations/${created.id}`, { body: {} }))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
  });

  it("concurrent changes without If-Match are each applied on a fresh read: none is lost", async () => {
    const created = (await json(await createOrganization("Contoso Pharma"))).data;
    const provider = host.demo.provider.id;
    const [renamed, partner] = await Promise.all([
      host.portal(admin, "PATCH", `/portal/organizations/${created.id}`, { body: { name: "Contoso Pharmaceuticals" } }),
      host.portal(admin, "PUT", `/portal/organizations/${provider}/partner-approval`, { body: { mode: "AllRuns", accountIds: [created.id] } }),
      host.portal(admin, "PATCH", `/portal/organizations/${created.id}`, { body: { isActive: false } }),
    ]);
    expect([renamed.status, partner.status]).toEqual([200, 200]);
    const now = (await json(await host.portal(admin, "GET", `/portal/organizations/${created.id}`))).data;
    expect(now).toMatchObject({ name: "Contoso Pharmaceuticals", isActive: false });
    expect((await json(await host.portal(admin, "GET", `/portal/organizations/${provider}/partner-approval`))).data).toEqual({ mode: "AllRuns", accountIds: [created.id] });
  });

  it("nobody deactivates the organization they act from (403 at isActive)", async () => {
    const res = await json(await host.portal(admin, "PATCH", `/portal/organizations/${host.demo.provider.id}`, { body: { isActive: false } }));
    expect(res).toMatchObject({ status: 403, code: "FORBIDDEN", target: "isActive" });
    const customerAdmin = await host.person({ organizationalRole: "Admin", accountId: host.demo.customers[1]!.id });
    expect(await json(await host.portal(customerAdmin, "PATCH", `/portal/organizations/${host.demo.customers[1]!.id}`, { body: { isActive: false } }))).toMatchObject({
      status: 403,
      target: "isActive",
    });
  });

  it("a deactivated organization's service accounts (401) and people (403) are refused at once, and no workspace is onboarded into it; reactivated, they are back", async () => {
    const created = (await json(await createOrganization("Adatum"))).data;
    const serviceAccount = await ensureAdminAccount(host.services, { accountId: created.id, name: "Adatum admin", workspaceIds: [] });
    const auth = { clientId: serviceAccount.clientId, clientSecret: serviceAccount.clientSecret };
    const theirPerson = await host.person({ organizationalRole: "Admin", accountId: created.id });
    expect((await host.call("GET", "/users", { auth })).status).toBe(200);
    expect((await host.portal(theirPerson, "GET", "/portal/me")).status).toBe(200);

    const off = await host.portal(admin, "PATCH", `/portal/organizations/${created.id}`, { body: { isActive: false } });
    expect((await json(off)).data).toMatchObject({ isActive: false, deactivatedAt: expect.any(String) });
    expect(await json(await host.call("GET", "/users", { auth }))).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect(await json(await host.portal(theirPerson, "GET", "/portal/me"))).toMatchObject({ status: 403, code: "USER_NOT_REGISTERED", detail: expect.stringContaining("organization is deactivated") });
    const onboard = await host.portal(admin, "POST", "/portal/workspaces", { body: { name: "adatum-prod", accountId: created.id, tenantId: host.demo.workspaces[0]!.tenantId } });
    expect(await json(onboard)).toMatchObject({ status: 409, code: "CONFLICT", target: "accountId" });
    // The provider still sees and manages it.
    expect((await json(await host.portal(admin, "GET", "/portal/organizations"))).data.find((o: Json) => o.id === created.id)).toMatchObject({ isActive: false });

    const on = await host.portal(admin, "PATCH", `/portal/organizations/${created.id}`, { body: { isActive: true } });
    expect((await json(on)).data).toMatchObject({ isActive: true, deactivatedAt: null });
    expect((await host.call("GET", "/users", { auth })).status).toBe(200);
    expect((await host.portal(theirPerson, "GET", "/portal/me")).status).toBe(200);
    expect((await audited(created.id, created.id)).map((e) => e.activityType)).toEqual(["OrganizationCreated", "OrganizationDeactivated", "OrganizationReactivated"]);
  });

  it("keeps the provider's partner approval setting: only a provider has one, naming only organizations it manages, audited", async () => {
    const provider = host.demo.provider.id;
    const [fabrikam] = host.demo.customers;
    const path = `/portal/organizations/${provider}/partner-approval`;
    const read = await host.portal(workspaceAdmin, "GET", path);
    expect(read.status).toBe(200);
    const put = await host.portal(workspaceAdmin, "PUT", path, { body: { mode: "AdminRequiredPlaybooks", accountIds: [fabrikam!.id.toUpperCase()] }, headers: { "if-match": read.headers.get("etag")! } });
    expect((await json(put)).data).toEqual({ mode: "AdminRequiredPlaybooks", accountIds: [fabrikam!.id] });
    expect((await json(await host.portal(workspaceAdmin, "GET", path))).data).toEqual({ mode: "AdminRequiredPlaybooks", accountIds: [fabrikam!.id] });
    // The gamebook approval reads it from the provider's record.
    expect((await host.services.stores.accounts.get(provider))?.partnerApproval).toEqual({ mode: "AdminRequiredPlaybooks", accountIds: [fabrikam!.id] });
    const event = (await audited(provider, provider)).findLast((e) => e.activityType === "PartnerApproval");
    expect(JSON.parse(event!.metadata).after).toEqual({ mode: "AdminRequiredPlaybooks", accountIds: [fabrikam!.id] });

    const notProvider = await json(await host.portal(admin, "PUT", `/portal/organizations/${fabrikam!.id}/partner-approval`, { body: { mode: "AllRuns" } }));
    expect(notProvider).toMatchObject({ status: 400, code: "VALIDATION_ERROR", target: "accountId", errors: { accountId: [expect.any(String)] } });
    const foreign = await json(await host.portal(admin, "PUT", path, { body: { mode: "AllRuns", accountIds: ["00000000-0000-4000-8000-000000000009"] } }));
    expect(foreign).toMatchObject({ status: 400, code: "VALIDATION_ERROR", errors: { accountIds: [expect.stringContaining("Not managed")] } });
    const badMode = await json(await host.portal(admin, "PUT", path, { body: { mode: "Sometimes" } }));
    expect(Object.keys(badMode.errors)).toEqual(["mode"]);
    await host.portal(admin, "PUT", path, { body: { mode: "NoApproval" } });
  });
});
