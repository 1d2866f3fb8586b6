import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { deterministicEventId } from "../../shared/platform/events/event-ids";
import { runRequestExample, EXAMPLE_WORKSPACE_ID } from "../../shared/api/examples/gamebook-examples";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import { runSubject } from "../../shared/domain/gamebooks/run-records";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { allRoutes } from "../../shared/api/route-groups";
import type { Entity, EntityKind, VendorIncident } from "../../shared/model/incidents/incident";
import type { Source } from "../../shared/model/sources";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { CataloguePlaybook } from "../../shared/model/gamebooks/playbook-catalogue-record";
import type { GamebookRunRecord } from "../../shared/model/gamebooks/gamebook-run";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { outboxEvents } from "../support/outbox";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import { gamebookRun } from "../contract/store-contract";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

let host: TestHost;
let receiver: HttpsReceiver;
/** fabrikam-sentinel-prod: no approval anywhere. */
let ws: string;
/** northwind-sentinel-clinics: its own policy approves every run. */
let clinics: string;
/** northwind-sentinel-prod: the provider's partner setting approves runs with admin playbooks. */
let northwind: string;
/** Decides the clinics' runs in the portal: the Owner role there is what approving takes. */
let owner: TestPerson;
/** Sets the approval settings in the portal. */
let workspaceAdmin: TestPerson;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  host = await startTestHost({
    webhookCa: receiver.certificate,
    env: { SIMULATED_PLAYBOOK_DELAY_MS: "2", WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
  });
  const byName = (name: string) => host.demo.workspaces.find((w) => w.name === name)!.id;
  ws = byName("fabrikam-sentinel-prod");
  clinics = byName("northwind-sentinel-clinics");
  northwind = byName("northwind-sentinel-prod");
  owner = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: clinics, role: "Owner" }] });
  workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
const decide = (runId: string, decision: "approve" | "deny", body: Record<string, string>, workspaceId = clinics) =>
  host.portal(owner, "POST", `/portal/workspaces/${workspaceId}/approvals/${runId}/${decision}`, { body });
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const reference of ["revoke-sessions", "purge-email", "block-url", "unblock-ip"]) host.simulated.automation.setOutcome(reference, undefined);
});

// --- helpers -------------------------------------------------------------------------------------

async function playbook(workspaceId: string, referenceId: string): Promise<CataloguePlaybook> {
  const catalogue = await host.services.stores.playbookCatalogues.get(workspaceId);
  const found = catalogue?.playbooks.find((p) => p.referenceId === referenceId);
  if (!found) throw new Error(`no ${referenceId} in ${workspaceId}`);
  return found;
}

/** A new incident "in the vendor console" whose entities include every kind asked for. */
function incidentWith(workspaceId: string, kinds: EntityKind[], title = "Suspicious sign-in from TOR exit node", source: Source = "SourceA"): VendorIncident {
  for (let i = 0; i < 200; i++) {
    const incident = host.simulated.vendors.createIncident(source, workspaceId, { title, severity: "High" });
    if (kinds.every((k) => incident.entities.some((e) => e.kind === k))) return incident;
  }
  throw new Error(`no incident with ${kinds.join(", ")}`);
}

function entityFor(incident: VendorIncident, p: CataloguePlaybook): Entity {
  const entity = incident.entities.find((e) => actsOn(p, e));
  if (!entity) throw new Error(`no entity of ${incident.id} for ${p.referenceId}`);
  return entity;
}

type Step = { ref: string; parameters?: Json };

/** A run body for these catalogue playbooks, in this order, each on an entity it acts on. */
async function runBody(incident: VendorIncident, steps: Step[], extra: Json = {}): Promise<Json> {
  const playbooks = [];
  for (const [i, step] of steps.entries()) {
    const p = await playbook(incident.workspaceId, step.ref);
    playbooks.push({ id: p.id, sequence: i + 1, entityId: p.entityType === "Incident" ? incident.id : entityFor(incident, p).id, parameters: step.parameters ?? {} });
  }
  return { incidentId: incident.id, incidentTitle: incident.title, source: incident.source, playbooks, ...extra };
}

const runPath = (workspaceId: string) => `/workspaces/${workspaceId}/gamebooks/run`;

async function submit(workspaceId: string, body: unknown, auth?: { clientId: string; clientSecret: string }): Promise<{ status: number; body: Json }> {
  const res = await host.call("POST", runPath(workspaceId), { body, auth });
  return { status: res.status, body: await json(res) };
}

async function submitted(incident: VendorIncident, steps: Step[], extra: Json = {}): Promise<Json> {
  const { status, body } = await submit(incident.workspaceId, await runBody(incident, steps, extra));
  if (status !== 200) throw new Error(`run refused: ${status} ${JSON.stringify(body)}`);
  return body.data;
}

async function runOf(workspaceId: string, runId: string): Promise<GamebookRunRecord> {
  const found = await host.services.stores.gamebookRuns.get(workspaceId, runId);
  if (!found) throw new Error(`no run ${runId}`);
  return found.value;
}

const FINAL = ["Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"];

async function finished(workspaceId: string, runId: string): Promise<GamebookRunRecord> {
  return waitFor(async () => {
    const run = await runOf(workspaceId, runId);
    return FINAL.includes(run.status) ? run : undefined;
  }, `run ${runId} to finish`);
}

const executionsOf = (runId: string) => host.simulated.automation.executions().filter((e) => e.runId === runId);

async function runEvents(workspaceId: string, runId: string): Promise<Json[]> {
  return (await outboxEvents(host.services, workspaceId)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === runId);
}

async function incidentEvents(workspaceId: string, incidentId: string): Promise<Json[]> {
  return (await outboxEvents(host.services, workspaceId)).filter((e) => e.data.incidentId === incidentId);
}

