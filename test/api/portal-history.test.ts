import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expireApprovals } from "../../shared/domain/gamebooks/approval-expiry";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";
import { json, type Json } from "../support/json";

/**
 * History a person can read: the decided approval requests and what ran, the gamebook runs of every
 * workspace they see, and their organization's audit trail. Each listing keeps to what the person may
 * see (a customer's people never see the provider's or another customer's), pages with tokens bound
 * to the person and the filters, and refuses the roles that may not read it.
 */
let host: TestHost;
let fabrikam: string;
let northwind: string;
let providerAccount: string;
let fabrikamAccount: string;
let northwindAccount: string;
/** Owns both customers' production workspaces (a provider's person). */
let owner: TestPerson;
/** Fabrikam's own people: an analyst on its production workspace, its UserAdmin. */
let fabrikamAnalyst: TestPerson;
let fabrikamUserAdmin: TestPerson;
/** The customers' WorkspaceAdmins: they read their own organization's audit trail. */
let fabrikamWorkspaceAdmin: TestPerson;
let northwindWorkspaceAdmin: TestPerson;
let providerAdmin: TestPerson;
let providerWorkspaceAdmin: TestPerson;
/** Approved and ran (Fabrikam), denied (Northwind), expired (Fabrikam), still waiting (Fabrikam). */
let approved: string;
let denied: string;
let expired: string;
let waiting: string;

async function finished(workspaceId: string, runId: string): Promise<Json> {
  for (let i = 0; i < 200; i++) {
    const run = (await host.services.stores.gamebookRuns.get(workspaceId, runId))!.value;
    if (run.status !== "Pending" && run.status !== "Running") return run;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`run ${runId} did not finish`);
}

beforeAll(async () => {
  host = await startTestHost({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  fabrikam = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  northwind = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-prod")!.id;
  providerAccount = host.demo.provider.id;
  fabrikamAccount = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!.id;
  northwindAccount = host.demo.customers.find((c) => c.name === "Northwind Health")!.id;
  owner = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: fabrikam, role: "Owner" }, { workspaceId: northwind, role: "Owner" }] });
  fabrikamAnalyst = await host.person({ accountId: fabrikamAccount, organizationalRole: "Member", workspaceAssignments: [{ workspaceId: fabrikam, role: "Analyst" }] });
  fabrikamUserAdmin = await host.person({ accountId: fabrikamAccount, organizationalRole: "UserAdmin" });
  await host.person({ accountId: northwindAccount, organizationalRole: "UserAdmin" });
  fabrikamWorkspaceAdmin = await host.person({ accountId: fabrikamAccount, organizationalRole: "WorkspaceAdmin" });
  northwindWorkspaceAdmin = await host.person({ accountId: northwindAccount, organizationalRole: "WorkspaceAdmin" });
  providerAdmin = await host.person({ organizationalRole: "Admin" });
  providerWorkspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  for (const workspaceId of [fabrikam, northwind]) {
    const res = await host.portal(providerWorkspaceAdmin, "PUT", `/portal/workspaces/${workspaceId}/approval-policy`, { body: { mode: "AllRuns", approvalTimeoutHours: 4 } });
    expect(res.status).toBe(200);
  }
  approved = await submitAccountRun(host, fabrikam);
  expect((await host.portal(owner, "POST", `/portal/workspaces/${fabrikam}/approvals/${approved}/approve`, { body: { comment: "Confirmed with the customer." } })).status).toBe(200);
  await finished(fabrikam, approved);
  denied = await submitAccountRun(host, northwind);
  expect((await host.portal(owner, "POST", `/portal/workspaces/${northwind}/approvals/${denied}/deny`, { body: { reason: "Travel confirmed by phone." } })).status).toBe(200);
  expired = await submitAccountRun(host, fabrikam);
  // Every request waiting now expires: only `expired` waits at this point.
  const swept = await expireApprovals({ ...host.services }, { now: new Date(host.services.now().getTime() + 5 * 3600_000) });
  expect(swept.expired.map((e) => e.runId)).toEqual([expired]);
  waiting = await submitAccountRun(host, fabrikam);
}, 120_000);
afterAll(() => host?.close());

const decided = async (person: TestPerson, query = "") => {
  const res = await host.portal(person, "GET", `/portal/approvals/decided${query}`);
  expect(res.status).toBe(200);
  return json(res);
};

