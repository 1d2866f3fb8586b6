import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import { expireApprovals } from "../../shared/domain/gamebooks/approval-expiry";
import type { GamebookRunRecord } from "../../shared/model/gamebooks/gamebook-run";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { outboxEvents } from "../support/outbox";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

// The host's clock, moved forward by the tests: a request's expiry comes by the clock, not by waiting.
let clock = Date.now();
let host: TestHost;
/** northwind-sentinel-clinics: its own policy approves every run. */
let clinics: string;
let policyBefore: Json;

const HOUR = 3_600_000;
/** Two owners of the workspace who decide in the portal, and the WorkspaceAdmin who sets its policy. */
let priya: TestPerson;
let jonas: TestPerson;
let policyAdmin: TestPerson;

beforeAll(async () => {
  host = await startTestHost({ now: () => new Date(clock), env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  const owner = [{ workspaceId: clinics, role: "Owner" as const }];
  priya = await host.person({ organizationalRole: "Member", workspaceAssignments: owner });
  jonas = await host.person({ organizationalRole: "Member", workspaceAssignments: owner });
  policyAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  policyBefore = (await json(await getPolicy())).data;
});
afterEach(async () => {
  vi.restoreAllMocks();
  await setPolicy(policyBefore);
});
afterAll(async () => {
  await host?.close();
});

// --- helpers -------------------------------------------------------------------------------------

function accountIncident(): VendorIncident {
  for (let i = 0; i < 200; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", clinics, { title: "Suspicious sign-in from TOR exit node", severity: "High" });
    if (incident.entities.some((e) => e.kind === "Account")) return incident;
  }
  throw new Error("no incident with an account");
}

/** Submits one playbook (by its automation name) on the incident's account, as the admin service account. */
async function submit(referenceId: string): Promise<string> {
  const incident = accountIncident();
  const catalogue = await host.services.stores.playbookCatalogues.get(clinics);
  const playbook = catalogue!.playbooks.find((p) => p.referenceId === referenceId)!;
  const entity = incident.entities.find((e) => actsOn(playbook, e))!;
  const res = await host.call("POST", `/workspaces/${clinics}/gamebooks/run`, {
    body: { incidentId: incident.id, incidentTitle: incident.title, source: incident.source, playbooks: [{ id: playbook.id, sequence: 1, entityId: entity.id, parameters: {} }] },
  });
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.data).toMatchObject({ status: "Pending", isQueued: true });
  return body.data.id;
}

async function runOf(runId: string): Promise<GamebookRunRecord> {
  return (await host.services.stores.gamebookRuns.get(clinics, runId))!.value;
}

async function auditsOf(runId: string): Promise<OutboxAuditRecord[]> {
  const records = await host.services.stores.outbox.list(outboxScope.workspace(clinics), 100_000);
  return records.filter((r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.targetResourceId === runId);
}

async function runEvents(runId: string): Promise<Json[]> {
  return (await outboxEvents(host.services, clinics)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === runId);
}

const getPolicy = () => host.portal(policyAdmin, "GET", `/portal/workspaces/${clinics}/approval-policy`);
const setPolicy = (policy: Json) => host.portal(policyAdmin, "PUT", `/portal/workspaces/${clinics}/approval-policy`, { body: policy });

/** A decision in the portal by one of the owners; `text` is the approval's comment or the denial's reason. */
const decide = async (runId: string, action: "approve" | "deny", who: TestPerson, text?: string) => {
  const body = action === "deny" ? { reason: text ?? "Not now." } : text === undefined ? {} : { comment: text };
  const res = await host.portal(who, "POST", `/portal/workspaces/${clinics}/approvals/${runId}/${action}`, { body });
  return { status: res.status, body: await json(res) };
};

/** Where a decided run stands, from the approval request the portal answers with. */
const brief = (view: Json) => ({ id: view.runId, status: view.status, awaitingDecision: view.awaitingDecision });

const sweep = async () => (await json(await host.local("POST", "/gamebooks/expire-approvals"))).data;

// --- the policy ----------------------------------------------------------------------------------

describe("the workspace approval policy", () => {
  it("reads a record that holds only the mode with the defaults, and stores the whole policy", async () => {
    const workspace = (await host.services.stores.workspaces.get(clinics))!;
    await host.services.stores.workspaces.upsert({ ...workspace, gamebookApproval: "AllRuns" });
    expect((await json(await getPolicy())).data).toEqual({
      mode: "AllRuns", approvalTimeoutHours: 24, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: false, twoSidedApproval: false,
    });

    const put = await setPolicy({ mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 8, requireSecondApproverForAdminPlaybooks: true });
    expect(put.status).toBe(200);
    const policy = { mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 8, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: true, twoSidedApproval: false };
    expect((await json(put)).data).toEqual(policy);
    expect((await host.services.stores.workspaces.get(clinics))!.gamebookApproval).toEqual(policy);
    expect((await json(await getPolicy())).data).toEqual(policy);

    for (const bad of [{ mode: "AllRuns", approvalTimeoutHours: 0 }, { mode: "AllRuns", approvalTimeoutHours: 721 }, { mode: "AllRuns", onExpiry: "Approve" }]) {
      expect((await json(await setPolicy(bad))).code, JSON.stringify(bad)).toBe("VALIDATION_ERROR");
    }
  });
});

// --- expiry --------------------------------------------------------------------------------------

describe("approval expiry", () => {
  it("the sweep denies a request past its expiry, as the service, audited like a denial, with no event; nothing runs", async () => {
    await setPolicy({ mode: "AllRuns", approvalTimeoutHours: 2 });
    const submittedAt = clock;
    const runId = await submit("revoke-sessions");
    expect((await runOf(runId)).approval).toMatchObject({ expiresAt: new Date(submittedAt + 2 * HOUR).toISOString(), requiredApprovals: 1, approvals: [] });

    clock += HOUR;
    expect((await sweep()).expired).toEqual([]);
    expect((await runOf(runId)).status).toBe("Pending");

    clock += HOUR;
    const swept = await sweep();
    expect(swept.expired).toContainEqual({ workspaceId: clinics, runId });
    expect(swept.failed).toBe(0);
    const run = await runOf(runId);
    expect([run.status, run.isQueued, run.playbooks.map((p) => p.status)]).toEqual(["Denied", true, ["Skipped"]]);
    expect(run.approval).toMatchObject({ decision: "Denied", decidedBy: "Approval expiry", decidedAt: new Date(clock).toISOString(), comment: "expired after 2 h", expired: true });
    expect(run.summary).toBe("Denied: nobody decided the approval request in time (expired after 2 h); nothing ran.");

    const audits = await auditsOf(runId);
    expect(audits.map((a) => a.audit.activityType)).toEqual(["GamebookRun", "GamebookApproval"]);
    expect(audits[1]!.audit).toMatchObject({ activityAction: "Update", actorName: "Approval expiry", workspaceId: clinics });
    expect(JSON.parse(audits[1]!.audit.metadata)).toMatchObject({ activity: "Deny", comment: "expired after 2 h", expired: true, reasons: ["WorkspacePolicy"] });
    // As with a person's denial: a denied run never had gamebook.run.v1, and the executor never saw it.
    expect(await runEvents(runId)).toEqual([]);
    expect(host.simulated.automation.executions().filter((e) => e.runId === runId)).toEqual([]);

    // Decided once: the next sweep leaves it alone, and a person's decision is a conflict.
    expect((await sweep()).expired).not.toContainEqual({ workspaceId: clinics, runId });
    expect((await decide(runId, "approve", priya)).body.code).toBe("CONFLICT");
  });

  it("an approval after the expiry but before the sweep is 409; the sweep then denies the run", async () => {
    await setPolicy({ mode: "AllRuns", approvalTimeoutHours: 1 });
    const runId = await submit("revoke-sessions");
    clock += HOUR;
    const late = await decide(runId, "approve", priya);
    expect([late.status, late.body.code]).toEqual([409, "CONFLICT"]);
    expect(late.body.detail).toMatch(/expired/);
    expect((await sweep()).expired).toContainEqual({ workspaceId: clinics, runId });
    expect((await runOf(runId)).approval.decision).toBe("Denied");
  });

  it("a run a person approves between the sweep's listing and its denial is skipped, not denied nor an error", async () => {
    await setPolicy({ mode: "AllRuns", approvalTimeoutHours: 1 });
    const runId = await submit("revoke-sessions");
    const runs = host.services.stores.gamebookRuns;
    const listing = await runs.listAwaitingApproval({ workspaceIds: [clinics] }, { limit: 100 });
    expect(listing.items.map((r) => r.id)).toContain(runId);
    expect(brief((await decide(runId, "approve", priya)).body.data)).toEqual({ id: runId, status: "Pending", awaitingDecision: false });

    clock += 2 * HOUR;
    // The sweep lists the run as still waiting (its listing was read before the approval).
    vi.spyOn(runs, "listAwaitingApproval").mockResolvedValueOnce({ items: listing.items.filter((r) => r.id === runId) });
    const swept = await expireApprovals(host.services);
    expect(swept).toEqual({ expired: [], skipped: 1, failed: 0 });
    const run = await runOf(runId);
    expect(run.approval).toMatchObject({ decision: "Approved", decidedBy: priya.name });
    expect(run.isQueued).toBe(false);
    expect(await runEvents(runId)).toHaveLength(1);
  });
});

// --- two people ----------------------------------------------------------------------------------

describe("a second approver", () => {
  it("an admin run needs two different people; the requester may not approve it; the second approval dispatches it", async () => {
    await setPolicy({ mode: "AllRuns", requireSecondApproverForAdminPlaybooks: true });
    const runId = await submit("reset-password");
    expect((await runOf(runId)).approval).toMatchObject({ requiredApprovals: 2 });
    expect((await runOf(runId)).requestedBy).toEqual({ kind: "ServiceAccount", id: host.admin.clientId, name: expect.any(String) });

    const first = await decide(runId, "approve", priya, "Sign-ins checked.");
    expect([first.status, brief(first.body.data)]).toEqual([200, { id: runId, status: "Pending", awaitingDecision: true }]);
    expect(first.body.data).toMatchObject({ approvalsStillNeeded: 1, viewer: { mayApprove: false } });
    expect(await runEvents(runId)).toEqual([]);

    const again = await decide(runId, "approve", priya);
    expect([again.status, again.body.code]).toEqual([409, "CONFLICT"]);

    const second = await decide(runId, "approve", jonas);
    expect(brief(second.body.data)).toEqual({ id: runId, status: "Pending", awaitingDecision: false });
    expect(await runEvents(runId)).toHaveLength(1);
    const run = await runOf(runId);
    expect(run.approval.approvals?.map((a) => [a.by, a.byUserId])).toEqual([
      [priya.name, priya.userId],
      [jonas.name, jonas.userId],
    ]);
    const audits = await auditsOf(runId);
    expect(audits.map((a) => JSON.parse(a.audit.metadata).activity)).toEqual(["Submit", "Approve", "Approve"]);
    expect(JSON.parse(audits[1]!.audit.metadata)).toMatchObject({ approvalsGiven: 1, requiredApprovals: 2, dispatched: false, comment: "Sign-ins checked." });
    expect(JSON.parse(audits[2]!.audit.metadata)).toMatchObject({ approvalsGiven: 2, requiredApprovals: 2, dispatched: true, decidedBy: { userId: jonas.userId, name: jonas.name } });
  });

  it("a denial by anyone after the first approval ends the run; a run without an admin playbook needs one approver", async () => {
    await setPolicy({ mode: "AllRuns", requireSecondApproverForAdminPlaybooks: true });
    const admin = await submit("reset-password");
    await decide(admin, "approve", priya);
    const denied = await decide(admin, "deny", jonas, "Not this account.");
    expect(brief(denied.body.data)).toEqual({ id: admin, status: "Denied", awaitingDecision: false });
    expect(await runEvents(admin)).toEqual([]);

    const plain = await submit("revoke-sessions");
    expect(brief((await decide(plain, "approve", priya)).body.data)).toEqual({ id: plain, status: "Pending", awaitingDecision: false });
  });
});