async function auditsOf(workspaceId: string, runId: string): Promise<OutboxAuditRecord[]> {
  const records = await host.services.stores.outbox.list(outboxScope.workspace(workspaceId), 100_000);
  return records.filter((r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.targetResourceId === runId);
}

// --- rules ---------------------------------------------------------------------------------------

describe("GET /gamebooks/rules/{incidentTitle}", () => {
  const rules = async (title: string, workspaceId = ws) => host.call("GET", `/workspaces/${workspaceId}/gamebooks/rules/${encodeURIComponent(title)}`);

  it("lists the rules whose pattern matches the whole title, case-insensitively, with docs/contract.md §2.7's fields", async () => {
    const res = await rules("IMPOSSIBLE travel activity for ann@fabrikam.example");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.map((r: Json) => r.playbookName)).toEqual(["Revoke user sessions", "Reset user password", "Block IP address", "Notify the user"]);
    expect(Object.keys(data[0]).sort()).toEqual(
      ["entity", "incidentTitle", "isAdminRequired", "playbookDescription", "playbookId", "playbookName", "recoverPlaybookId", "sentinelEntities"].sort(),
    );
    const reset = data.find((r: Json) => r.playbookName === "Reset user password");
    expect(reset).toMatchObject({ incidentTitle: "Impossible travel activity for *", entity: "User", sentinelEntities: ["Account"], isAdminRequired: true, recoverPlaybookId: "" });
    expect(reset.playbookId).toBe((await playbook(ws, "reset-password")).id);
    const block = data.find((r: Json) => r.playbookName === "Block IP address");
    expect(block.recoverPlaybookId).toBe((await playbook(ws, "unblock-ip")).id);
  });

  it("takes percent-encoded titles with spaces, slashes (%2F) and non-ASCII characters as one segment", async () => {
    const slash = await json(await rules("Malware detected on FAB/WS-0042 (C:\\Users\\Public)"));
    expect(slash.data.map((r: Json) => r.incidentTitle)).toContain("Malware detected on *");
    const unicode = await json(await rules("Impossible travel activity for józef.wójcik@fabrikam.example — 東京"));
    expect(unicode.data.length).toBe(4);
    const keyword = await json(await rules("Possible Ransomware encryption on FILESRV/02 ✱"));
    expect(keyword.data.map((r: Json) => r.incidentTitle)).toEqual(["*ransomware*", "*ransomware*"]);
    // A pattern only matches whole titles: a prefix of one is not a match.
    expect((await json(await rules("Malware detected"))).data).toEqual([]);
  });

  it("answers an empty list for a title no rule matches, and 403 without a role on the workspace", async () => {
    expect((await json(await rules("Nothing to see here"))).data).toEqual([]);
    const sa = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: clinics, role: "Analyst" }], scopes: ["gamebooks:read"] });
    const res = await host.call("GET", `/workspaces/${ws}/gamebooks/rules/x`, { auth: sa });
    expect((await json(res)).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
  });
});

// --- run: validation -----------------------------------------------------------------------------

describe("POST /gamebooks/run: what is refused", () => {
  it("sequences other than exactly 1..N are 400 VALIDATION_ERROR naming each offending path", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }, { ref: "notify-owner" }, { ref: "add-comment", parameters: { message: "x" } }]);
    body.playbooks[0].sequence = 1;
    body.playbooks[1].sequence = 1;
    body.playbooks[2].sequence = 4;
    const { status, body: problem } = await submit(ws, body);
    expect(status).toBe(400);
    expect(problem.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(problem.errors).sort()).toEqual(["playbooks", "playbooks[1].sequence", "playbooks[2].sequence"]);
    expect(problem.errors.playbooks[0]).toContain("missing: 2, 3");
    body.playbooks[1].sequence = 2;
    body.playbooks[2].sequence = 3;
    expect((await submit(ws, body)).status).toBe(200);
  });

  it("portal approval, retry and state fields are 400, each named", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }]);
    const extra = { approvedBy: "someone", isRetryGamebook: true, status: "Succeeded", isAdminRequired: false, tracingId: "t-1" };
    const { status, body: problem } = await submit(ws, { ...body, ...extra, playbooks: [{ ...body.playbooks[0], status: "Succeeded" }] });
    expect(status).toBe(400);
    expect(problem.code).toBe("VALIDATION_ERROR");
    for (const field of [...Object.keys(extra), "playbooks[0].status"]) expect(problem.errors[field], field).toBeDefined();
    // Field names that are also names of Object's own members are named like any other.
    const raw = JSON.stringify(body).replace(/^\{/, '{"constructor":1,"__proto__":{"x":1},"toString":"x",');
    const odd = await submit(ws, raw);
    expect([odd.status, odd.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(Object.keys(odd.body.errors).sort()).toEqual(["__proto__", "constructor", "toString"]);
  });

  it("the body's fields are checked: a non-empty title, a source A to G, 1 to 50 playbooks", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }]);
    const cases: [Json, string][] = [
      [{ ...body, incidentTitle: "  " }, "incidentTitle"],
      [{ ...body, incidentTitle: undefined }, "incidentTitle"],
      [{ ...body, source: "SourceZ" }, "source"],
      [{ ...body, playbooks: [] }, "playbooks"],
      [{ ...body, isQueued: "yes" }, "isQueued"],
      [{ ...body, playbooks: [{ ...body.playbooks[0], sequence: 1.5 }] }, "playbooks[0].sequence"],
    ];
    for (const [bad, field] of cases) {
      const { status, body: problem } = await submit(ws, bad);
      expect([field, status, problem.code]).toEqual([field, 400, "VALIDATION_ERROR"]);
      expect(problem.errors[field], field).toBeDefined();
    }
    expect((await submit(ws, { ...body, source: "sourcea" })).status).toBe(200);
  });

  it("an incident that does not exist at that source in the workspace is 404 NOT_FOUND", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }]);
    expect((await submit(ws, { ...body, incidentId: "no-such-incident" })).body.code).toBe("NOT_FOUND");
    expect((await submit(ws, { ...body, source: "SourceB" })).body.code).toBe("NOT_FOUND");
    const other = host.demo.workspaces[1]!.id;
    expect((await submit(other, body)).body.code).toBe("NOT_FOUND");
  });

  it("playbooks outside the catalogue and entities that are not the incident's are 400 at playbooks[i].id and playbooks[i].entityId", async () => {
    const incident = incidentWith(ws, ["Account", "Ip"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }, { ref: "block-ip" }, { ref: "add-comment", parameters: { message: "x" } }, { ref: "notify-owner" }]);
    const foreign = await playbook(clinics, "revoke-sessions");
    const ip = incident.entities.find((e) => e.kind === "Ip")!;
    body.playbooks[0].id = foreign.id;
    body.playbooks[1].entityId = "ip-not-of-this-incident";
    body.playbooks[2].entityId = ip.id;
    body.playbooks[3].entityId = ip.id;
    const { status, body: problem } = await submit(ws, body);
    expect(status).toBe(400);
    expect(problem.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(problem.errors).sort()).toEqual(["playbooks[0].id", "playbooks[1].entityId", "playbooks[2].entityId", "playbooks[3].entityId"]);
    expect(problem.errors["playbooks[2].entityId"][0]).toContain(incident.id);
    expect(problem.errors["playbooks[3].entityId"][0]).toContain("User");
  });

  it("parameters must be the playbook's declared ones, each of its kind", async () => {
    const incident = incidentWith(ws, ["Ip"]);
    const body = await runBody(incident, [{ ref: "block-ip", parameters: { expiresInHours: 0, reason: "x" } }, { ref: "add-comment" }]);
    const { status, body: problem } = await submit(ws, body);
    expect(status).toBe(400);
    expect(Object.keys(problem.errors).sort()).toEqual(["playbooks[0].parameters.expiresInHours", "playbooks[0].parameters.reason", "playbooks[1].parameters.message"]);
  });

  it("needs gamebooks:execute and a role on the workspace; reading needs gamebooks:read", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }]);
    const reader = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }], scopes: ["gamebooks:read"] });
    expect((await submit(ws, body, reader)).body.code).toBe("INSUFFICIENT_SCOPE");
    const elsewhere = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: clinics, role: "Owner" }], scopes: ["gamebooks:execute"] });
    expect((await submit(ws, body, elsewhere)).body.code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
    const executor = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }], scopes: ["gamebooks:execute"] });
    expect((await submit(ws, body, executor)).status).toBe(200);
    expect((await json(await host.call("GET", `/workspaces/${ws}/gamebooks/history`, { auth: executor }))).code).toBe("INSUFFICIENT_SCOPE");
  });

  it("service accounts have no route to approve, deny, retry or cancel a run", async () => {
    const incident = incidentWith(clinics, ["Account"]);
    const { id } = await submitted(incident, [{ ref: "revoke-sessions" }]);
    for (const action of ["approve", "deny", "retry", "cancel"]) {
      const res = await host.call("POST", `/workspaces/${clinics}/gamebooks/runs/${id}/${action}`, { body: {} });
      expect([action, res.status]).toEqual([action, 404]);
    }
    expect((await runOf(clinics, id)).isQueued).toBe(true);
  });
});