describe("decided approvals", () => {
  it("lists the requests decided in the person's workspaces, newest decision first: who decided, when, why, who asked, and what ran", async () => {
    const page = await decided(owner);
    expect(page.data.map((r: Json) => r.runId)).toEqual([expired, denied, approved]);
    const [lapsed, refused, ran] = page.data as [Json, Json, Json];
    expect(ran).toMatchObject({
      workspace: { id: fabrikam, name: "fabrikam-sentinel-prod" },
      awaitingDecision: false,
      requestedBy: { kind: "ServiceAccount", id: host.admin.clientId },
      decision: { outcome: "Approved", by: owner.name, byUserId: owner.userId, comment: "Confirmed with the customer.", expired: false },
      run: { status: expect.stringMatching(/^(Succeeded|PartiallySucceeded|Failed)$/), dispatchedAt: expect.any(String) },
    });
    expect(ran.run.playbooks).toEqual([expect.objectContaining({ sequence: 1, name: ran.playbooks[0].name, status: expect.stringMatching(/^(Succeeded|Failed)$/), finishingDate: expect.any(String) })]);
    expect(ran.run.playbooks[0].finishingDate).not.toBe("");
    expect(refused).toMatchObject({ workspace: { id: northwind }, decision: { outcome: "Denied", byUserId: owner.userId, comment: "Travel confirmed by phone.", expired: false }, run: { status: "Denied", dispatchedAt: null } });
    expect(refused.run.playbooks.map((p: Json) => p.status)).toEqual(["Skipped"]);
    expect(lapsed).toMatchObject({ decision: { outcome: "Denied", by: "Approval expiry", expired: true }, run: { status: "Denied" } });
    expect(page.pagination).toEqual({ hasMore: false });
    expect(page.data.map((r: Json) => r.runId)).not.toContain(waiting);
  });

  it("shows a customer's person only their own workspaces' requests, and narrows to the workspaces asked for", async () => {
    expect((await decided(fabrikamAnalyst)).data.map((r: Json) => r.runId)).toEqual([expired, approved]);
    expect((await decided(fabrikamAnalyst, `?workspaceIds=${northwind}`)).data).toEqual([]);
    expect((await decided(fabrikamUserAdmin)).data).toEqual([]);
    expect((await decided(owner, `?workspaceIds=${northwind}`)).data.map((r: Json) => r.runId)).toEqual([denied]);
    // An organization-wide role sees every workspace of its organization.
    expect((await decided(providerWorkspaceAdmin)).data.map((r: Json) => r.runId)).toEqual([expired, denied, approved]);
  });

  it("pages with a token bound to the person and to the workspaces asked for", async () => {
    const first = await decided(owner, "?pageSize=2");
    expect(first.data.map((r: Json) => r.runId)).toEqual([expired, denied]);
    expect(first.pagination.hasMore).toBe(true);
    const token = encodeURIComponent(first.pagination.continuationToken);
    const second = await decided(owner, `?pageSize=2&continuationToken=${token}`);
    expect(second.data.map((r: Json) => r.runId)).toEqual([approved]);
    expect(second.pagination).toEqual({ hasMore: false });
    const someoneElse = await host.portal(providerWorkspaceAdmin, "GET", `/portal/approvals/decided?pageSize=2&continuationToken=${token}`);
    expect([someoneElse.status, (await json(someoneElse)).code]).toEqual([400, "VALIDATION_ERROR"]);
    const otherFilter = await host.portal(owner, "GET", `/portal/approvals/decided?pageSize=2&workspaceIds=${fabrikam}&continuationToken=${token}`);
    expect([otherFilter.status, (await json(otherFilter)).target]).toEqual([400, "continuationToken"]);
  });
});

