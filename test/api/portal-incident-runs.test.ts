import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import type { GamebookRunRecord } from "../../shared/model/gamebooks/gamebook-run";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { Entity, VendorIncident } from "../../shared/model/incidents/incident";
import type { PlaybookStepRequest } from "../../shared/systems/playbook-automation/port";
import { outboxEvents } from "../support/outbox";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

/*
 * Running playbooks from an incident in the portal, as an analyst does it: what can run, whether it
 * would wait, the run itself, retry, cancel and undo. Each is the domain's one write path, audited
 * with the person as actor; `gamebook.run.v1` goes out only at dispatch. Runs on both stores.
 */

let host: TestHost;
let fabrikam: string;
let clinics: string;
let analyst: TestPerson;
let owner: TestPerson;
let reader: TestPerson;

beforeAll(async () => {
  host = await startTestHost({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  fabrikam = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  // Its policy makes every run wait for approval.
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  const both = (role: "Analyst" | "Owner") => [fabrikam, clinics].map((workspaceId) => ({ workspaceId, role }));
  analyst = await host.person({ organizationalRole: "Member", workspaceAssignments: both("Analyst") });
  owner = await host.person({ organizationalRole: "Member", workspaceAssignments: both("Owner") });
  // Sees every workspace through an organization-wide role, holds no role on them: reads, never acts.
  reader = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
afterAll(() => host?.close());
afterEach(() => {
  vi.restoreAllMocks();
  for (const reference of ["reset-password", "disable-account", "enable-account", "isolate-host", "release-host", "block-ip", "unblock-ip"]) host.simulated.automation.setOutcome(reference, undefined);
});

const incidentPath = (incident: VendorIncident) => `/portal/workspaces/${incident.workspaceId}/incidents/${incident.source}/${incident.id}`;
const runPath = (workspaceId: string, runId: string) => `/portal/workspaces/${workspaceId}/gamebook-runs/${runId}`;

/** A new SourceA incident of the workspace whose entities include each of these kinds (a public address for `Ip`). */
function incidentWith(workspaceId: string, title: string, kinds: readonly Entity["kind"][]): VendorIncident {
  for (let i = 0; i < 500; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", workspaceId, { title, severity: "High" });
    const fits = kinds.every((kind) => incident.entities.some((e) => e.kind === kind && (kind !== "Ip" || e.properties.isPrivate === false)));
    if (fits) return incident;
  }
  throw new Error(`no incident with ${kinds.join(", ")}`);
}

async function playbookId(workspaceId: string, referenceId: string): Promise<string> {
  const catalogue = (await host.services.stores.playbookCatalogues.get(workspaceId))!;
  return catalogue.playbooks.find((p) => p.referenceId === referenceId)!.id;
}

/** The entity of the incident the playbook acts on (a public address for an Ip playbook). */
async function entityFor(incident: VendorIncident, referenceId: string): Promise<string> {
  const catalogue = (await host.services.stores.playbookCatalogues.get(incident.workspaceId))!;
  const playbook = catalogue.playbooks.find((p) => p.referenceId === referenceId)!;
  if (playbook.entityType === "Incident") return incident.id;
  return incident.entities.find((e) => actsOn(playbook, e) && (e.kind !== "Ip" || e.properties.isPrivate === false))!.id;
}

async function body(incident: VendorIncident, references: readonly string[], extra: Json = {}): Promise<Json> {
  const playbooks = [];
  for (const [i, reference] of references.entries()) {
    playbooks.push({ id: await playbookId(incident.workspaceId, reference), sequence: i + 1, entityId: await entityFor(incident, reference), parameters: reference === "add-comment" ? { message: "From the portal." } : {} });
  }
  return { playbooks, ...extra };
}

async function runAs(person: TestPerson, incident: VendorIncident, references: readonly string[], extra: Json = {}): Promise<Json> {
  const res = await host.portal(person, "POST", `${incidentPath(incident)}/runs`, { body: await body(incident, references, extra) });
  const answer = await json(res);
  if (res.status !== 201) throw new Error(`run refused: ${res.status} ${JSON.stringify(answer)}`);
  expect(res.headers.get("location")).toBe(`${new URL(host.base).origin}/api/v2${runPath(incident.workspaceId, answer.data.id)}`);
  return answer.data;
}

async function stored(workspaceId: string, runId: string): Promise<GamebookRunRecord> {
  return (await host.services.stores.gamebookRuns.get(workspaceId, runId))!.value;
}

const FINAL = ["Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"];
const ended = (workspaceId: string, runId: string) =>
  waitFor(async () => {
    const run = await stored(workspaceId, runId);
    return FINAL.includes(run.status) ? run : undefined;
  }, `run ${runId} to end`);

const runEvents = async (workspaceId: string, runId: string) => (await outboxEvents(host.services, workspaceId)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === runId);

async function audits(workspaceId: string, runId: string): Promise<OutboxAuditRecord["audit"][]> {
  const records = await host.services.stores.outbox.list(outboxScope.workspace(workspaceId), 100_000);
  return records.filter((r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.targetResourceId === runId).map((r) => r.audit);
}
const activity = (audit: OutboxAuditRecord["audit"]) => JSON.parse(audit.metadata).activity as string;

describe("what can run on an incident", () => {
  it("lists the catalogue's playbooks recommended first, each with the incident's entities of its kind, its parameters and its undo playbook", async () => {
    const incident = incidentWith(fabrikam, "Impossible travel activity for someone@fabrikam.example", ["Account", "Ip"]);
    const res = await host.portal(reader, "GET", `${incidentPath(incident)}/playbooks`);
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.incident).toMatchObject({ id: incident.id, source: "SourceA", title: incident.title });
    const names = data.playbooks.map((p: Json) => p.referenceId);
    // The rule for this title recommends four playbooks, in its order; the rest follow.
    expect(names.slice(0, 4)).toEqual(["revoke-sessions", "reset-password", "block-ip", "notify-owner"]);
    expect(data.playbooks.slice(0, 4).every((p: Json) => p.recommended && p.recommendedBy.rules.includes("Impossible travel activity for *"))).toBe(true);
    const revoke = data.playbooks[0];
    const accounts = incident.entities.filter((e) => e.kind === "Account").map((e) => e.id);
    expect(revoke.entities.map((e: Json) => e.entityId)).toEqual(accounts);
    const block = data.playbooks.find((p: Json) => p.referenceId === "block-ip");
    expect(block.parameters).toEqual([expect.objectContaining({ name: "expiresInHours", kind: "integer", required: false })]);
    expect(block.undoPlaybook).toMatchObject({ name: "Unblock IP address" });
    const comment = data.playbooks.find((p: Json) => p.referenceId === "add-comment");
    expect(comment.entities).toEqual([{ entityId: incident.id, kind: "Incident", name: `SourceA incident ${incident.number}` }]);
    expect(data.gamebooks.map((g: Json) => g.title)).toContain("Contain a compromised account");
  });

  it("leaves out a playbook switched off in the catalogue, and is 404 for an incident the source does not have", async () => {
    const editor = await host.person({ organizationalRole: "OrgContentAdmin", workspaceAssignments: [{ workspaceId: clinics, role: "Analyst" }] });
    const catalogue = (await host.services.stores.playbookCatalogues.get(clinics))!;
    const quarantine = catalogue.playbooks.find((p) => p.referenceId === "quarantine-file")!;
    const { id: _id, workspaceId: _ws, ...entry } = quarantine;
    expect((await host.portal(editor, "PUT", `/portal/workspaces/${clinics}/playbooks/${quarantine.id}`, { body: { ...entry, enabled: false } })).status).toBe(200);
    const incident = incidentWith(clinics, "Malware detected on CLN-WS-1", ["Host"]);
    const { data } = await json(await host.portal(analyst, "GET", `${incidentPath(incident)}/playbooks`));
    expect(data.playbooks.map((p: Json) => p.referenceId)).not.toContain("quarantine-file");
    expect((await host.portal(editor, "PUT", `/portal/workspaces/${clinics}/playbooks/${quarantine.id}`, { body: { ...entry, enabled: true } })).status).toBe(200);
    const missing = await host.portal(analyst, "GET", `/portal/workspaces/${clinics}/incidents/SourceA/no-such-incident/playbooks`);
    expect([missing.status, (await json(missing)).code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("the preview", () => {
  it("says whether the run would wait for approval, why, how many must approve and when the request would expire", async () => {
    const atOnce = incidentWith(fabrikam, "Impossible travel activity for a@fabrikam.example", ["Account"]);
    const now = await json(await host.portal(analyst, "POST", `${incidentPath(atOnce)}/runs/preview`, { body: await body(atOnce, ["revoke-sessions"]) }));
    expect(now.data).toMatchObject({ awaitsApproval: false, reasons: [], requiredApprovals: 0, expiresAt: null });
    const asked = await json(await host.portal(analyst, "POST", `${incidentPath(atOnce)}/runs/preview`, { body: await body(atOnce, ["revoke-sessions"], { isQueued: true }) }));
    expect(asked.data).toMatchObject({ awaitsApproval: true, reasons: [{ code: "RequestedByCaller" }], requiredApprovals: 1, timeoutHours: 24 });

    const waits = incidentWith(clinics, "Impossible travel activity for b@northwind.example", ["Account"]);
    const res = await host.portal(analyst, "POST", `${incidentPath(waits)}/runs/preview`, { body: await body(waits, ["reset-password", "add-comment"]) });
    const { data } = await json(res);
    expect(data).toMatchObject({ awaitsApproval: true, requiredApprovals: 1, isAdminRequired: true, timeoutHours: 24 });
    expect(data.reasons.map((r: Json) => r.code)).toEqual(["WorkspacePolicy", "PartnerApproval"]);
    expect(data.reasons[0].text).toBe("The workspace's approval policy requires it.");
    expect(Date.parse(data.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(data.playbooks.map((p: Json) => [p.sequence, p.name])).toEqual([
      [1, "Reset user password"],
      [2, "Add incident comment"],
    ]);
    // Nothing was stored.
    expect(await host.services.stores.gamebookRuns.listForIncident(clinics, waits.id, "SourceA", 10)).toEqual([]);
  });

  it("refuses what the submission would refuse, with the same problem", async () => {
    const incident = incidentWith(fabrikam, "Impossible travel activity for c@fabrikam.example", ["Account"]);
    const wrong = await body(incident, ["revoke-sessions"]);
    wrong.playbooks[0].entityId = incident.id;
    wrong.playbooks.push({ id: "not-a-playbook", sequence: 3, entityId: incident.id, parameters: {} });
    const preview = await json(await host.portal(analyst, "POST", `${incidentPath(incident)}/runs/preview`, { body: wrong }));
    const submit = await json(await host.portal(analyst, "POST", `${incidentPath(incident)}/runs`, { body: wrong }));
    expect(preview.code).toBe("VALIDATION_ERROR");
    expect(preview.errors).toEqual(submit.errors);
    expect(Object.keys(preview.errors).sort()).toEqual(["playbooks", "playbooks[1].sequence"]);
    const fixed = { playbooks: [wrong.playbooks[0], { ...wrong.playbooks[1], sequence: 2 }] };
    const planned = await json(await host.portal(analyst, "POST", `${incidentPath(incident)}/runs/preview`, { body: fixed }));
    expect(Object.keys(planned.errors).sort()).toEqual(["playbooks[0].entityId", "playbooks[1].id"]);
  });
});

describe("a person's run", () => {
  it("is the person's: their user id as triggedByUserId and their name, audited with them as actor, dispatched with gamebook.run.v1 at once where no approval is needed", async () => {
    const incident = incidentWith(fabrikam, "Impossible travel activity for d@fabrikam.example", ["Account"]);
    const run = await runAs(analyst, incident, ["revoke-sessions", "add-comment"]);
    expect(run).toMatchObject({ awaitingApproval: false, requestedBy: { kind: "User", id: analyst.userId, name: analyst.name }, approval: null, dispatchedAt: expect.any(String) });
    expect(run.steps.map((s: Json) => s.name)).toEqual(["Revoke user sessions", "Add incident comment"]);
    // The contract's records name the person.
    const contract = await json(await host.call("GET", `/workspaces/${fabrikam}/gamebooks/by-incident/${incident.id}`));
    expect(contract.data[0]).toMatchObject({ id: run.id, triggedByUserId: analyst.userId, displayName: analyst.name, isAutoRun: false, isRetryGamebook: false });
    const [audit] = await audits(fabrikam, run.id);
    expect([audit!.actorId, audit!.actorName, activity(audit!)]).toEqual([analyst.userId, analyst.name, "Submit"]);
    expect(await runEvents(fabrikam, run.id)).toHaveLength(1);
    expect((await ended(fabrikam, run.id)).status).toBe("Succeeded");
    const view = await json(await host.portal(analyst, "GET", runPath(fabrikam, run.id)));
    expect(view.data.steps.map((s: Json) => s.status)).toEqual(["Succeeded", "Succeeded"]);
  });

  it("waits where the policy says, with no gamebook.run.v1; its requester may not approve it, another owner does, and it is dispatched then", async () => {
    const incident = incidentWith(clinics, "Impossible travel activity for e@northwind.example", ["Account"]);
    const run = await runAs(owner, incident, ["revoke-sessions"]);
    expect(run).toMatchObject({ awaitingApproval: true, approval: { reasons: [{ code: "WorkspacePolicy" }], approvals: [], approvalsStillNeeded: 1, decision: null } });
    expect(await runEvents(clinics, run.id)).toEqual([]);
    const own = await host.portal(owner, "POST", `/portal/workspaces/${clinics}/approvals/${run.id}/approve`, { body: {} });
    expect([own.status, (await json(own)).code]).toEqual([403, "FORBIDDEN"]);
    const other = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: clinics, role: "Owner" }] });
    expect((await host.portal(other, "POST", `/portal/workspaces/${clinics}/approvals/${run.id}/approve`, { body: { comment: "Go." } })).status).toBe(200);
    expect(await runEvents(clinics, run.id)).toHaveLength(1);
    await ended(clinics, run.id);
    const { data } = await json(await host.portal(analyst, "GET", incidentPath(incident)));
    expect(data.runs[0]).toMatchObject({ id: run.id, approval: { decision: { outcome: "Approved", by: other.name, comment: "Go." } } });
  });

  it("needs the Analyst or Owner role on the workspace: one who only reads sees the runs and why they may not act, and is refused", async () => {
    const incident = incidentWith(fabrikam, "Impossible travel activity for f@fabrikam.example", ["Account"]);
    const run = await runAs(analyst, incident, ["revoke-sessions"]);
    await ended(fabrikam, run.id);
    const { data } = await json(await host.portal(reader, "GET", incidentPath(incident)));
    expect(data.runs[0].actions.cancel).toEqual({ allowed: false, reason: "Needs the Analyst or Owner role on this workspace." });
    for (const [path, payload] of [
      [`${incidentPath(incident)}/runs`, await body(incident, ["revoke-sessions"])],
      [`${incidentPath(incident)}/runs/preview`, await body(incident, ["revoke-sessions"])],
      [`${runPath(fabrikam, run.id)}/cancel`, {}],
      [`${runPath(fabrikam, run.id)}/retry`, undefined],
      [`${runPath(fabrikam, run.id)}/undo`, {}],
    ] as const) {
      const res = await host.portal(reader, "POST", path, { body: payload });
      expect([path, res.status, (await json(res)).code]).toEqual([path, 403, "INSUFFICIENT_WORKSPACE_ROLE"]);
    }
  });

  it("service accounts cannot reach it, nor retry or cancel through the contract's run body", async () => {
    const incident = incidentWith(fabrikam, "Impossible travel activity for g@fabrikam.example", ["Account"]);
    const res = await host.call("POST", `${incidentPath(incident)}/runs`, { body: await body(incident, ["revoke-sessions"]) });
    expect([res.status, (await json(res)).code]).toEqual([403, "FORBIDDEN"]);
    const strict = await host.call("POST", `/workspaces/${fabrikam}/gamebooks/run`, {
      body: { incidentId: incident.id, incidentTitle: incident.title, source: "SourceA", ...(await body(incident, ["revoke-sessions"])), isRetryGamebook: true },
    });
    expect([strict.status, Object.keys((await json(strict)).errors)]).toEqual([400, ["isRetryGamebook"]]);
  });
});

describe("retry", () => {
  it("runs the failed and skipped playbooks again as a new run, resequenced, isRetryGamebook, linked both ways, audited with the person", async () => {
    host.simulated.automation.setOutcome("reset-password", { status: "Failed", errorMessage: "The account is synchronised from on-premises." });
    const incident = incidentWith(fabrikam, "Impossible travel activity for h@fabrikam.example", ["Account"]);
    const first = await runAs(analyst, incident, ["revoke-sessions", "reset-password", "add-comment"]);
    const failed = await ended(fabrikam, first.id);
    expect([failed.status, failed.playbooks.map((p) => p.status)]).toEqual(["PartiallySucceeded", ["Succeeded", "Failed", "Skipped"]]);
    host.simulated.automation.setOutcome("reset-password", undefined);

    const res = await host.portal(analyst, "POST", `${runPath(fabrikam, first.id)}/retry`);
    expect(res.status).toBe(201);
    const retry = (await json(res)).data;
    expect(retry).toMatchObject({ isRetryGamebook: true, retryOf: { runId: first.id, sequences: [2, 3] }, requestedBy: { kind: "User", id: analyst.userId } });
    expect(retry.steps.map((s: Json) => [s.sequence, s.name, s.entityId])).toEqual([
      [1, "Reset user password", failed.playbooks[1]!.entityId],
      [2, "Add incident comment", incident.id],
    ]);
    expect(retry.steps[1].parameters).toEqual([{ name: "message", value: "From the portal.", description: "The comment." }]);
    const [audit] = await audits(fabrikam, retry.id);
    expect([audit!.actorId, activity(audit!), JSON.parse(audit!.metadata).retryOf]).toEqual([analyst.userId, "Retry", { runId: first.id, sequences: [2, 3] }]);
    expect((await ended(fabrikam, retry.id)).status).toBe("Succeeded");
    const contract = await json(await host.call("GET", `/workspaces/${fabrikam}/gamebooks/by-incident/${incident.id}`));
    expect(contract.data.find((r: Json) => r.id === retry.id)).toMatchObject({ isRetryGamebook: true, triggedByUserId: analyst.userId });
    const original = await json(await host.portal(analyst, "GET", runPath(fabrikam, first.id)));
    expect(original.data.retriedBy).toEqual([retry.id]);
  });

  it("is refused for a run that did not fail, and while an earlier retry of it waits; goes through the approval policy", async () => {
    const ok = incidentWith(fabrikam, "Impossible travel activity for i@fabrikam.example", ["Account"]);
    const succeeded = await runAs(analyst, ok, ["revoke-sessions"]);
    await ended(fabrikam, succeeded.id);
    const refused = await host.portal(analyst, "POST", `${runPath(fabrikam, succeeded.id)}/retry`);
    expect([refused.status, (await json(refused)).code, (await json(refused)).detail]).toEqual([409, "CONFLICT", "Only a failed or partly failed run can be retried; this one is succeeded."]);

    // In the workspace that approves every run: the first run is approved, fails, and its retry waits.
    host.simulated.automation.setOutcome("revoke-sessions", { status: "Failed", errorMessage: "Graph is throttling this tenant." });
    const incident = incidentWith(clinics, "Impossible travel activity for j@northwind.example", ["Account"]);
    const first = await runAs(analyst, incident, ["revoke-sessions"]);
    expect((await host.portal(owner, "POST", `/portal/workspaces/${clinics}/approvals/${first.id}/approve`, { body: {} })).status).toBe(200);
    expect((await ended(clinics, first.id)).status).toBe("Failed");
    host.simulated.automation.setOutcome("revoke-sessions", undefined);
    const retry = (await json(await host.portal(analyst, "POST", `${runPath(clinics, first.id)}/retry`))).data;
    expect(retry).toMatchObject({ status: "Pending", awaitingApproval: true, isRetryGamebook: true });
    const again = await host.portal(owner, "POST", `${runPath(clinics, first.id)}/retry`);
    expect([again.status, (await json(again)).detail]).toEqual([409, `It is being retried already: run ${retry.id} is waiting for approval.`]);
    // Once that retry has ended (cancelled here), the run can be retried again: a new run.
    expect((await host.portal(owner, "POST", `${runPath(clinics, retry.id)}/cancel`, { body: {} })).status).toBe(200);
    const second = await host.portal(owner, "POST", `${runPath(clinics, first.id)}/retry`);
    expect(second.status).toBe(201);
    expect((await json(second)).data.id).not.toBe(retry.id);
  });
});

describe("cancel", () => {
  it("ends a run waiting for approval: it leaves the approval queue, nothing runs, no gamebook.run.v1, audited with the person; a second cancel is 409", async () => {
    const incident = incidentWith(clinics, "Impossible travel activity for k@northwind.example", ["Account"]);
    const run = await runAs(analyst, incident, ["revoke-sessions", "add-comment"]);
    const queue = async () => ((await json(await host.portal(owner, "GET", "/portal/approvals?pageSize=200"))).data as Json[]).map((r) => r.runId);
    expect(await queue()).toContain(run.id);
    const res = await host.portal(analyst, "POST", `${runPath(clinics, run.id)}/cancel`, { body: { reason: "Handled by phone." } });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ status: "Cancelled", awaitingApproval: false, cancellation: { by: analyst.name, byUserId: analyst.userId, reason: "Handled by phone." } });
    expect(data.steps.map((s: Json) => s.status)).toEqual(["Skipped", "Skipped"]);
    expect(data.actions.cancel.allowed).toBe(false);
    expect(await queue()).not.toContain(run.id);
    expect(await runEvents(clinics, run.id)).toEqual([]);
    const cancelAudit = (await audits(clinics, run.id)).find((a) => activity(a) === "Cancel")!;
    expect([cancelAudit.actorId, cancelAudit.actorName, JSON.parse(cancelAudit.metadata).wasWaitingForApproval]).toEqual([analyst.userId, analyst.name, true]);
    const again = await host.portal(owner, "POST", `${runPath(clinics, run.id)}/cancel`, { body: {} });
    expect([again.status, (await json(again)).code]).toEqual([409, "CONFLICT"]);
    // Approving it now is refused too: it is no longer waiting.
    const late = await host.portal(owner, "POST", `/portal/workspaces/${clinics}/approvals/${run.id}/approve`, { body: {} });
    expect(late.status).toBe(409);
    expect(host.simulated.automation.executions().filter((e) => e.runId === run.id)).toEqual([]);
  });

  it("end to end: cancelling a running run skips what has not started, awaits the playbook in flight and records its outcome; nothing after it starts", async () => {
    const incident = incidentWith(fabrikam, "Impossible travel activity for l@fabrikam.example", ["Account"]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const execute = host.services.playbookActions.execute.bind(host.services.playbookActions);
    const started: string[] = [];
    vi.spyOn(host.services.playbookActions, "execute").mockImplementation(async (request: PlaybookStepRequest, signal) => {
      started.push(request.playbook.name);
      if (request.playbook.referenceId === "revoke-sessions") await gate;
      return execute(request, signal);
    });
    const run = await runAs(analyst, incident, ["revoke-sessions", "notify-owner", "add-comment"]);
    await waitFor(async () => ((await stored(fabrikam, run.id)).playbooks[0]!.status === "Running" ? true : undefined), "the first playbook to start");

    const res = await host.portal(owner, "POST", `${runPath(fabrikam, run.id)}/cancel`, { body: {} });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.status).toBe("Cancelled");
    expect(data.steps.map((s: Json) => s.status)).toEqual(["Running", "Skipped", "Skipped"]);
    expect(data.summary).toContain("was already running");

    release();
    await waitFor(async () => ((await stored(fabrikam, run.id)).playbooks[0]!.status === "Succeeded" ? true : undefined), "the playbook in flight to be recorded");
    await host.services.events.inProcess!.gamebookRuns.idle({ timeoutMs: 10_000 });
    const after = await stored(fabrikam, run.id);
    expect(after.status).toBe("Cancelled");
    expect(after.playbooks.map((p) => p.status)).toEqual(["Succeeded", "Skipped", "Skipped"]);
    expect(started).toEqual(["Revoke user sessions"]);
    // Dispatched once, before it was cancelled; the comment playbook never wrote.
    expect(await runEvents(fabrikam, run.id)).toHaveLength(1);
    const comments = await host.services.sources.gateway("SourceA").listComments(fabrikam, incident.id);
    expect(comments.map((c) => c.message)).not.toContain("From the portal.");
  });
});

describe("undo", () => {
  it("end to end: runs the undo playbooks of what succeeded, in reverse order, on the same entities, isRecover, linked; then it is undone", async () => {
    for (const reference of ["isolate-host", "release-host", "block-ip", "unblock-ip"]) host.simulated.automation.setOutcome(reference, { status: "Succeeded", errorMessage: null });
    const incident = incidentWith(fabrikam, "Communication with a command-and-control server from FAB-WS-77", ["Host", "Ip"]);
    const run = await runAs(analyst, incident, ["isolate-host", "block-ip", "add-comment"]);
    const done = await ended(fabrikam, run.id);
    expect(done.status).toBe("Succeeded");
    const before = (await json(await host.portal(analyst, "GET", runPath(fabrikam, run.id)))).data;
    // The comment has no undo playbook: only the first two are offered.
    expect(before.actions.undo).toEqual({ allowed: true, reason: null, sequences: [1, 2] });

    const res = await host.portal(analyst, "POST", `${runPath(fabrikam, run.id)}/undo`, { body: {} });
    expect(res.status).toBe(201);
    const undo = (await json(res)).data;
    expect(undo).toMatchObject({ isRecover: true, undoOf: { runId: run.id, sequences: [2, 1] }, requestedBy: { kind: "User", id: analyst.userId } });
    expect(undo.steps.map((s: Json) => [s.sequence, s.name, s.entityId])).toEqual([
      [1, "Unblock IP address", done.playbooks[1]!.entityId],
      [2, "Release host from isolation", done.playbooks[0]!.entityId],
    ]);
    const [audit] = await audits(fabrikam, undo.id);
    expect([audit!.actorId, activity(audit!)]).toEqual([analyst.userId, "Undo"]);
    expect(await runEvents(fabrikam, undo.id)).toHaveLength(1);
    expect((await ended(fabrikam, undo.id)).status).toBe("Succeeded");
    const names = host.simulated.automation.executions().filter((e) => e.runId === undo.id).map((e) => e.referenceId);
    expect(names).toEqual(["unblock-ip", "release-host"]);
    const contract = await json(await host.call("GET", `/workspaces/${fabrikam}/gamebooks/by-incident/${incident.id}`));
    expect(contract.data.find((r: Json) => r.id === undo.id)).toMatchObject({ isRecover: true, isRetryGamebook: false });

    const after = (await json(await host.portal(analyst, "GET", runPath(fabrikam, run.id)))).data;
    expect(after.undoneBy).toEqual([undo.id]);
    expect(after.actions.undo.allowed).toBe(false);
    const again = await host.portal(analyst, "POST", `${runPath(fabrikam, run.id)}/undo`, { body: {} });
    expect([again.status, (await json(again)).detail]).toEqual([409, `Nothing it did can be undone here: Undone already by run ${undo.id}. Add incident comment has no undo playbook in the catalogue.`]);
  });

  it("undoes only the steps chosen; refuses a step with no undo playbook at its place, and a run with nothing to undo", async () => {
    for (const reference of ["disable-account", "enable-account"]) host.simulated.automation.setOutcome(reference, { status: "Succeeded", errorMessage: null });
    const incident = incidentWith(fabrikam, "Possible data exfiltration by m@fabrikam.example", ["Account"]);
    const run = await runAs(analyst, incident, ["revoke-sessions", "disable-account"]);
    await ended(fabrikam, run.id);
    const wrong = await host.portal(analyst, "POST", `${runPath(fabrikam, run.id)}/undo`, { body: { sequences: [1, 2, 7] } });
    const problem = await json(wrong);
    expect([wrong.status, problem.code, Object.keys(problem.errors)]).toEqual([400, "VALIDATION_ERROR", ["sequences[0]", "sequences[2]"]]);
    expect(problem.errors["sequences[0]"]).toEqual(["Revoke user sessions has no undo playbook in the catalogue."]);
    const res = await host.portal(analyst, "POST", `${runPath(fabrikam, run.id)}/undo`, { body: { sequences: [2] } });
    expect(res.status).toBe(201);
    expect((await json(res)).data.steps.map((s: Json) => s.name)).toEqual(["Re-enable user account"]);

    const plain = incidentWith(fabrikam, "Impossible travel activity for n@fabrikam.example", ["Account"]);
    const nothing = await runAs(analyst, plain, ["revoke-sessions"]);
    await ended(fabrikam, nothing.id);
    const view = (await json(await host.portal(analyst, "GET", runPath(fabrikam, nothing.id)))).data;
    expect(view.actions.undo).toEqual({ allowed: false, reason: "Revoke user sessions has no undo playbook in the catalogue.", sequences: [] });
    const refused = await host.portal(analyst, "POST", `${runPath(fabrikam, nothing.id)}/undo`, { body: {} });
    expect([refused.status, (await json(refused)).detail]).toEqual([409, view.actions.undo.reason]);
  });
});

describe("every run on the incident", () => {
  it("lists them newest activity first, and last-gamebook answers the newest created, even one that never ran", async () => {
    const incident = incidentWith(clinics, "Impossible travel activity for o@northwind.example", ["Account"]);
    const first = await runAs(analyst, incident, ["revoke-sessions"]);
    const second = await runAs(analyst, incident, ["revoke-sessions"]);
    // The second, created after the first, is denied; then the first is approved and runs.
    expect((await host.portal(owner, "POST", `/portal/workspaces/${clinics}/approvals/${second.id}/deny`, { body: { reason: "Once is enough." } })).status).toBe(200);
    expect((await host.portal(owner, "POST", `/portal/workspaces/${clinics}/approvals/${first.id}/approve`, { body: {} })).status).toBe(200);
    await ended(clinics, first.id);
    // The contract's last-gamebook is the newest created: the denied one.
    const last = await json(await host.call("GET", `/workspaces/${clinics}/incidents/SourceA/${incident.id}/last-gamebook`));
    expect([last.data.id, last.data.status]).toEqual([second.id, "Denied"]);

    // The page lists both, newest activity first: the one that ran, with its outcome, above the one denied before it.
    const { data } = await json(await host.portal(analyst, "GET", incidentPath(incident)));
    expect(data.runs.map((r: Json) => r.id)).toEqual([first.id, second.id]);
    expect(data.runs[0]).toMatchObject({ status: "Succeeded", approval: { decision: { outcome: "Approved", by: owner.name } } });
    expect(data.runs[0].steps[0]).toMatchObject({ status: "Succeeded", errorMessage: "" });
    expect(data.runs[1]).toMatchObject({ status: "Denied", approval: { decision: { outcome: "Denied", comment: "Once is enough." } } });
  });

  it("documents what last-gamebook answers", async () => {
    const doc = await json(await host.call("GET", "/openapi.json", { auth: null }));
    expect(doc.paths["/api/v2/workspaces/{workspaceId}/incidents/{source}/{incidentId}/last-gamebook"].get.description).toContain("newest **created** run");
  });
});