// --- run: dispatch and execution -----------------------------------------------------------------

describe("POST /gamebooks/run: dispatch and the executor", () => {
  it("dispatches a run that needs no approval: Pending, isQueued false, gamebook.run.v1 committed with it, then carried out in sequence order", async () => {
    const incident = incidentWith(ws, ["Account", "Url"]);
    const before = Date.now();
    const data = await submitted(incident, [{ ref: "revoke-sessions" }, { ref: "block-url" }, { ref: "add-comment", parameters: { message: "Sessions revoked, URL blocked." } }]);
    expect(data).toEqual({ id: expect.any(String), status: "Pending", isQueued: false });

    const events = await runEvents(ws, data.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toBe(deterministicEventId("gamebook.run.v1", runSubject({ workspaceId: ws, id: data.id })));
    expect(events[0]!.data).toMatchObject({ runId: data.id, incidentId: incident.id, source: "sourcea", status: "Pending", triggeredBy: { origin: "api" } });
    expect(events[0]!.data.playbooks.map((p: Json) => p.name)).toEqual(["Revoke user sessions", "Block URL", "Add incident comment"]);

    const run = await finished(ws, data.id);
    expect(run.status).toBe("Succeeded");
    expect(run.summary).toBe("All 3 playbooks succeeded.");
    const steps = [...run.playbooks].sort((a, b) => a.sequence - b.sequence);
    for (const step of steps) {
      expect(step.status).toBe("Succeeded");
      expect(step.errorMessage).toBe("");
      expect(Date.parse(step.startingDate)).toBeGreaterThanOrEqual(before - 1000);
      expect(step.finishingDate >= step.startingDate).toBe(true);
      expect(step.executionTime).toMatch(/^\d{2}:\d{2}:\d{2}(\.\d{3})?$/);
    }
    // In sequence order: each starts after the one before finished.
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.startingDate >= steps[i - 1]!.finishingDate).toBe(true);
    expect(executionsOf(data.id).map((e) => e.referenceId)).toEqual(["revoke-sessions", "block-url"]);
  });

  it("the incident actions go through the service's own paths: the comment is incident.comment.added.v1 and the close the status events, by the gamebook", async () => {
    const incident = incidentWith(ws, ["Mailbox"]);
    const data = await submitted(incident, [
      { ref: "purge-email" },
      { ref: "add-comment", parameters: { message: "Phishing purged from every mailbox." } },
      { ref: "close-incident", parameters: { classification: "TruePositive", closingComment: "Contained by the phishing gamebook." } },
    ]);
    const run = await finished(ws, data.id);
    expect(run.status).toBe("Succeeded");
    const comments = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/${incident.id}/comments`));
    expect(comments.data.filter((c: Json) => c.message === "Phishing purged from every mailbox.")).toHaveLength(1);
    const events = await incidentEvents(ws, incident.id);
    const added = events.find((e) => e.type === "incident.comment.added.v1");
    expect(added?.data.addedBy).toMatchObject({ origin: "gamebook", name: `Gamebook: ${run.title}` });
    expect(events.find((e) => e.type === "incident.status.changed.v1")?.data.changedBy.origin).toBe("gamebook");
    expect(events.find((e) => e.type === "incident.closed.v1")?.data.closedBy.origin).toBe("gamebook");
    const incidentNow = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/${incident.id}`));
    expect(incidentNow.data.incident.status).toBe("Closed");
  });

  it("a playbook that fails first ends the run Failed and the rest Skipped; after a success, PartiallySucceeded", async () => {
    host.simulated.automation.setOutcome("revoke-sessions", { status: "Failed", errorMessage: "Microsoft Graph: the user was not found." });
    const first = incidentWith(ws, ["Account", "Url"]);
    const failed = await finished(ws, (await submitted(first, [{ ref: "revoke-sessions" }, { ref: "block-url" }, { ref: "add-comment", parameters: { message: "x" } }])).id);
    expect(failed.status).toBe("Failed");
    expect(failed.playbooks.map((p) => [p.sequence, p.status])).toEqual([[1, "Failed"], [2, "Skipped"], [3, "Skipped"]]);
    expect(failed.playbooks[0]!.errorMessage).toBe("Microsoft Graph: the user was not found.");
    expect(failed.playbooks[0]!.finishingDate).not.toBe("");
    expect(failed.playbooks[1]!.startingDate).toBe("");
    expect(executionsOf(failed.id).map((e) => e.referenceId)).toEqual(["revoke-sessions"]);

    const second = incidentWith(ws, ["Account", "Url"]);
    const partial = await finished(ws, (await submitted(second, [{ ref: "block-url" }, { ref: "revoke-sessions" }, { ref: "add-comment", parameters: { message: "x" } }])).id);
    expect(partial.status).toBe("PartiallySucceeded");
    expect(partial.playbooks.map((p) => p.status)).toEqual(["Succeeded", "Failed", "Skipped"]);
    expect(partial.summary).toContain("1 of 3 playbooks succeeded; Revoke user sessions failed");
  });

  it("every submission is an audit event committed with the run", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const { id } = await submitted(incident, [{ ref: "revoke-sessions" }]);
    const audits = await auditsOf(ws, id);
    expect(audits).toHaveLength(1);
    expect(audits[0]!.audit).toMatchObject({ activityType: "GamebookRun", activityAction: "Create", targetResourceType: "GamebookRun", workspaceId: ws, actorId: host.admin.clientId });
    expect(JSON.parse(audits[0]!.audit.metadata)).toMatchObject({ approvalRequired: false });
  });

  it("the run's webhook event arrives at a subscribed webhook, signed like every event", async () => {
    const res = await host.call("POST", "/webhooks", { body: { name: "gamebooks", url: receiver.url("/gamebooks", "127.0.0.1"), eventTypes: ["gamebook.run.v1"] } });
    expect(res.status).toBe(201);
    const incident = incidentWith(ws, ["Account"]);
    const { id } = await submitted(incident, [{ ref: "revoke-sessions" }]);
    const delivered = await waitFor(() => receiver.requests.find((r) => r.url === "/gamebooks" && JSON.parse(r.body).data.runId === id), "gamebook.run.v1 at the receiver");
    expect(JSON.parse(delivered.body).type).toBe("gamebook.run.v1");
    expect(delivered.headers["x-svc-event-type"]).toBe("gamebook.run.v1");
  });
});