describe("run history across workspaces", () => {
  const history = async (person: TestPerson, query = "") => {
    const res = await host.portal(person, "GET", `/portal/gamebooks/history${query}`);
    expect(res.status).toBe(200);
    return json(res);
  };

  it("is the contract's cross-workspace history over the workspaces the person sees", async () => {
    const mine = await history(owner);
    const runs = mine.data.runs as Json[];
    expect(new Set(runs.map((r) => r.workspaceId))).toEqual(new Set([fabrikam, northwind]));
    expect(runs.map((r) => r.id)).toEqual(expect.arrayContaining([approved, denied, expired, waiting]));
    expect(mine.meta.unavailable).toEqual([]);
    // The same listing as the contract's route for a credential mapped to the same workspaces.
    const sa = await createServiceAccount(host, { scopes: ["gamebooks:read"], workspaceAssignments: [{ workspaceId: fabrikam, role: "Analyst" }, { workspaceId: northwind, role: "Analyst" }] });
    const contract = await json(await host.call("GET", "/gamebooks/across-workspaces/history", { auth: sa }));
    expect(runs.map((r) => r.id)).toEqual(contract.data.runs.map((r: Json) => r.id));
    expect(runs).toEqual(contract.data.runs);
  });

  it("keeps a customer's person to their own workspaces, and filters by workspace, status and text", async () => {
    const theirs = (await history(fabrikamAnalyst)).data.runs as Json[];
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.every((r) => r.workspaceId === fabrikam)).toBe(true);
    expect((await history(fabrikamAnalyst, `?workspaces=${northwind}`)).data.runs).toEqual([]);
    expect((await history(fabrikamUserAdmin)).data.runs).toEqual([]);
    expect(((await history(owner, "?statuses=Denied")).data.runs as Json[]).map((r) => r.id).sort()).toEqual([denied, expired].sort());
    expect(((await history(owner, `?statuses=Denied&workspaces=${northwind}`)).data.runs as Json[]).map((r) => r.id)).toEqual([denied]);
    const byText = (await history(owner, "?query=SOAR%20nobody")).data.runs;
    expect(byText).toEqual([]);
  });

  it("pages by currentPage with tokens bound to the person and the filters", async () => {
    expect((await history(owner)).data.pageSize).toBe(50);
    // Older runs of the same shape, straight into the store, until the owner's workspaces have more than a page.
    const model = (await host.services.stores.gamebookRuns.get(fabrikam, approved))!.value;
    for (let i = 0; i < 50; i++) {
      const at = new Date(Date.parse(model.creationDate) - (i + 1) * 60_000).toISOString();
      await host.services.stores.gamebookRuns.create({ ...model, id: randomUUID(), creationDate: at, modificationDate: at }, []);
    }
    const first = await history(owner);
    expect(first.data.hasMore).toBe(true);
    const token = encodeURIComponent(first.pagination.continuationToken);
    const second = await history(owner, `?currentPage=2&pageToken=${token}`);
    expect(second.data.currentPage).toBe(2);
    expect(second.data.runs.map((r: Json) => r.id)).not.toContain(first.data.runs[0].id);
    const stolen = await host.portal(providerAdmin, "GET", `/portal/gamebooks/history?currentPage=2&pageToken=${token}`);
    expect([stolen.status, (await json(stolen)).target]).toEqual([400, "pageToken"]);
    const otherFilter = await host.portal(owner, "GET", `/portal/gamebooks/history?currentPage=2&statuses=Pending&pageToken=${token}`);
    expect(otherFilter.status).toBe(400);
  }, 60_000);
});

