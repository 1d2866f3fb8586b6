import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxEvents } from "../support/outbox";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";
import { json, type Json } from "../support/json";

/**
 * Approvals decided by the side that must decide. Northwind Health is a customer the demo provider
 * manages, and the provider's partner setting makes Northwind's runs with an admin playbook wait:
 * only the provider's people meet that setting; the workspace's own policy is met by any Owner of
 * the workspace, the customer's included; each organization's Admin decides for its side without
 * the workspace role.
 */
let host: TestHost;
let northwind: string;
let northwindAccount: string;
let customerOwner: TestPerson;
let customerOwner2: TestPerson;
let customerAdmin: TestPerson;
let customerAnalyst: TestPerson;
let providerOwner: TestPerson;
let providerAdmin: TestPerson;
let providerWorkspaceAdmin: TestPerson;

beforeAll(async () => {
  host = await startTestHost({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  const workspace = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-prod")!;
  northwind = workspace.id;
  northwindAccount = workspace.accountId;
  const owns = [{ workspaceId: northwind, role: "Owner" as const }];
  customerOwner = await host.person({ organizationalRole: "Member", accountId: northwindAccount, workspaceAssignments: owns });
  customerOwner2 = await host.person({ organizationalRole: "Member", accountId: northwindAccount, workspaceAssignments: owns });
  customerAdmin = await host.person({ organizationalRole: "Admin", accountId: northwindAccount });
  customerAnalyst = await host.person({ organizationalRole: "Member", accountId: northwindAccount, workspaceAssignments: [{ workspaceId: northwind, role: "Analyst" }] });
  providerOwner = await host.person({ organizationalRole: "Member", workspaceAssignments: owns });
  providerAdmin = await host.person({ organizationalRole: "Admin" });
  providerWorkspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
afterAll(() => host?.close());

async function setPolicy(body: Json): Promise<void> {
  const res = await host.portal(providerWorkspaceAdmin, "PUT", `/portal/workspaces/${northwind}/approval-policy`, { body });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
}

const approve = (person: TestPerson, runId: string) => host.portal(person, "POST", `/portal/workspaces/${northwind}/approvals/${runId}/approve`, { body: { comment: "Go." } });
const deny = (person: TestPerson, runId: string) => host.portal(person, "POST", `/portal/workspaces/${northwind}/approvals/${runId}/deny`, { body: { reason: "Not now." } });
const view = async (person: TestPerson, runId: string) => (await json(await host.portal(person, "GET", `/portal/workspaces/${northwind}/approvals/${runId}`))).data as Json;

describe("a run the managing provider's partner setting made wait", () => {
  it("is not approved by the customer's Owner or Admin (403, and the card says why), and is by the provider's Owner, recorded as the provider's", async () => {
    await setPolicy({ mode: "NoApproval", requireSecondApproverForAdminPlaybooks: false });
    const run = await submitAccountRun(host, northwind, { playbook: "reset-password" });
    const card = await view(customerOwner, run);
    expect(card).toMatchObject({ reasons: [{ code: "PartnerApproval" }], requiredSides: ["Provider"], viewer: { mayApprove: false, mayDeny: true, side: "Customer" } });
    expect(card.viewer.reason).toMatch(/managing provider's approval/);
    for (const person of [customerOwner, customerAdmin]) {
      const refused = await approve(person, run);
      expect([refused.status, (await json(refused)).code]).toEqual([403, "FORBIDDEN"]);
    }
    expect((await view(providerOwner, run)).viewer).toEqual({ mayApprove: true, mayDeny: true, reason: null, side: "Provider" });
    const approved = await approve(providerOwner, run);
    expect(approved.status).toBe(200);
    expect((await json(approved)).data).toMatchObject({ awaitingDecision: false, decision: { outcome: "Approved" }, approvals: [{ byUserId: providerOwner.userId, side: "Provider" }] });
    expect((await outboxEvents(host.services, northwind)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === run)).toHaveLength(1);
    // The first answers check the served OpenAPI document, built once: more than the default 5 s under load.
  }, 30_000);

  it("the provider's Admin decides it without a workspace role, and finds it in the queue", async () => {
    const run = await submitAccountRun(host, northwind, { playbook: "reset-password" });
    const queue = (await json(await host.portal(providerAdmin, "GET", `/portal/approvals?workspaceIds=${northwind}&pageSize=200`))).data as Json[];
    expect(queue.find((r) => r.runId === run)?.viewer).toEqual({ mayApprove: true, mayDeny: true, reason: null, side: "Provider" });
    const approved = await approve(providerAdmin, run);
    expect(approved.status).toBe(200);
    expect((await json(approved)).data.approvals).toMatchObject([{ byUserId: providerAdmin.userId, side: "Provider" }]);
  });

  it("either side may deny it: the customer's Owner ends it", async () => {
    const run = await submitAccountRun(host, northwind, { playbook: "reset-password" });
    const denied = await deny(customerOwner, run);
    expect(denied.status).toBe(200);
    expect((await json(denied)).data).toMatchObject({ status: "Denied", decision: { outcome: "Denied", byUserId: customerOwner.userId } });
  });

  it("with a second approver asked for too, the customer's approval counts once and the provider's must come", async () => {
    await setPolicy({ mode: "AllRuns", requireSecondApproverForAdminPlaybooks: true });
    const run = await submitAccountRun(host, northwind, { playbook: "reset-password" });
    expect(await view(customerOwner, run)).toMatchObject({ requiredApprovals: 2, requiredSides: ["Provider"] });
    expect((await approve(customerOwner, run)).status).toBe(200);
    const second = await approve(customerOwner2, run);
    expect([second.status, (await json(second)).code]).toEqual([403, "FORBIDDEN"]);
    const last = await json(await approve(providerOwner, run));
    expect(last.data).toMatchObject({ awaitingDecision: false, decision: { outcome: "Approved" } });
    expect(last.data.approvals.map((a: Json) => a.side)).toEqual(["Customer", "Provider"]);
  });
});

describe("a run the workspace's own policy made wait", () => {
  it("is approved by the customer's Owner, recorded as the customer's", async () => {
    await setPolicy({ mode: "AllRuns", requireSecondApproverForAdminPlaybooks: false });
    const run = await submitAccountRun(host, northwind);
    expect(await view(customerOwner, run)).toMatchObject({ reasons: [{ code: "WorkspacePolicy" }], requiredSides: [], viewer: { mayApprove: true, side: "Customer" } });
    const approved = await json(await approve(customerOwner, run));
    expect(approved.data).toMatchObject({ decision: { outcome: "Approved" }, approvals: [{ byUserId: customerOwner.userId, side: "Customer" }] });
  });

  it("is approved by the customer's Admin without a workspace role, and by the provider's Owner", async () => {
    for (const person of [customerAdmin, providerOwner]) {
      const run = await submitAccountRun(host, northwind);
      expect((await approve(person, run)).status).toBe(200);
    }
  });

  it("is refused to an Analyst and to a WorkspaceAdmin without the Owner role (403 INSUFFICIENT_WORKSPACE_ROLE)", async () => {
    const run = await submitAccountRun(host, northwind);
    for (const person of [customerAnalyst, providerWorkspaceAdmin]) {
      const refused = await approve(person, run);
      expect([refused.status, (await json(refused)).code]).toEqual([403, "INSUFFICIENT_WORKSPACE_ROLE"]);
    }
    const card = await view(providerWorkspaceAdmin, run);
    expect(card.viewer).toMatchObject({ mayApprove: false, reason: "Approving needs the Owner role on the run's workspace, or the organizational role Admin." });
  });
});

describe("two-sided approval", () => {
  it("needs a workspace of a managed organization: the provider's own workspace has no second side (400)", async () => {
    const own = host.demo.workspaces.find((w) => w.accountId === host.demo.provider.id)!.id;
    const res = await host.portal(providerWorkspaceAdmin, "PUT", `/portal/workspaces/${own}/approval-policy`, { body: { mode: "AllRuns", twoSidedApproval: true } });
    expect([res.status, (await json(res)).target]).toEqual([400, "twoSidedApproval"]);
  });

  it("dispatches a run only once one person of each side approved it, in either order", async () => {
    await setPolicy({ mode: "AllRuns", requireSecondApproverForAdminPlaybooks: false, twoSidedApproval: true });
    expect((await json(await host.portal(customerOwner, "GET", `/portal/workspaces/${northwind}/approval-policy`))).data.twoSidedApproval).toBe(true);
    for (const [first, same, other] of [
      [providerOwner, providerAdmin, customerOwner],
      [customerOwner, customerAdmin, providerOwner],
    ] as const) {
      const run = await submitAccountRun(host, northwind);
      expect(await view(first, run)).toMatchObject({ requiredApprovals: 2, requiredSides: ["Customer", "Provider"], approvalsStillNeeded: 2 });
      const recorded = await json(await approve(first, run));
      expect(recorded.data).toMatchObject({ awaitingDecision: true, approvalsStillNeeded: 1 });
      const sameSide = await approve(same, run);
      expect([sameSide.status, (await json(sameSide)).code]).toEqual([403, "FORBIDDEN"]);
      expect((await view(same, run)).viewer).toMatchObject({ mayApprove: false, mayDeny: true });
      expect((await outboxEvents(host.services, northwind)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === run)).toHaveLength(0);
      const done = await json(await approve(other, run));
      expect(done.data).toMatchObject({ awaitingDecision: false, decision: { outcome: "Approved" } });
      expect(new Set(done.data.approvals.map((a: Json) => a.side))).toEqual(new Set(["Customer", "Provider"]));
      expect((await outboxEvents(host.services, northwind)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === run)).toHaveLength(1);
    }
  });

  it("a denial by either side denies, even after the other side approved", async () => {
    const run = await submitAccountRun(host, northwind);
    expect((await approve(customerOwner, run)).status).toBe(200);
    const denied = await json(await deny(providerOwner, run));
    expect(denied.data).toMatchObject({ status: "Denied", decision: { outcome: "Denied", byUserId: providerOwner.userId } });
  });
});

describe("a request keeps the policy it was made under", () => {
  it("a policy change applies to new requests only, and the card says which policy a request is under", async () => {
    await setPolicy({ mode: "AllRuns", requireSecondApproverForAdminPlaybooks: false, twoSidedApproval: false, approvalTimeoutHours: 24 });
    const before = await submitAccountRun(host, northwind);
    await setPolicy({ mode: "AllRuns", twoSidedApproval: true, approvalTimeoutHours: 2 });
    const after = await submitAccountRun(host, northwind);
    const old = await view(customerOwner, before);
    expect(old).toMatchObject({
      requiredApprovals: 1,
      requiredSides: [],
      timeoutHours: 24,
      policy: { mode: "AllRuns", approvalTimeoutHours: 24, twoSidedApproval: false, requireSecondApproverForAdminPlaybooks: false },
      policyChangedSince: true,
    });
    expect(await view(customerOwner, after)).toMatchObject({ requiredApprovals: 2, requiredSides: ["Customer", "Provider"], timeoutHours: 2, policy: { twoSidedApproval: true }, policyChangedSince: false });
    // The older request is dispatched by one approval, as its own policy said.
    expect((await json(await approve(customerOwner, before))).data).toMatchObject({ awaitingDecision: false, decision: { outcome: "Approved" } });
    // Loosening the policy does not take back the second side the newer one was told it needs.
    await setPolicy({ mode: "AllRuns", twoSidedApproval: false });
    expect((await json(await approve(customerOwner, after))).data).toMatchObject({ awaitingDecision: true, approvalsStillNeeded: 1 });
  });
});