// --- approval --------------------------------------------------------------------------------------

describe("approval", () => {
  it("a workspace that approves every run keeps it Pending and queued: nothing runs, no gamebook.run.v1; approval dispatches it", async () => {
    const incident = incidentWith(clinics, ["Account"]);
    const data = await submitted(incident, [{ ref: "revoke-sessions" }, { ref: "add-comment", parameters: { message: "Approved and done." } }], { isQueued: false });
    expect(data).toEqual({ id: expect.any(String), status: "Pending", isQueued: true });
    await new Promise((r) => setTimeout(r, 100));
    const waiting = await runOf(clinics, data.id);
    expect([waiting.status, waiting.isQueued]).toEqual(["Pending", true]);
    expect(waiting.playbooks.every((p) => p.status === "Pending")).toBe(true);
    expect(executionsOf(data.id)).toEqual([]);
    expect(await runEvents(clinics, data.id)).toEqual([]);
    expect(JSON.parse((await auditsOf(clinics, data.id))[0]!.audit.metadata)).toMatchObject({ approvalRequired: true, approvalReasons: ["WorkspacePolicy"] });

    const approved = await decide(data.id, "approve", { comment: "Go ahead." });
    expect(approved.status).toBe(200);
    expect((await json(approved)).data).toMatchObject({ runId: data.id, status: "Pending", awaitingDecision: false });
    expect((await runOf(clinics, data.id)).isQueued).toBe(false);
    expect(await runEvents(clinics, data.id)).toHaveLength(1);
    const run = await finished(clinics, data.id);
    expect(run.status).toBe("Succeeded");
    expect(executionsOf(data.id)).toHaveLength(1);
    const audits = await auditsOf(clinics, data.id);
    expect(audits.map((a) => a.audit.activityType)).toEqual(["GamebookRun", "GamebookApproval"]);
    expect(audits[1]!.audit).toMatchObject({ activityAction: "Update", actorName: owner.name, actorId: owner.userId, workspaceId: clinics });
    expect(JSON.parse(audits[1]!.audit.metadata)).toMatchObject({ activity: "Approve", comment: "Go ahead." });
    // Approved once: approving or denying again is a conflict.
    expect((await json(await decide(data.id, "approve", {}))).code).toBe("CONFLICT");
  });

  it("denial ends the run Denied with every playbook Skipped, audited, and nothing ever runs", async () => {
    const incident = incidentWith(clinics, ["Account"]);
    const { id } = await submitted(incident, [{ ref: "revoke-sessions" }]);
    const res = await decide(id, "deny", { reason: "Not this account." });
    expect((await json(res)).data).toMatchObject({ runId: id, status: "Denied", awaitingDecision: false });
    const run = await runOf(clinics, id);
    // The record keeps the flag; the answer says whether the run waits now: it does not.
    expect([run.status, run.isQueued]).toEqual(["Denied", true]);
    const listed = (await json(await host.call("GET", `/workspaces/${clinics}/gamebooks/history`))).data as { id: string; status: string; isQueued: boolean }[];
    expect(listed.find((r) => r.id === id)).toMatchObject({ status: "Denied", isQueued: false });
    expect(run.playbooks.map((p) => p.status)).toEqual(["Skipped"]);
    expect(run.summary).toBe(`Denied by ${owner.name}; nothing ran. Reason: Not this account.`);
    expect(executionsOf(id)).toEqual([]);
    expect(await runEvents(clinics, id)).toEqual([]);
    expect((await auditsOf(clinics, id)).map((a) => a.audit.activityType)).toEqual(["GamebookRun", "GamebookApproval"]);
    expect((await json(await decide(id, "approve", {}))).code).toBe("CONFLICT");
    expect((await json(await decide("7d1c3f0e-5a2b-4c8d-9e6f-1a2b3c4d5e6f", "approve", {}))).code).toBe("NOT_FOUND");
  });

  it("isQueued true asks for approval where nothing requires it; isQueued false never waives a policy", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const queued = await submitted(incident, [{ ref: "revoke-sessions" }], { isQueued: true });
    expect(queued).toMatchObject({ status: "Pending", isQueued: true });
    const waived = await submitted(incidentWith(clinics, ["Account"]), [{ ref: "revoke-sessions" }], { isQueued: false });
    expect(waived.isQueued).toBe(true);
  });

  it("the provider's partner setting queues runs with admin playbooks in the accounts it covers, and a WorkspaceAdmin changes it in the portal", async () => {
    const incident = incidentWith(northwind, ["Account"]);
    const admin = await submitted(incident, [{ ref: "reset-password" }]);
    expect(admin.isQueued).toBe(true);
    expect(JSON.parse((await auditsOf(northwind, admin.id))[0]!.audit.metadata).approvalReasons).toEqual(["PartnerApproval"]);
    const plain = await submitted(incident, [{ ref: "revoke-sessions" }]);
    expect(plain.isQueued).toBe(false);

    const provider = host.demo.provider.id;
    const partnerApproval = (accountId: string) => `/portal/organizations/${accountId}/partner-approval`;
    const setPartnerApproval = (accountId: string, body: unknown) => host.portal(workspaceAdmin, "PUT", partnerApproval(accountId), { body });
    const setting = await json(await host.portal(workspaceAdmin, "GET", partnerApproval(provider)));
    expect(setting.data).toEqual({ mode: "AdminRequiredPlaybooks", accountIds: [host.demo.customers[1]!.id] });
    try {
      expect((await setPartnerApproval(provider, { mode: "NoApproval", accountIds: [] })).status).toBe(200);
      expect((await submitted(incident, [{ ref: "reset-password" }])).isQueued).toBe(false);
      expect((await setPartnerApproval(provider, { mode: "AllRuns", accountIds: [] })).status).toBe(200);
      // Every managed account now, Fabrikam's too.
      expect((await submitted(incidentWith(ws, ["Account"]), [{ ref: "revoke-sessions" }])).isQueued).toBe(true);
      const refused = await json(await setPartnerApproval(host.demo.customers[0]!.id, { mode: "AllRuns" }));
      expect(refused.code).toBe("VALIDATION_ERROR");
    } finally {
      expect((await setPartnerApproval(provider, setting.data)).status).toBe(200);
    }
  });

  it("a workspace's policy is stored, and a WorkspaceAdmin changes it in the portal", async () => {
    const stores = host.demo.workspaces[1]!.id;
    const policy = `/portal/workspaces/${stores}/approval-policy`;
    expect((await json(await host.portal(workspaceAdmin, "GET", policy))).data).toEqual({
      mode: "NoApproval",
      approvalTimeoutHours: 24,
      onExpiry: "Deny",
      requireSecondApproverForAdminPlaybooks: false,
      twoSidedApproval: false,
    });
    try {
      expect((await host.portal(workspaceAdmin, "PUT", policy, { body: { mode: "AdminRequiredPlaybooks" } })).status).toBe(200);
      const incident = incidentWith(stores, ["Account"]);
      expect((await submitted(incident, [{ ref: "disable-account" }])).isQueued).toBe(true);
      expect((await submitted(incident, [{ ref: "revoke-sessions" }])).isQueued).toBe(false);
      expect((await json(await host.portal(workspaceAdmin, "PUT", policy, { body: { mode: "Sometimes" } }))).code).toBe("VALIDATION_ERROR");
    } finally {
      expect((await host.portal(workspaceAdmin, "PUT", policy, { body: { mode: "NoApproval" } })).status).toBe(200);
    }
  });
});