describe("the organization's audit trail", () => {
  const audit = async (person: TestPerson, query = "") => {
    const res = await host.portal(person, "GET", `/portal/audit${query}`);
    expect(res.status).toBe(200);
    return json(res);
  };
  /** Every event the search finds, following the tokens. */
  const allEvents = async (person: TestPerson, query = "") => {
    const found: Json[] = [];
    let token: string | undefined;
    for (let i = 0; i < 100; i++) {
      const sep = query ? "&" : "?";
      const page = await audit(person, `${query}${token ? `${sep}continuationToken=${encodeURIComponent(token)}` : ""}`);
      found.push(...page.data);
      token = page.pagination.continuationToken;
      if (!page.pagination.hasMore) return found;
    }
    throw new Error("The audit trail never ended.");
  };
  let renamedProvider: string;
  let renamedFabrikam: string;

  beforeAll(async () => {
    // An event in the provider's own trail, one in Fabrikam's (made by the provider's Admin), and back.
    const rename = async (accountId: string, name: string) => {
      const res = await host.portal(providerAdmin, "PATCH", `/portal/organizations/${accountId}`, { body: { name } });
      expect(res.status).toBe(200);
    };
    renamedProvider = "Contoso Managed Security (renamed)";
    renamedFabrikam = "Fabrikam Retail (renamed)";
    await rename(providerAccount, renamedProvider);
    await rename(providerAccount, "Contoso Managed Security");
    await rename(fabrikamAccount, renamedFabrikam);
    await rename(fabrikamAccount, "Fabrikam Retail");
  });

  it("is for Admin and WorkspaceAdmin only: the roles that read every workspace of the organization anyway", async () => {
    for (const person of [providerAdmin, providerWorkspaceAdmin, fabrikamWorkspaceAdmin]) expect((await host.portal(person, "GET", "/portal/audit")).status).toBe(200);
    for (const person of [owner, fabrikamAnalyst, fabrikamUserAdmin, await host.person({ organizationalRole: "OrgContentAdmin" })]) {
      const refused = await json(await host.portal(person, "GET", "/portal/audit"));
      expect([refused.status, refused.code, refused.target]).toEqual([403, "FORBIDDEN", "organizationalRole"]);
    }
  });

  it("shows the provider its own events and its customers', newest first", async () => {
    const events = await allEvents(providerAdmin, "?pageSize=200");
    const times = events.map((e) => `${e.timeGenerated}|${e.id}`);
    expect(times).toEqual([...times].sort().reverse());
    const accounts = new Set(events.map((e) => e.accountId));
    expect([...accounts]).toEqual(expect.arrayContaining([providerAccount, fabrikamAccount, northwindAccount]));
    const renames = events.filter((e) => e.activityType === "OrganizationUpdated");
    expect(renames.map((e) => e.targetResourceId)).toEqual([fabrikamAccount, fabrikamAccount, providerAccount, providerAccount]);
    expect(renames[0]).toMatchObject({ actorId: providerAdmin.userId, actorName: providerAdmin.name, workspaceId: null, workspaceName: null, discriminator: "Organization", accountName: "Fabrikam Retail" });
    const approval = events.find((e) => e.activityType === "GamebookApproval" && e.targetResourceId === approved && e.actorId === owner.userId);
    expect(approval).toMatchObject({ workspaceId: fabrikam, workspaceName: "fabrikam-sentinel-prod", accountId: fabrikamAccount });
  });

  it("shows a customer only its own account's and workspaces' events: never the provider's, never another customer's", async () => {
    const fabrikams = await allEvents(fabrikamWorkspaceAdmin, "?pageSize=200");
    const fabrikamWorkspaces = new Set(host.demo.workspaces.filter((w) => w.accountId === fabrikamAccount).map((w) => w.id));
    expect(fabrikams.length).toBeGreaterThan(0);
    for (const e of fabrikams) expect(e.workspaceId === null ? e.accountId === fabrikamAccount : fabrikamWorkspaces.has(e.workspaceId)).toBe(true);
    // The provider's Admin renamed Fabrikam: that is Fabrikam's event; renaming the provider is not.
    expect(fabrikams.filter((e) => e.activityType === "OrganizationUpdated").map((e) => e.targetResourceId)).toEqual([fabrikamAccount, fabrikamAccount]);
    expect(fabrikams.some((e) => e.targetResourceId === denied)).toBe(false);
    const northwinds = await allEvents(northwindWorkspaceAdmin, "?pageSize=200");
    expect(northwinds.some((e) => e.targetResourceId === denied)).toBe(true);
    expect(northwinds.some((e) => e.accountId === fabrikamAccount || e.accountId === providerAccount || e.workspaceId === fabrikam)).toBe(false);
    // Naming what is not theirs leaves it out.
    expect((await audit(fabrikamWorkspaceAdmin, `?accountId=${northwindAccount}`)).data).toEqual([]);
    expect((await audit(fabrikamWorkspaceAdmin, `?workspaceIds=${northwind}`)).data).toEqual([]);
  });

  it("filters by actor (id, or text in the name or e-mail address), organization, workspace, activity type and action, and time", async () => {
    const byId = await allEvents(providerAdmin, `?actorId=${owner.userId}&pageSize=200`);
    expect(byId.length).toBeGreaterThanOrEqual(2);
    expect(byId.every((e) => e.actorId === owner.userId)).toBe(true);
    const byName = await allEvents(providerAdmin, `?actor=${encodeURIComponent(owner.name.toUpperCase())}&pageSize=200`);
    expect(byName.map((e) => e.id)).toEqual(byId.map((e) => e.id));
    const byEmail = await allEvents(providerAdmin, `?actor=${encodeURIComponent(owner.userId.slice(0, 8))}%40contoso&pageSize=200`);
    expect(byEmail.map((e) => e.id)).toEqual(byId.map((e) => e.id));
    const approvals = await allEvents(providerAdmin, `?activityType=GamebookApproval&workspaceIds=${northwind}&pageSize=200`);
    expect(approvals.length).toBeGreaterThan(0);
    expect(approvals.every((e) => e.activityType === "GamebookApproval" && e.workspaceId === northwind)).toBe(true);
    const orgUpdates = await allEvents(providerAdmin, `?activityType=OrganizationUpdated&activityAction=Update&accountId=${fabrikamAccount}`);
    expect(orgUpdates.map((e) => e.targetResourceId)).toEqual([fabrikamAccount, fabrikamAccount]);
    expect(await allEvents(providerAdmin, `?activityType=OrganizationUpdated&activityAction=Delete`)).toEqual([]);
    const newest = orgUpdates[0]!.timeGenerated as string;
    const window = await allEvents(providerAdmin, `?activityType=OrganizationUpdated&from=${encodeURIComponent(newest)}&to=${encodeURIComponent(new Date(Date.parse(newest) + 1).toISOString())}`);
    expect(window.map((e) => e.timeGenerated)).toEqual(window.map(() => newest));
    const backwards = await host.portal(providerAdmin, "GET", `/portal/audit?from=${encodeURIComponent(newest)}&to=${encodeURIComponent(newest)}`);
    expect([backwards.status, (await json(backwards)).target]).toEqual([400, "to"]);
  });

  it("shows an offboarded workspace's events to the organization's Admins only, as its export is", async () => {
    const fabrikamTenant = host.demo.workspaces.find((w) => w.id === fabrikam)!.tenantId;
    const created = await host.portal(providerAdmin, "POST", "/portal/workspaces", { body: { name: "fabrikam-sentinel-retired", accountId: fabrikamAccount, tenantId: fabrikamTenant } });
    expect(created.status).toBe(201);
    const retired = (await json(created)).data.id as string;
    const onboarded = async (person: TestPerson) => (await allEvents(person, `?workspaceIds=${retired}`)).map((e) => e.activityType);
    expect(await onboarded(providerWorkspaceAdmin)).toEqual(["WorkspaceOnboarded"]);
    expect((await host.portal(providerAdmin, "DELETE", `/portal/workspaces/${retired}`)).status).toBe(200);
    expect(await onboarded(providerAdmin)).toEqual(["WorkspaceOffboarded", "WorkspaceOnboarded"]);
    expect(await onboarded(providerWorkspaceAdmin)).toEqual([]);
    expect(await onboarded(fabrikamWorkspaceAdmin)).toEqual([]);
    expect((await allEvents(providerWorkspaceAdmin, "?pageSize=200")).some((e) => e.workspaceId === retired)).toBe(false);
  });

  it("pages with a token bound to the person and to the filters", async () => {
    const first = await audit(providerAdmin, "?pageSize=2&activityType=OrganizationUpdated");
    expect(first.data).toHaveLength(2);
    expect(first.pagination.hasMore).toBe(true);
    const token = encodeURIComponent(first.pagination.continuationToken);
    const second = await audit(providerAdmin, `?pageSize=2&activityType=OrganizationUpdated&continuationToken=${token}`);
    expect(second.data.map((e: Json) => e.targetResourceId)).toEqual([providerAccount, providerAccount]);
    expect(second.data.map((e: Json) => e.id)).not.toContain(first.data[0].id);
    const stolen = await host.portal(providerWorkspaceAdmin, "GET", `/portal/audit?pageSize=2&activityType=OrganizationUpdated&continuationToken=${token}`);
    expect([stolen.status, (await json(stolen)).code]).toEqual([400, "VALIDATION_ERROR"]);
    const otherFilter = await host.portal(providerAdmin, "GET", `/portal/audit?pageSize=2&activityType=GamebookApproval&continuationToken=${token}`);
    expect([otherFilter.status, (await json(otherFilter)).target]).toEqual([400, "continuationToken"]);
  });
});
