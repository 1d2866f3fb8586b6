import { describe, expect, it } from "vitest";
import { ApiError, type ErrorCode } from "../../shared/platform/errors/api-error";
import {
  approvalPolicyInput,
  approvalPolicyOf,
  approvalRequired,
  requiredApprovalsFor,
  type GamebookApprovalPolicy,
} from "../../shared/domain/gamebooks/approval-policy";
import { approvalRequestView } from "../../shared/api/portal/approval-request-view";
import type { GamebookRunRecord, RunRequester } from "../../shared/model/gamebooks/gamebook-run";
import type { CataloguePlaybook, PlaybookCatalogueRecord } from "../../shared/model/gamebooks/playbook-catalogue-record";
import {
  approvalExpiryDecider,
  approvalsNeeded,
  decideApproval,
  requesterOf,
  type ApprovalAction,
  type RunDecider,
} from "../../shared/domain/gamebooks/run-approval-rules";
import { newRunRecord } from "../../shared/domain/gamebooks/run-record";
import type { PlannedPlaybook, RunGamebookRequest } from "../../shared/domain/gamebooks/run-request";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import type { VendorIncident } from "../../shared/model/incidents/incident";

const submittedAt = new Date("2026-03-01T10:00:00.000Z");
const hours = (n: number) => new Date(submittedAt.getTime() + n * 3_600_000);
const ws = "0b5e6a1c-2d3f-4a5b-8c7d-9e0f1a2b3c4d";

const requester: RunRequester = { kind: "User", id: "6f1c2a3b-4d5e-4f60-8a7b-1c2d3e4f5a6b", name: "Sam Requester" };
const priya: RunDecider = { userId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", name: "Priya Natarajan" };
const jonas: RunDecider = { userId: "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e", name: "Jonas Becker" };

const policy = (overrides: Partial<GamebookApprovalPolicy> = {}): GamebookApprovalPolicy => ({
  mode: "AllRuns",
  approvalTimeoutHours: 24,
  onExpiry: "Deny",
  requireSecondApproverForAdminPlaybooks: false,
  twoSidedApproval: false,
  ...overrides,
});
const workspace = (p: GamebookApprovalPolicy = policy()): WorkspaceRecord => ({ id: ws, name: "northwind-sentinel-clinics", tenantId: "t-1", accountId: "acct-1", gamebookApproval: p });

function playbook(id: string, overrides: Partial<CataloguePlaybook>): CataloguePlaybook {
  return {
    id, workspaceId: ws, referenceId: id, name: id, description: "", entityType: "User", action: "automation",
    isAdminRequired: false, isRecommended: true, recoverPlaybookId: null, parameters: [], ...overrides,
  };
}

const resetPassword = playbook("pb-reset", {
  name: "Reset user password", description: "Forces a new password at next sign-in.", isAdminRequired: true,
  parameters: [{ name: "notifyUser", kind: "boolean", description: "Tell the user by email.", required: false, default: true }],
});
const disableAccount = playbook("pb-disable", { name: "Disable account", isAdminRequired: true, recoverPlaybookId: "pb-enable" });
const enableAccount = playbook("pb-enable", { name: "Re-enable account", isRecommended: false });
const isolateHost = playbook("pb-isolate", { name: "Isolate host", entityType: "Host" });
const addComment = playbook("pb-comment", {
  name: "Add a comment", entityType: "Incident", action: "incident.comment",
  parameters: [{ name: "message", kind: "string", description: "The comment's text.", required: true, maxLength: 4000 }],
});
const catalogue: PlaybookCatalogueRecord = {
  id: "playbook-catalogue", workspaceId: ws, updatedAt: "",
  playbooks: [resetPassword, disableAccount, enableAccount, isolateHost, addComment],
  gamebooks: [],
  rules: [
    { workspaceId: ws, incidentTitle: "*sign-in*", playbookId: "pb-disable" },
    { workspaceId: ws, incidentTitle: "Suspicious sign-in from *", playbookId: "pb-reset" },
    { workspaceId: ws, incidentTitle: "Suspicious sign-in from *", playbookId: "pb-comment" },
  ],
};
const incident: VendorIncident = {
  id: "inc-42", source: "SourceA", workspaceId: ws, number: 42, title: "Suspicious sign-in from TOR exit node",
  description: "", severity: "High", status: "Active", classification: null, closingComment: null, owner: null,
  createdAt: submittedAt.toISOString(), lastModificationTime: submittedAt.toISOString(), lastActivityTime: submittedAt.toISOString(),
  entities: [
    { id: "ent-ann", kind: "Account", name: "ann@contoso.com", properties: { upn: "ann@contoso.com", directoryObjectId: "d0d0d0d0-1111-4222-8333-444455556666" } },
    { id: "ent-ws7", kind: "Host", name: "CON-WS-007", properties: {} },
  ],
  alerts: [], gamebookCatalog: {}, vendorIdentifiers: {},
} as unknown as VendorIncident;

type Step = { playbook: CataloguePlaybook; entityId: string; parameters?: Record<string, string | number | boolean> };

/** A run submitted at `submittedAt` under `p`, waiting for approval (or not, when `required` is false). */
function run(steps: Step[], p: GamebookApprovalPolicy = policy(), required = true): GamebookRunRecord {
  const planned: PlannedPlaybook[] = steps.map((s, i) => ({
    sequence: i + 1,
    playbook: s.playbook,
    entity: incident.entities.find((e) => e.id === s.entityId) ?? null,
    parameters: s.parameters ?? {},
  }));
  const request = { incidentId: incident.id, incidentTitle: incident.title, source: "SourceA", playbooks: [], isQueued: false } as unknown as RunGamebookRequest;
  return newRunRecord({
    id: "run-1", tracingId: "trace-1", now: submittedAt, workspace: workspace(p), incident, request, planned, catalogue,
    submitter: { origin: "portal", serviceAccountId: null, name: requester.name, accountId: "acct-1" },
    requestedBy: requester,
    approval: { required, reasons: required ? ["WorkspacePolicy"] : [] },
    policy: p,
    isAutoRun: false,
  });
}

const plainRun = () => run([{ playbook: isolateHost, entityId: "ent-ws7" }]);
const adminRun = (p = policy({ requireSecondApproverForAdminPlaybooks: true })) =>
  run([{ playbook: resetPassword, entityId: "ent-ann", parameters: { notifyUser: false } }, { playbook: addComment, entityId: "inc-42", parameters: { message: "Reset." } }], p);

const approve = (by: RunDecider, comment: string | null = null): ApprovalAction => ({ kind: "Approve", by, comment });
const deny = (by: RunDecider, comment: string | null = null): ApprovalAction => ({ kind: "Deny", by, comment });

function refused(code: ErrorCode, fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(code);
    return error as ApiError;
  }
  throw new Error(`expected ${code}`);
}