// --- at least once, never twice ------------------------------------------------------------------

describe("the executor after a crash", () => {
  /** Makes the run store fail once, as a worker dying, on the first write that `when` picks. */
  function crashOnce(when: (run: GamebookRunRecord) => boolean): { crashed: () => boolean } {
    const store = host.services.stores.gamebookRuns;
    const replace = store.replace;
    let crashed = false;
    vi.spyOn(store, "replace").mockImplementation(async (run, etag, outbox) => {
      if (!crashed && when(run)) {
        crashed = true;
        throw new Error("worker died");
      }
      return replace(run, etag, outbox);
    });
    return { crashed: () => crashed };
  }

  it("a worker that dies between two playbooks is redelivered and resumes: each playbook runs once", async () => {
    const incident = incidentWith(ws, ["Account", "Url"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }, { ref: "block-url" }, { ref: "add-comment", parameters: { message: "Resumed fine." } }]);
    const crash = crashOnce((run) => run.incidentId === incident.id && run.playbooks.find((p) => p.sequence === 2)?.status === "Running");
    const runId = (await submit(ws, body)).body.data.id as string;
    const run = await finished(ws, runId);
    expect(crash.crashed()).toBe(true);
    expect(run.status).toBe("Succeeded");
    expect(executionsOf(runId).map((e) => e.referenceId)).toEqual(["revoke-sessions", "block-url"]);
    expect(host.logs.some((l) => l.message === "message handler failed; message abandoned" && String(l.fields.error).includes("worker died"))).toBe(true);
  });

  it("a worker that dies after a playbook ran but before its outcome was recorded resumes it under the same step id: not run twice", async () => {
    const incident = incidentWith(ws, ["Account", "Url"]);
    const body = await runBody(incident, [{ ref: "revoke-sessions" }, { ref: "block-url" }]);
    const crash = crashOnce((run) => run.incidentId === incident.id && run.playbooks.find((p) => p.sequence === 2)?.status === "Succeeded");
    const runId = (await submit(ws, body)).body.data.id as string;
    const run = await finished(ws, runId);
    expect(crash.crashed()).toBe(true);
    expect(run.status).toBe("Succeeded");
    const executions = executionsOf(runId);
    expect(executions.map((e) => e.referenceId)).toEqual(["revoke-sessions", "block-url"]);
    expect(executions[1]!.stepId).toBe(run.playbooks.find((p) => p.sequence === 2)!.id);
  });

  it("a comment step resumed after a crash comments once, with one event", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const message = `Noted by the gamebook ${Math.random().toString(36).slice(2)}.`;
    const body = await runBody(incident, [{ ref: "add-comment", parameters: { message } }, { ref: "revoke-sessions" }]);
    const crash = crashOnce((run) => run.incidentId === incident.id && run.playbooks.find((p) => p.sequence === 1)?.status === "Succeeded");
    const runId = (await submit(ws, body)).body.data.id as string;
    const run = await finished(ws, runId);
    expect(crash.crashed()).toBe(true);
    expect(run.status).toBe("Succeeded");
    const comments = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/${incident.id}/comments`));
    expect(comments.data.filter((c: Json) => c.message === message)).toHaveLength(1);
    const events = (await incidentEvents(ws, incident.id)).filter((e) => e.type === "incident.comment.added.v1");
    expect(events).toHaveLength(1);
  });
});

// --- reading runs --------------------------------------------------------------------------------

describe("reading runs", () => {
  it("history/{gamebookId}/playbooks lists a run's playbooks in sequence order with docs/contract.md §2.6's fields; an unknown run is 404", async () => {
    const incident = incidentWith(ws, ["Account", "Ip"]);
    const { id } = await submitted(incident, [{ ref: "revoke-sessions" }, { ref: "unblock-ip" }]);
    await finished(ws, id);
    const res = await host.call("GET", `/workspaces/${ws}/gamebooks/history/${id}/playbooks`);
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.map((p: Json) => p.sequence)).toEqual([1, 2]);
    expect(Object.keys(data[0]).sort()).toEqual(
      [
        "id", "referenceId", "entityId", "name", "description", "affectedEntity", "tracingId", "userObjectId", "userPrincipalName", "internetMessageId",
        "entityType", "isRecommended", "isAdminRequired", "status", "errorMessage", "sequence", "modificationDate", "startingDate", "finishingDate",
        "executionTime", "parameters",
      ].sort(),
    );
    const account = incident.entities.find((e) => e.kind === "Account")!;
    expect(data[0]).toMatchObject({ referenceId: (await playbook(ws, "revoke-sessions")).id, entityId: account.id, entityType: "User", userPrincipalName: account.name, affectedEntity: account.name });
    expect((await json(await host.call("GET", `/workspaces/${ws}/gamebooks/history/7d1c3f0e-5a2b-4c8d-9e6f-1a2b3c4d5e6f/playbooks`))).code).toBe("NOT_FOUND");
    expect((await json(await host.call("GET", `/workspaces/${ws}/gamebooks/history/no-such-run/playbooks`))).code).toBe("VALIDATION_ERROR");
    expect((await host.call("GET", `/workspaces/${ws}/gamebooks/history/${id.toUpperCase()}/playbooks`)).status).toBe(200);
    expect((await json(await host.call("GET", `/workspaces/${clinics}/gamebooks/history/${id}/playbooks`))).code).toBe("NOT_FOUND");
  });

  it("by-incident lists every run on the incident, newest first, of one source when asked (A to F)", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const first = await submitted(incident, [{ ref: "revoke-sessions" }]);
    await new Promise((r) => setTimeout(r, 5));
    const second = await submitted(incident, [{ ref: "add-comment", parameters: { message: "again" } }]);
    const { data } = await json(await host.call("GET", `/workspaces/${ws}/gamebooks/by-incident/${incident.id}`));
    expect(data.map((r: Json) => r.id)).toEqual([second.id, first.id]);
    expect((await json(await host.call("GET", `/workspaces/${ws}/gamebooks/by-incident/${incident.id}?source=sourcea`))).data).toHaveLength(2);
    expect((await json(await host.call("GET", `/workspaces/${ws}/gamebooks/by-incident/${incident.id}?source=SourceB`))).data).toEqual([]);
    expect((await json(await host.call("GET", `/workspaces/${ws}/gamebooks/by-incident/${incident.id}?source=SourceG`))).code).toBe("VALIDATION_ERROR");
    expect((await json(await host.call("GET", `/workspaces/${ws}/gamebooks/by-incident/never-ran`))).data).toEqual([]);
  });

  it("history lists the workspace's runs newest first, filtered by query, page by page with pageToken", async () => {
    const stores = host.demo.workspaces[1]!.id;
    const marker = `Wirecard-${Math.random().toString(36).slice(2, 8)}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const incident = incidentWith(stores, ["Account"], `Impossible travel activity for ${marker.toLowerCase()}-${i}@fabrikam.example`);
      ids.unshift((await submitted(incident, [{ ref: "revoke-sessions" }])).id);
      await new Promise((r) => setTimeout(r, 3));
    }
    const seen: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await json(await host.call("GET", `/workspaces/${stores}/gamebooks/history?query=${marker.toUpperCase()}&pageSize=2${token ? `&pageToken=${token}` : ""}`));
      seen.push(...res.data.map((r: Json) => r.id));
      expect(res.pagination.hasMore).toBe(res.pagination.continuationToken !== undefined);
      token = res.pagination.continuationToken;
      if (!token) break;
    }
    expect(seen).toEqual(ids);
    // The submitter's name and the gamebook title are searched too.
    const bySubmitter = await json(await host.call("GET", `/workspaces/${stores}/gamebooks/history?query=${encodeURIComponent("local admin")}&pageSize=200`));
    expect(bySubmitter.data.map((r: Json) => r.id)).toEqual(expect.arrayContaining(ids));
    const first = await json(await host.call("GET", `/workspaces/${stores}/gamebooks/history?query=${marker}&pageSize=2`));
    const replayed = await json(await host.call("GET", `/workspaces/${stores}/gamebooks/history?query=other&pageToken=${first.pagination.continuationToken}`));
    expect([replayed.code, Object.keys(replayed.errors)]).toEqual(["VALIDATION_ERROR", ["pageToken"]]);
    expect((await json(await host.call("GET", `/workspaces/${stores}/gamebooks/history?pageToken=abc`))).code).toBe("VALIDATION_ERROR");
  });
});

describe("responses", () => {
  it("every gamebook route answers what its documented response schema says", async () => {
    const incident = incidentWith(ws, ["Account"]);
    const { id } = await submitted(incident, [{ ref: "revoke-sessions" }, { ref: "add-comment", parameters: { message: "checked" } }]);
    await finished(ws, id);
    const calls: [string, string, string][] = [
      ["GET", "/workspaces/{workspaceId}/gamebooks/rules/{incidentTitle}", `/workspaces/${ws}/gamebooks/rules/${encodeURIComponent(incident.title)}`],
      ["GET", "/workspaces/{workspaceId}/gamebooks/history", `/workspaces/${ws}/gamebooks/history?pageSize=5`],
      ["GET", "/workspaces/{workspaceId}/gamebooks/history/{gamebookId}/playbooks", `/workspaces/${ws}/gamebooks/history/${id}/playbooks`],
      ["GET", "/workspaces/{workspaceId}/gamebooks/by-incident/{incidentId}", `/workspaces/${ws}/gamebooks/by-incident/${incident.id}`],
      ["GET", "/gamebooks/across-workspaces/history", "/gamebooks/across-workspaces/history"],
      ["GET", "/workspaces/{workspaceId}/incidents/{source}/{incidentId}/last-gamebook", `/workspaces/${ws}/incidents/SourceA/${incident.id}/last-gamebook`],
    ];
    for (const [method, template, path] of calls) {
      const route = allRoutes().find((r) => r.method === method && r.path === template)!;
      const res = await host.call(method, path);
      expect([template, res.status]).toEqual([template, 200]);
      const parsed = route.response!.safeParse((await json(res)).data);
      expect(parsed.error?.issues ?? [], template).toEqual([]);
    }
  });
});