describe("the workspace approval policy", () => {
  it("reads a workspace without a policy as NoApproval with the defaults", () => {
    expect(approvalPolicyOf({})).toEqual({ mode: "NoApproval", approvalTimeoutHours: 24, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: false, twoSidedApproval: false });
  });

  it("reads a record that holds the mode alone (stored before the policy had more) with the defaults", () => {
    expect(approvalPolicyOf({ gamebookApproval: "AllRuns" })).toEqual({ mode: "AllRuns", approvalTimeoutHours: 24, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: false, twoSidedApproval: false });
  });

  it("keeps what a stored policy says and fills in only what it lacks", () => {
    expect(approvalPolicyOf({ gamebookApproval: { mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 4 } })).toEqual({
      mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 4, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: false, twoSidedApproval: false,
    });
    expect(approvalPolicyOf({ gamebookApproval: policy({ approvalTimeoutHours: 720, requireSecondApproverForAdminPlaybooks: true }) })).toEqual(
      policy({ approvalTimeoutHours: 720, requireSecondApproverForAdminPlaybooks: true }),
    );
  });

  it("reads a timeout outside 1..720 hours as the default, and a mode it does not know as AllRuns", () => {
    for (const approvalTimeoutHours of [0, 721, 2.5, Number.NaN]) {
      expect(approvalPolicyOf({ gamebookApproval: { mode: "AllRuns", approvalTimeoutHours } }).approvalTimeoutHours).toBe(24);
    }
    expect(approvalPolicyOf({ gamebookApproval: "Sometimes" as never }).mode).toBe("AllRuns");
  });

  it("accepts a settings page's body with the mode alone (the other settings then stay as they are), and refuses timeouts outside 1..720 and other expiry actions", () => {
    expect(approvalPolicyInput.parse({ mode: "AllRuns" })).toEqual({ mode: "AllRuns" });
    expect(approvalPolicyInput.parse({ mode: "NoApproval", approvalTimeoutHours: 1, requireSecondApproverForAdminPlaybooks: true })).toEqual({
      mode: "NoApproval",
      approvalTimeoutHours: 1,
      requireSecondApproverForAdminPlaybooks: true,
    });
    for (const bad of [{ mode: "AllRuns", approvalTimeoutHours: 0 }, { mode: "AllRuns", approvalTimeoutHours: 721 }, { mode: "AllRuns", approvalTimeoutHours: 1.5 }, { mode: "AllRuns", onExpiry: "Approve" }, { mode: "AllRuns", extra: 1 }]) {
      expect(approvalPolicyInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("asks for a second approver only for runs with an admin playbook, and only when the policy says so", () => {
    const admin = [{ isAdminRequired: false }, { isAdminRequired: true }];
    expect(requiredApprovalsFor(policy({ requireSecondApproverForAdminPlaybooks: true }), admin)).toBe(2);
    expect(requiredApprovalsFor(policy({ requireSecondApproverForAdminPlaybooks: true }), [{ isAdminRequired: false }])).toBe(1);
    expect(requiredApprovalsFor(policy(), admin)).toBe(1);
  });

  it("decides whether a run waits by the policy's mode, as before", () => {
    const forApproval = { accountId: "acct-1", managedByAccountId: null, playbooks: [{ isAdminRequired: true }], isQueued: false };
    expect(approvalRequired(forApproval, approvalPolicyOf({ gamebookApproval: "AdminRequiredPlaybooks" }).mode, null).required).toBe(true);
    expect(approvalRequired(forApproval, approvalPolicyOf({}).mode, null).required).toBe(false);
  });
});

describe("a waiting run's record", () => {
  it("keeps its terms from the policy at submission: when it expires, how many must approve, who asked, the rule", () => {
    const waiting = adminRun(policy({ approvalTimeoutHours: 8, requireSecondApproverForAdminPlaybooks: true }));
    expect(waiting.approval).toMatchObject({ expiresAt: hours(8).toISOString(), requiredApprovals: 2, approvals: [], decision: null });
    expect(waiting.requestedBy).toEqual(requester);
    // The most specific matching pattern that recommends one of the run's playbooks, with every run playbook it recommends.
    expect(waiting.matchedRule).toEqual({ incidentTitle: "Suspicious sign-in from *", playbookIds: ["pb-reset", "pb-comment"] });
    expect(run([{ playbook: isolateHost, entityId: "ent-ws7" }]).matchedRule).toBeNull();
    const dispatched = run([{ playbook: isolateHost, entityId: "ent-ws7" }], policy(), false);
    expect(dispatched.approval).toMatchObject({ expiresAt: null, requiredApprovals: 0 });
  });

  it("reads the requester of runs stored before it was kept from their submitter", () => {
    const { requestedBy: _requestedBy, ...older } = plainRun();
    expect(requesterOf({ ...older, submitter: { origin: "api", serviceAccountId: "sa-9", name: "SOAR connector", accountId: "acct-1" } })).toEqual({
      kind: "ServiceAccount", id: "sa-9", name: "SOAR connector",
    });
    expect(requesterOf({ ...older, submitter: { origin: "portal", serviceAccountId: null, name: "Automation rule", accountId: "acct-1" }, triggedByUserId: "guid-1" })).toEqual({
      kind: "Service", id: "guid-1", name: "Automation rule",
    });
  });
});

describe("deciding a run", () => {
  it("one approval dispatches a run that needs one: no longer queued, approved by that person", () => {
    const { run: approved, outcome } = decideApproval(plainRun(), approve(priya, "Go ahead."), hours(1));
    expect(outcome).toBe("Approved");
    expect(approved).toMatchObject({ status: "Pending", isQueued: false, dispatchedAt: hours(1).toISOString() });
    expect(approved.approval).toMatchObject({
      decision: "Approved", decidedBy: "Priya Natarajan", decidedByUserId: priya.userId, decidedAt: hours(1).toISOString(), comment: "Go ahead.",
      approvals: [{ by: "Priya Natarajan", byUserId: priya.userId, at: hours(1).toISOString(), comment: "Go ahead." }], requiredApprovals: 1,
    });
  });

  it("the requester may never approve their own run (403), whatever the case of the id; they may deny it", () => {
    const error = refused("FORBIDDEN", () => decideApproval(plainRun(), approve({ userId: requester.id.toUpperCase(), name: requester.name }), hours(1)));
    expect(error.message).toMatch(/requested .* cannot approve it/);
    const { run: denied, outcome } = decideApproval(plainRun(), deny({ userId: requester.id, name: requester.name }, "Wrong incident."), hours(1));
    expect([outcome, denied.status, denied.approval.decision]).toEqual(["Denied", "Denied", "Denied"]);
  });

  it("two people: the first approval is recorded and the run keeps waiting; the same person again is 409; a second person dispatches it", () => {
    const first = decideApproval(adminRun(), approve(priya, "Checked the sign-ins."), hours(1));
    expect(first.outcome).toBe("ApprovalRecorded");
    expect(first.run).toMatchObject({ status: "Pending", isQueued: true, dispatchedAt: "" });
    expect(first.run.approval).toMatchObject({ decision: null, decidedBy: null, requiredApprovals: 2 });
    expect(first.run.approval.approvals).toEqual([{ by: "Priya Natarajan", byUserId: priya.userId, at: hours(1).toISOString(), comment: "Checked the sign-ins." }]);
    expect(first.run.summary).toMatch(/1 of 2 approvals given/);

    expect(refused("CONFLICT", () => decideApproval(first.run, approve(priya), hours(2))).message).toMatch(/already approved/);
    refused("FORBIDDEN", () => decideApproval(first.run, approve({ userId: requester.id, name: requester.name }), hours(2)));

    const second = decideApproval(first.run, approve(jonas), hours(2));
    expect(second.outcome).toBe("Approved");
    expect(second.run).toMatchObject({ isQueued: false, dispatchedAt: hours(2).toISOString() });
    expect(second.run.approval).toMatchObject({ decision: "Approved", decidedBy: "Jonas Becker", decidedByUserId: jonas.userId });
    expect(second.run.approval.approvals?.map((a) => a.by)).toEqual(["Priya Natarajan", "Jonas Becker"]);
  });

  it("a denial by anyone ends a run that had one of its two approvals", () => {
    const first = decideApproval(adminRun(), approve(priya), hours(1));
    const { run: denied } = decideApproval(first.run, deny(jonas, "Not this account."), hours(2));
    expect(denied.status).toBe("Denied");
    expect(denied.playbooks.map((p) => p.status)).toEqual(["Skipped", "Skipped"]);
    expect(denied.approval).toMatchObject({ decision: "Denied", decidedBy: "Jonas Becker", comment: "Not this account.", approvals: [{ by: "Priya Natarajan" }] });
  });

  it("a run not waiting is 409 for every decision", () => {
    const { run: approved } = decideApproval(plainRun(), approve(priya), hours(1));
    for (const action of [approve(jonas), deny(jonas), { kind: "Expire", by: approvalExpiryDecider } as const]) {
      refused("CONFLICT", () => decideApproval(approved, action, hours(30)));
    }
  });

  it("a waiting run keeps the terms of the policy it was made under: neither tightening nor loosening the policy reaches it", () => {
    const waitingForOne = adminRun(policy());
    expect(waitingForOne.approval.policy).toEqual(policy());
    expect(approvalsNeeded(waitingForOne)).toBe(1);
    expect(decideApproval(waitingForOne, approve(priya), hours(1)).outcome).toBe("Approved");
    const waitingForTwo = adminRun();
    expect(approvalsNeeded(waitingForTwo)).toBe(2);
    expect(decideApproval(waitingForTwo, approve(priya), hours(1)).outcome).toBe("ApprovalRecorded");
  });

  it("a run stored before approvals had terms waits for one approver and never expires", () => {
    const waiting = plainRun();
    const older = { ...waiting, approval: { reasons: waiting.approval.reasons, decision: null, decidedBy: null, decidedAt: null, comment: null } };
    refused("CONFLICT", () => decideApproval(older, { kind: "Expire", by: approvalExpiryDecider }, hours(10_000)));
    const { run: approved, outcome } = decideApproval(older, approve(priya), hours(10_000));
    expect(outcome).toBe("Approved");
    expect(approved.approval).toMatchObject({ expiresAt: null, requiredApprovals: 1, approvals: [{ by: "Priya Natarajan" }] });
  });
});

describe("expiry", () => {
  it("denies a request at its expiry, as the service, with the reason and the run's playbooks skipped", () => {
    const waiting = run([{ playbook: isolateHost, entityId: "ent-ws7" }], policy({ approvalTimeoutHours: 6 }));
    refused("CONFLICT", () => decideApproval(waiting, { kind: "Expire", by: approvalExpiryDecider }, new Date(hours(6).getTime() - 1)));
    const { run: expired, outcome } = decideApproval(waiting, { kind: "Expire", by: approvalExpiryDecider }, hours(6));
    expect(outcome).toBe("Expired");
    expect(expired.status).toBe("Denied");
    expect(expired.playbooks.map((p) => p.status)).toEqual(["Skipped"]);
    expect(expired.approval).toMatchObject({
      decision: "Denied", decidedBy: "Approval expiry", decidedByUserId: approvalExpiryDecider.userId, decidedAt: hours(6).toISOString(),
      comment: "expired after 6 h", expired: true,
    });
    expect(expired.summary).toBe("Denied: nobody decided the approval request in time (expired after 6 h); nothing ran.");
  });

  it("an approval after the expiry is 409, even before the sweep has denied the run", () => {
    const error = refused("CONFLICT", () => decideApproval(plainRun(), approve(priya), hours(24)));
    expect(error.message).toMatch(/expired/);
    expect(decideApproval(plainRun(), deny(priya), hours(25)).outcome).toBe("Denied");
  });
});

describe("approvalRequestView", () => {
  it("shows what approving will do: the playbooks in order with their parameters, the entities, the incident, the rule, the requester and the terms", () => {
    const twoPerson = policy({ requireSecondApproverForAdminPlaybooks: true });
    const waiting = run(
      [
        { playbook: resetPassword, entityId: "ent-ann", parameters: { notifyUser: false } },
        { playbook: disableAccount, entityId: "ent-ann" },
        { playbook: isolateHost, entityId: "ent-ws7" },
        { playbook: addComment, entityId: "inc-42", parameters: { message: "Contained." } },
      ],
      twoPerson,
    );
    const { run: once } = decideApproval(waiting, approve(priya, "Sign-ins checked."), hours(1));
    const view = approvalRequestView(once, workspace(twoPerson), catalogue);
    expect(view).toMatchObject({
      runId: "run-1",
      workspace: { id: ws, name: "northwind-sentinel-clinics" },
      status: "Pending",
      awaitingDecision: true,
      incident: { id: "inc-42", source: "SourceA", number: 42, title: "Suspicious sign-in from TOR exit node" },
      matchedRule: { incidentTitle: "Suspicious sign-in from *", playbookIds: ["pb-reset", "pb-comment"] },
      requestedBy: requester,
      requestedAt: submittedAt.toISOString(),
      expiresAt: hours(24).toISOString(),
      timeoutHours: 24,
      reasons: [{ code: "WorkspacePolicy", text: "The workspace's approval policy requires it." }],
      isAdminRequired: true,
      approvals: [{ by: "Priya Natarajan", byUserId: priya.userId, at: hours(1).toISOString(), comment: "Sign-ins checked." }],
      requiredApprovals: 2,
      approvalsStillNeeded: 1,
      decision: null,
    });
    expect(view.playbooks.map((p) => [p.sequence, p.name, p.affectedEntity, p.isAdminRequired, p.recommendedByRule])).toEqual([
      [1, "Reset user password", "ann@contoso.com", true, true],
      [2, "Disable account", "ann@contoso.com", true, false],
      [3, "Isolate host", "CON-WS-007", false, false],
      [4, "Add a comment", "SourceA incident 42", false, true],
    ]);
    expect(view.playbooks[0]!.parameters).toEqual([{ name: "notifyUser", value: false, description: "Tell the user by email." }]);
    expect(view.playbooks[1]!.undoneBy).toEqual({ playbookId: "pb-enable", name: "Re-enable account" });
    expect(view.playbooks[3]!.parameters).toEqual([{ name: "message", value: "Contained.", description: "The comment's text." }]);
    expect(view.entities).toEqual([
      { entityId: "ent-ann", entityType: "User", name: "ann@contoso.com", userPrincipalName: "ann@contoso.com", userObjectId: "d0d0d0d0-1111-4222-8333-444455556666", playbooks: [1, 2] },
      { entityId: "ent-ws7", entityType: "Host", name: "CON-WS-007", userPrincipalName: null, userObjectId: null, playbooks: [3] },
    ]);
  });

  it("works without the catalogue, and shows a decided run's decision with nothing still needed", () => {
    const { run: expired } = decideApproval(plainRun(), { kind: "Expire", by: approvalExpiryDecider }, hours(24));
    const view = approvalRequestView(expired, workspace());
    expect(view.playbooks[0]).toMatchObject({ parameters: [], undoneBy: null, recommendedByRule: false });
    expect(view).toMatchObject({
      awaitingDecision: false,
      approvalsStillNeeded: 0,
      matchedRule: null,
      decision: { outcome: "Denied", by: "Approval expiry", comment: "expired after 24 h", expired: true, at: hours(24).toISOString() },
    });
  });
});