describe("GET /gamebooks/across-workspaces/history", () => {
  const across = async (query: string, auth?: { clientId: string; clientSecret: string }) => json(await host.call("GET", `/gamebooks/across-workspaces/history?${query}`, { auth }));

  it("merges the mapped workspaces' runs newest first, by page number, the same with or without the page token", async () => {
    const marker = `Nimbus-${Math.random().toString(36).slice(2, 8)}`;
    const workspaces = [ws, host.demo.workspaces[1]!.id, northwind];
    const made: { id: string; workspaceId: string }[] = [];
    const title = (i: number) => `Impossible travel activity for ${marker.toLowerCase()}-${i}@example.com`;
    // Ten at a time: runs created at once share creation times, which the order breaks by id.
    for (let start = 0; start < 110; start += 10) {
      const batch = Array.from({ length: 10 }, (_, k) => start + k).map(async (i) => {
        const workspaceId = workspaces[i % 3]!;
        const incident = host.simulated.vendors.createIncident("SourceA", workspaceId, { title: title(i), severity: "Low" });
        return { id: (await submitted(incident, [{ ref: "add-comment", parameters: { message: `run ${i}` } }])).id as string, workspaceId };
      });
      made.push(...(await Promise.all(batch)));
    }
    const expected = await Promise.all(made.map(async (m) => runOf(m.workspaceId, m.id)));
    expected.sort((a, b) => (a.creationDate !== b.creationDate ? (a.creationDate < b.creationDate ? 1 : -1) : a.id < b.id ? 1 : -1));
    const q = `query=${marker}&workspaces=${workspaces[0]}&workspaces=${workspaces[1]},${workspaces[2]}`;

    const pages: Json[] = [];
    let token: string | undefined;
    for (let page = 1; page <= 3; page++) {
      const body = await across(`${q}&currentPage=${page}${token ? `&pageToken=${token}` : ""}`);
      expect(body.data).toMatchObject({ currentPage: page, pageSize: 50, hasMore: page < 3 });
      pages.push(body);
      token = body.pagination.continuationToken;
    }
    expect(pages.flatMap((p) => p.data.runs.map((r: Json) => r.id))).toEqual(expected.map((r) => r.id));
    expect(pages[2]!.pagination).toEqual({ hasMore: false });
    // Reached by page number alone: the same pages.
    expect((await across(`${q}&currentPage=2`)).data.runs.map((r: Json) => r.id)).toEqual(pages[1]!.data.runs.map((r: Json) => r.id));
    expect((await across(`${q}&currentPage=3`)).data.runs.map((r: Json) => r.id)).toEqual(pages[2]!.data.runs.map((r: Json) => r.id));
    // Page 1's token may also be used to reach page 3.
    expect((await across(`${q}&currentPage=3&pageToken=${pages[0]!.pagination.continuationToken}`)).data.runs).toHaveLength(10);
    expect((await across(`${q}&currentPage=4`)).data).toMatchObject({ runs: [], currentPage: 4, hasMore: false });
    // A filter on one workspace and on statuses.
    const one = await across(`query=${marker}&workspaces=${northwind}&statuses=Pending,Running,Succeeded`);
    expect(one.data.runs.every((r: Json) => r.workspaceId === northwind)).toBe(true);
    expect(one.data.runs).toHaveLength(36);
    expect((await across(`query=${marker}&statuses=Denied`)).data.runs).toEqual([]);
  });

  it("answers any currentPage the totals allow without a pageToken (docs/contract.md §4.2: the query is workspaces, statuses, currentPage, query, with no limit)", async () => {
    const marker = `deep${Math.random().toString(36).slice(2, 8)}`;
    const workspaces = [ws, clinics, northwind];
    // 1,130 runs, more than 22 pages, written straight to the store (submitting them would take
    // minutes); Pending without approval, which the memory store keeps however many there are.
    const runs = Array.from({ length: 1_130 }, (_, i) => {
      const at = new Date(Date.parse("2026-01-01T00:00:00.000Z") + Math.floor(i / 3) * 60_000 + (i % 7)).toISOString();
      const run = gamebookRun(`${marker}-${String(i).padStart(4, "0")}`, workspaces[i % 3]!, "SourceA", `inc-${marker}-${i}`, 0);
      return { ...run, creationDate: at, modificationDate: at, status: "Pending" as const, searchText: `${marker}\n${run.searchText}` };
    });
    for (let i = 0; i < runs.length; i += 50) await Promise.all(runs.slice(i, i + 50).map((run) => host.services.stores.gamebookRuns.create(run, [])));
    const q = `query=${marker}`;
    let token: string | undefined;
    const walked: Json[] = [];
    for (let page = 1; page <= 23; page++) {
      const body = await across(`${q}&currentPage=${page}${token ? `&pageToken=${token}` : ""}`);
      walked.push(body);
      token = body.pagination.continuationToken;
    }
    for (const page of [22, 23]) {
      const byNumber = await across(`${q}&currentPage=${page}`);
      expect(byNumber.data).toMatchObject({ currentPage: page, hasMore: page < 23 });
      expect(byNumber.data.runs.map((r: Json) => r.id)).toEqual(walked[page - 1]!.data.runs.map((r: Json) => r.id));
    }
    expect(walked[22]!.data.runs).toHaveLength(30);
    expect((await across(`${q}&currentPage=24`)).data).toMatchObject({ runs: [], currentPage: 24, hasMore: false });
    expect((await across(`${q}&currentPage=1000000`)).data).toMatchObject({ runs: [], hasMore: false });
  });

  it("shows only workspaces mapped to the credential and refuses bad parameters and tokens", async () => {
    const incident = incidentWith(clinics, ["Account"]);
    const { id } = await submitted(incident, [{ ref: "revoke-sessions" }]);
    const sa = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }], scopes: ["gamebooks:read"] });
    const mine = await across(`workspaces=${clinics}`, sa);
    expect(mine.data.runs).toEqual([]);
    const all = await across("", sa);
    expect(all.data.runs.every((r: Json) => r.workspaceId === ws)).toBe(true);
    expect((await across(`workspaces=${clinics}`)).data.runs.map((r: Json) => r.id)).toContain(id);

    for (const bad of ["workspaces=not-a-guid", "statuses=Completed", "currentPage=0", "currentPage=x", "pageToken=forged", "unknown=1"]) {
      const body = await across(bad);
      expect([bad, body.code]).toEqual([bad, "VALIDATION_ERROR"]);
    }
    const first = await across("");
    if (first.pagination.continuationToken) {
      const backwards = await across(`currentPage=1&pageToken=${first.pagination.continuationToken}`);
      expect([backwards.code, Object.keys(backwards.errors)]).toEqual(["VALIDATION_ERROR", ["pageToken"]]);
      // A token is bound to its caller.
      expect((await across(`currentPage=2&pageToken=${first.pagination.continuationToken}`, sa)).code).toBe("VALIDATION_ERROR");
    }
  });
});

// --- the demo world and the documentation ----------------------------------------------------------

describe("seeded runs and the OpenAPI example", () => {
  it("the demo's runs are real runs, submitted through the gamebook code and carried out; seeding again submits nothing", async () => {
    const seeded = await seedDemoGamebookRuns(host.services, host.demo.workspaces);
    expect(seeded).toBeGreaterThan(0);
    expect(await seedDemoGamebookRuns(host.services, host.demo.workspaces)).toBe(0);
    const history = await json(await host.call("GET", `/workspaces/${ws}/gamebooks/history?query=automation%20rule&pageSize=200`));
    const automatic = history.data.filter((r: Json) => r.isAutoRun);
    expect(automatic.length).toBeGreaterThan(0);
    for (const run of automatic) {
      const done = await finished(ws, run.id);
      expect(["Succeeded", "PartiallySucceeded", "Failed"]).toContain(done.status);
      const last = await json(await host.call("GET", `/workspaces/${ws}/incidents/${run.source}/${run.incidentId}/last-gamebook`));
      expect(last.data.id).toBe(run.id);
    }
  });

  it("documents the run body with an example that succeeds against the local host, and names the detection-source property", async () => {
    const doc = await json(await host.call("GET", "/openapi.json", { auth: null }));
    const op = doc.paths["/api/v2/workspaces/{workspaceId}/gamebooks/run"].post;
    const example = op.requestBody.content["application/json"].schema.examples[0];
    expect(example).toEqual(runRequestExample);
    expect(op.description).toContain("`source` property");
    expect(op.description).toContain("PartiallySucceeded");
    expect(op.requestBody.content["application/json"].schema.properties.source.description).toContain("unnamed");
    expect(op.responses["200"].content["application/json"].schema.properties.data.examples).toHaveLength(1);
    expect(op.parameters.find((p: Json) => p.name === "workspaceId").example).toBe(EXAMPLE_WORKSPACE_ID);
    const { status, body } = await submit(EXAMPLE_WORKSPACE_ID, example);
    expect([status, body.data?.status]).toEqual([200, "Pending"]);
    const run = await finished(EXAMPLE_WORKSPACE_ID, body.data.id);
    expect(run.title).toBe("Contain a compromised account");
  });
});
