import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import type { Source } from "../../shared/model/sources";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import { BULK_MAX_INCIDENTS } from "../../shared/api/portal/incidents/incident-bulk-schemas";
import { outboxEvents } from "../support/outbox";
import { waitFor } from "../support/wait-for";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/**
 * The incident list's bulk action: many incidents, each changed on its own through the single
 * write's domain operation with the person as actor, each reported. Partial success is the normal
 * case, so most tests mix outcomes in one request.
 */
let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);
/** Moves the clock on, so that a change after a read has a later time than the read saw. */
const tick = () => (clock += 1_000);

let host: TestHost;
let fabrikamProd: string;
let fabrikamStores: string;
let northwindProd: string;
/** Analyst on fabrikam-prod, Owner on northwind-prod, no role on fabrikam-stores (of the same organization). */
let analyst: TestPerson;
let colleague: TestPerson;
let analystEmail: string;

beforeAll(async () => {
  host = await startTestHost({ now, env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "40" } });
  [fabrikamProd, fabrikamStores, northwindProd] = host.demo.workspaces.map((w) => w.id) as [string, string, string];
  analyst = await host.person({
    organizationalRole: "Member",
    workspaceAssignments: [
      { workspaceId: fabrikamProd, role: "Analyst" },
      { workspaceId: northwindProd, role: "Owner" },
    ],
  });
  colleague = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: fabrikamProd, role: "Analyst" }] });
  analystEmail = (await host.services.stores.users.find([host.demo.provider.id], analyst.userId))!.value.email;
}, 120_000);
afterAll(async () => host?.close());

interface Ref {
  workspaceId: string;
  source: Source;
  incidentId: string;
  etag?: string;
}

/** New open incidents titled for this test (so a search finds exactly them), `count` per workspace. */
function raise(workspaceIds: string[], count: number, source: Source = "SourceA"): { title: string; refs: Ref[] } {
  const title = `Bulk drill ${randomUUID().slice(0, 8)}`;
  const refs = workspaceIds.flatMap((workspaceId) =>
    Array.from({ length: count }, () => ({ workspaceId, source, incidentId: host.simulated.vendors.createIncident(source, workspaceId, { title, severity: "Medium" }).id })),
  );
  return { title, refs };
}

/** The incidents titled so, as the person's search answers them: with their ETags. */
async function listed(person: TestPerson, title: string): Promise<Map<string, Json>> {
  const found = new Map<string, Json>();
  let body: Json = { query: title };
  for (;;) {
    const res = await host.portal(person, "POST", "/portal/incidents/search", { body });
    const page = await json(res);
    expect(res.status, JSON.stringify(page)).toBe(200);
    for (const i of page.data.incidents) found.set(`${i.incident.workspaceId}/${i.source}/${i.incident.id}`, i);
    if (!page.data.moreIncidentsAvailable) return found;
    body = { query: title, pageToken: page.data.nextPageToken };
  }
}

const keyOf = (r: Ref) => `${r.workspaceId}/${r.source}/${r.incidentId}`;

/** The refs with the ETags the person's search gave them. */
async function withEtags(person: TestPerson, title: string, refs: Ref[]): Promise<Ref[]> {
  const found = await listed(person, title);
  return refs.map((r) => ({ ...r, etag: found.get(keyOf(r))!.etag as string }));
}

const bulk = (person: TestPerson, incidents: Ref[], changes: Json) => host.portal(person, "POST", "/portal/incidents/bulk", { body: { incidents, changes } });

async function eventsOf(ref: Ref): Promise<Json[]> {
  return (await outboxEvents(host.services, ref.workspaceId)).filter((e) => e.data.incidentId === ref.incidentId);
}

async function auditsOf(ref: Ref): Promise<OutboxAuditRecord[]> {
  const records = await host.services.stores.outbox.list(outboxScope.workspace(ref.workspaceId), 100_000);
  return records.filter((r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.targetResourceId === `${ref.source}/${ref.incidentId}`);
}

const close = { status: "Closed", classification: "FalsePositive", closingComment: "Scanner noise from the weekly sweep." };

describe("POST /portal/incidents/bulk", () => {
  it("closes each incident in its own commit, with its events once and its audit record, and reports every refusal at its incident", async () => {
    const { title, refs } = raise([fabrikamProd, northwindProd], 3);
    const seen = await withEtags(analyst, title, refs);
    const [fresh, stale, closedByColleague, closedAtSource, ...rest] = seen as [Ref, Ref, Ref, Ref, ...Ref[]];
    // After the page was read: an alert arrives on one, a colleague closes another, the source's console a third.
    tick();
    host.simulated.vendors.addAlert(stale.source, stale.workspaceId, stale.incidentId, { title: "Second stage download", severity: "High" });
    expect((await json(await bulk(colleague, [{ ...closedByColleague, etag: undefined }], { ...close, classification: "TruePositive" }))).data.succeeded).toBe(1);
    host.simulated.vendors.close(closedAtSource.source, closedAtSource.workspaceId, closedAtSource.incidentId, "BenignPositive");
    tick();
    // And ones that are not there for the analyst: no role, another organization's or no workspace, no incident.
    const noRole = raise([fabrikamStores], 1).refs[0]!;
    const missing: Ref = { workspaceId: fabrikamProd, source: "SourceA", incidentId: "no-such-incident" };
    const nowhere: Ref = { workspaceId: randomUUID(), source: "SourceA", incidentId: fresh.incidentId };

    const res = await bulk(analyst, [fresh, stale, closedByColleague, closedAtSource, noRole, missing, nowhere, ...rest], close);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    const { results } = body.data;
    expect(results.map((r: Json) => [r.incidentId, r.outcome, r.problem?.code ?? null])).toEqual([
      [fresh.incidentId, "Succeeded", null],
      [stale.incidentId, "Refused", "CONFLICT"],
      [closedByColleague.incidentId, "Refused", "CONFLICT"],
      [closedAtSource.incidentId, "Refused", "CONFLICT"],
      [noRole.incidentId, "Refused", "INSUFFICIENT_WORKSPACE_ROLE"],
      [missing.incidentId, "Refused", "NOT_FOUND"],
      [nowhere.incidentId, "Refused", "NOT_FOUND"],
      ...rest.map((r) => [r.incidentId, "Succeeded", null]),
    ]);
    expect(body.data).toMatchObject({ succeeded: 1 + rest.length, refused: 6, notAttempted: 0, inProgress: 0 });
    expect(results[1].problem).toMatchObject({ status: 409, target: "If-Match" });
    expect(results[1].problem.detail).toContain("changed since you read it");
    // A close the analyst did not see happen: when and by whom, as far as the service knows.
    expect(results[2].problem.detail).toMatch(/closed now, since 2026-11-20T12:00:01.000Z, by Person \w+ in the portal/);
    expect(results[2].problem.detail).toContain(colleague.name);
    expect(results[3].problem.detail).toContain("closed now, at the source itself");
    expect(results[4].problem).toMatchObject({ status: 403, target: "workspaceId" });
    expect(results[5].problem.status).toBe(404);
    expect(results[6].problem).toEqual({ code: "NOT_FOUND", status: 404, detail: "The workspace was not found.", target: "workspaceId" });

    for (const ref of [fresh, ...rest]) {
      const events = await eventsOf(ref);
      expect(events.map((e) => e.type).sort()).toEqual(["incident.closed.v1", "incident.status.changed.v1"]);
      expect(events.find((e) => e.type === "incident.closed.v1")!.data).toMatchObject({
        classification: "FalsePositive",
        closingComment: "Scanner noise from the weekly sweep.",
        closedBy: { origin: "portal", name: analyst.name },
      });
      const audits = await auditsOf(ref);
      expect(audits.map((a) => [a.audit.activityType, a.audit.actorId, a.audit.actorEmail])).toEqual([["IncidentStatus", analyst.userId, analystEmail]]);
    }
    // The refused ones: nothing of the analyst's, not even an audit record.
    for (const ref of [stale, closedAtSource, noRole]) {
      expect((await eventsOf(ref)).filter((e) => e.data.changedBy?.name === analyst.name || e.data.closedBy?.name === analyst.name)).toEqual([]);
      expect((await auditsOf(ref)).filter((a) => a.audit.actorId === analyst.userId)).toEqual([]);
    }
    expect((await auditsOf(closedByColleague)).map((a) => a.audit.actorId)).toEqual([colleague.userId]);
    const detail = await json(await host.portal(analyst, "GET", `/portal/workspaces/${fresh.workspaceId}/incidents/SourceA/${fresh.incidentId}`));
    expect(detail.data.incident).toMatchObject({ incident: { status: "Closed" }, classification: "FalsePositive" });
  }, 60_000);

  it("assigns and closes in one request: per incident the assignment's commit then the close's, with the two single writes' events in that order; a refusal reports which change", async () => {
    const { title, refs } = raise([fabrikamProd, northwindProd], 3);
    const seen = await withEtags(analyst, title, refs);
    const [closedByColleague, ...rest] = seen as [Ref, ...Ref[]];
    tick();
    expect((await json(await bulk(colleague, [{ ...closedByColleague, etag: undefined }], { ...close, classification: "TruePositive" }))).data.succeeded).toBe(1);
    tick();
    const noRole = raise([fabrikamStores], 1).refs[0]!;

    const res = await bulk(analyst, [closedByColleague, noRole, ...rest], { assignee: { userId: analyst.userId, email: analystEmail }, ...close });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    const { results } = body.data;
    const changes = (r: Json) => r.changes.map((c: Json) => `${c.change} ${c.outcome} ${c.problem?.code ?? "-"}`);
    expect(results.map((r: Json) => [r.outcome, r.problem?.code ?? null, ...changes(r)])).toEqual([
      // The version the analyst saw is gone: the assignment is refused, so the close is not attempted.
      ["Refused", "CONFLICT", "assignee Refused CONFLICT", "status NotAttempted CONFLICT"],
      ["Refused", "INSUFFICIENT_WORKSPACE_ROLE", "assignee Refused INSUFFICIENT_WORKSPACE_ROLE", "status NotAttempted INSUFFICIENT_WORKSPACE_ROLE"],
      ...rest.map(() => ["Succeeded", null, "assignee Succeeded -", "status Succeeded -"]),
    ]);
    expect(body.data).toMatchObject({ succeeded: rest.length, refused: 2, notAttempted: 0, inProgress: 0 });
    expect(results[0].problem).toEqual(results[0].changes[0].problem);
    expect(results[0].problem.detail).toContain(`by ${colleague.name} in the portal`);
    expect(results[0].changes[1].problem.detail).toMatch(/^Not attempted: the assignee change before it was refused\./);

    for (const ref of rest) {
      // The events of PUT …/assignee and those of PUT …/status closing it, each once (the stores order
      // records of one instant as they please: the fake clock does not move within the request).
      const events = await eventsOf(ref);
      expect(events.map((e) => e.type).sort()).toEqual(["incident.assignee.changed.v1", "incident.closed.v1", "incident.status.changed.v1"]);
      // The assignment came first: its event found the incident still open.
      expect(events.find((e) => e.type === "incident.assignee.changed.v1")!.data).toMatchObject({ status: "New", assignee: { email: analystEmail } });
      expect(events.find((e) => e.type === "incident.closed.v1")!.data).toMatchObject({ classification: "FalsePositive", closedBy: { origin: "portal", name: analyst.name } });
      const audits = await auditsOf(ref);
      expect(audits.map((a) => [a.audit.activityType, a.audit.actorId, JSON.parse(a.audit.metadata as string)]).sort()).toEqual([
        ["IncidentAssignee", analyst.userId, { assigneeEmail: analystEmail, assigneeUserId: analyst.userId }],
        ["IncidentStatus", analyst.userId, { status: "Closed", classification: "FalsePositive", serviceStatus: "Closed" }],
      ]);
    }
    const listedNow = await listed(analyst, title);
    for (const ref of rest) expect(listedNow.get(keyOf(ref))).toMatchObject({ incident: { status: "Closed" }, assignee: { email: analystEmail } });
    expect(listedNow.get(keyOf(closedByColleague))!.assignee).toBeNull();
    for (const ref of [closedByColleague, noRole]) expect((await auditsOf(ref)).filter((a) => a.audit.actorId === analyst.userId)).toEqual([]);
  }, 60_000);

  it("assigns an incident closed meanwhile and refuses only its close: the assignment stays, nothing is rolled back, and the answer says which change was refused", async () => {
    const { refs } = raise([northwindProd], 2);
    const [, closedAtSource] = refs as [Ref, Ref];
    host.simulated.vendors.close(closedAtSource.source, closedAtSource.workspaceId, closedAtSource.incidentId, "BenignPositive");
    // No etags: the assignment acts on each incident as it is, and a close never closes again.
    const body = await json(await bulk(analyst, refs, { assignee: { userId: analyst.userId, email: analystEmail }, status: "Closed", classification: "TruePositive" }));
    expect(body.data.results.map((r: Json) => [r.outcome, r.changes.map((c: Json) => [c.change, c.outcome, c.problem?.code ?? null])])).toEqual([
      ["Succeeded", [["assignee", "Succeeded", null], ["status", "Succeeded", null]]],
      ["Refused", [["assignee", "Succeeded", null], ["status", "Refused", "CONFLICT"]]],
    ]);
    expect(body.data).toMatchObject({ succeeded: 1, refused: 1 });
    expect(body.data.results[1].problem).toMatchObject({ code: "CONFLICT", status: 409, target: "status" });
    // Closed at the source, not by anyone the service knows of (the assignment stored its state, so the service knows since when).
    expect(body.data.results[1].problem.detail).toMatch(/^The incident is closed already, since [0-9T:.-]+Z; it is not closed again over that close\.$/);
    const detail = await json(await host.portal(analyst, "GET", `/portal/workspaces/${closedAtSource.workspaceId}/incidents/SourceA/${closedAtSource.incidentId}`));
    expect(detail.data.incident).toMatchObject({ assignee: { email: analystEmail }, classification: "BenignPositive" });
    expect((await eventsOf(closedAtSource)).filter((e) => e.data.changedBy?.name === analyst.name || e.data.closedBy?.name === analyst.name).map((e) => e.type)).toEqual([
      "incident.assignee.changed.v1",
    ]);
    expect((await auditsOf(closedAtSource)).map((a) => a.audit.activityType)).toEqual(["IncidentAssignee"]);
  }, 60_000);

  it("assigns, reassigns and unassigns as the single write does, each incident's assignee event once", async () => {
    const { title, refs } = raise([fabrikamProd, northwindProd], 2);
    const seen = await withEtags(analyst, title, refs);
    const mine = await json(await bulk(analyst, seen, { assignee: { userId: analyst.userId, email: analystEmail } }));
    expect(mine.data, JSON.stringify(mine)).toMatchObject({ succeeded: refs.length, refused: 0 });
    const listedNow = await listed(analyst, title);
    for (const ref of refs) expect(listedNow.get(keyOf(ref))!.assignee).toMatchObject({ userId: analyst.userId, email: analystEmail, name: analyst.name });
    // The ETags the first answer made stale: the list read again gives the current ones.
    const again = await json(await bulk(analyst, seen, { assignee: { userId: null, email: null } }));
    expect(again.data.refused).toBe(refs.length);
    const unassigned = await json(await bulk(analyst, await withEtags(analyst, title, refs), { assignee: { userId: null, email: null } }));
    expect(unassigned.data.succeeded).toBe(refs.length);
    for (const ref of refs) {
      const events = (await eventsOf(ref)).filter((e) => e.type === "incident.assignee.changed.v1");
      expect(events.map((e) => [e.data.previousAssignee?.email ?? null, e.data.assignee?.email ?? null])).toEqual([
        [null, analystEmail],
        [analystEmail, null],
      ]);
      expect((await auditsOf(ref)).map((a) => a.audit.activityType)).toEqual(["IncidentAssignee", "IncidentAssignee"]);
    }
    // An e-mail address is what names an assignee.
    const noEmail = await bulk(analyst, refs, { assignee: { userId: analyst.userId, email: null } });
    expect([noEmail.status, Object.keys((await json(noEmail)).errors)]).toEqual([400, ["changes.assignee.email"]]);
  }, 60_000);

  it("sets a status, pausing the SLA clock with OnHold; a closed incident cannot go OnHold (VALIDATION_ERROR at it)", async () => {
    const { refs } = raise([northwindProd], 2);
    const [open, closed] = refs as [Ref, Ref];
    host.simulated.vendors.close(closed.source, closed.workspaceId, closed.incidentId, "Undetermined");
    const res = await json(await bulk(analyst, refs, { status: "OnHold" }));
    expect(res.data.results.map((r: Json) => [r.outcome, r.problem?.code ?? null, r.problem?.target ?? null])).toEqual([
      ["Succeeded", null, null],
      ["Refused", "VALIDATION_ERROR", "status"],
    ]);
    const detail = await json(await host.portal(analyst, "GET", `/portal/workspaces/${open.workspaceId}/incidents/SourceA/${open.incidentId}`));
    expect(detail.data.incident).toMatchObject({ serviceStatus: "OnHold", sla: { state: "Paused" } });
    expect((await eventsOf(open)).map((e) => [e.type, e.data.serviceStatus])).toEqual([["incident.status.changed.v1", "OnHold"]]);
  }, 60_000);

  it("tells nothing about other organizations: their workspaces are not there, as a workspace that does not exist", async () => {
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    const customerAnalyst = await host.person({ organizationalRole: "Member", accountId: fabrikam.id, workspaceAssignments: [{ workspaceId: fabrikamProd, role: "Analyst" }] });
    const [own] = raise([fabrikamProd], 1).refs as [Ref];
    const [foreign] = raise([northwindProd], 1).refs as [Ref];
    const invented: Ref = { ...foreign, workspaceId: randomUUID() };
    const res = await json(await bulk(customerAnalyst, [own, foreign, invented], { status: "Active" }));
    expect(res.data.results.map((r: Json) => r.outcome)).toEqual(["Succeeded", "Refused", "Refused"]);
    expect(res.data.results[1].problem).toEqual(res.data.results[2].problem);
    expect(res.data.results[1].problem.code).toBe("NOT_FOUND");
    // The provider's own organization-wide role does not act without a workspace role either.
    const admin = await host.person({ organizationalRole: "Admin" });
    const byAdmin = await json(await bulk(admin, [own], { status: "New" }));
    expect(byAdmin.data.results[0].problem).toMatchObject({ code: "INSUFFICIENT_WORKSPACE_ROLE", status: 403 });
  }, 60_000);

  it("reports an upstream failure at its incidents and changes the others", async () => {
    const { refs } = raise([northwindProd], 1, "SourceF");
    const [other] = raise([northwindProd], 1).refs as [Ref];
    host.simulated.vendors.rateLimit("SourceF", 30);
    try {
      const res = await json(await bulk(analyst, [...refs, other], { status: "Active" }));
      expect(res.data.results.map((r: Json) => [r.outcome, r.problem?.code ?? null])).toEqual([
        ["Refused", "RATE_LIMITED"],
        ["Succeeded", null],
      ]);
      expect(res.data.results[0].problem.status).toBe(429);
    } finally {
      clock += 60_000;
    }
  }, 60_000);

  it("refuses a request naming an incident twice, or none, or more than the limit, before anything is changed (400 at the entry)", async () => {
    const [ref] = raise([fabrikamProd], 1).refs as [Ref];
    const twice = await bulk(analyst, [ref, { ...ref, workspaceId: ref.workspaceId.toUpperCase(), source: "sourcea" as Source }], close);
    const problem = await json(twice);
    expect([twice.status, problem.code, Object.keys(problem.errors)]).toEqual([400, "VALIDATION_ERROR", ["incidents[1]"]]);
    expect(problem.errors["incidents[1]"][0]).toContain("incidents[0]");
    expect(await auditsOf(ref)).toEqual([]);
    const none = await bulk(analyst, [], close);
    expect([none.status, Object.keys((await json(none)).errors)]).toEqual([400, ["incidents"]]);
    const many = Array.from({ length: BULK_MAX_INCIDENTS + 1 }, (_, i) => ({ ...ref, incidentId: `incident-${i}` }));
    const tooMany = await bulk(analyst, many, close);
    expect([tooMany.status, Object.keys((await json(tooMany)).errors)]).toEqual([400, ["incidents"]]);
    const unclassified = await bulk(analyst, [ref], { assignee: { userId: null, email: null }, status: "Closed" });
    expect([unclassified.status, Object.keys((await json(unclassified)).errors)]).toEqual([400, ["changes.classification"]]);
    const nothing = await bulk(analyst, [ref], {});
    expect([nothing.status, Object.keys((await json(nothing)).errors)]).toEqual([400, ["changes"]]);
    const classifiedOnly = await bulk(analyst, [ref], { classification: "FalsePositive" });
    expect([classifiedOnly.status, Object.keys((await json(classifiedOnly)).errors).sort()]).toEqual([400, ["changes", "changes.classification"]]);
    expect(await auditsOf(ref)).toEqual([]);
  }, 60_000);

  it("takes the most incidents it allows in one request, refusing none: each changed, or left untouched when the request's time runs out", async () => {
    const { refs } = raise([fabrikamProd, northwindProd], BULK_MAX_INCIDENTS / 2);
    const res = await json(await bulk(analyst, refs, { status: "Active" }));
    const { succeeded, refused, notAttempted, inProgress, results } = res.data;
    expect(results).toHaveLength(BULK_MAX_INCIDENTS);
    expect(refused).toBe(0);
    expect(succeeded + notAttempted + inProgress).toBe(BULK_MAX_INCIDENTS);
    expect(succeeded).toBeGreaterThan(0);
    // At the source: each one changed is Active, each one not attempted still New.
    for (const [i, r] of (results as Json[]).entries()) {
      const ref = refs[i]!;
      const { status } = await host.services.sources.gateway(ref.source).getIncident(ref.workspaceId, ref.incidentId);
      if (r.outcome === "Succeeded") expect(status, ref.incidentId).toBe("Active");
      if (r.outcome === "NotAttempted") expect(status, ref.incidentId).toBe("New");
    }
  }, 60_000);
});

describe("POST /portal/incidents/bulk against the request's deadline", () => {
  // 1 s (the least the setting takes) and a vendor answering in 100 ms: 100 changes of two vendor
  // calls each (a read, then the status written), 8 at a time, need about 2.5 s, so the budget ends part-way.
  let slow: TestHost;
  let person: TestPerson;
  beforeAll(async () => {
    slow = await startTestHost({ env: { REQUEST_DEADLINE_MS: "1000", SIMULATED_VENDOR_LATENCY_MS: "100", SIMULATED_INCIDENTS_PER_WORKSPACE: "10" } });
    person = await slow.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: slow.demo.workspaces[0]!.id, role: "Analyst" }] });
  }, 120_000);
  afterAll(async () => slow?.close());

  it("answers in time: changes not started are NotAttempted and untouched, every other one is changed whole", async () => {
    const workspaceId = slow.demo.workspaces[0]!.id;
    const refs = Array.from({ length: 100 }, () => ({
      workspaceId,
      source: "SourceA" as Source,
      incidentId: slow.simulated.vendors.createIncident("SourceA", workspaceId, { title: "Deadline drill", severity: "Low" }).id,
    }));
    const res = await slow.portal(person, "POST", "/portal/incidents/bulk", { body: { incidents: refs, changes: { status: "Active" } } });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    const { results, succeeded, notAttempted, inProgress } = body.data;
    expect(succeeded + inProgress).toBeGreaterThan(0);
    expect(notAttempted).toBeGreaterThan(0);
    expect(succeeded + notAttempted + inProgress).toBe(refs.length);
    const records = await slow.services.stores.outbox.list(outboxScope.workspace(workspaceId), 100_000);
    const audited = (r: Json) => records.some((x) => x.kind === "audit" && x.audit.targetResourceId === `SourceA/${r.incidentId}`);
    for (const r of results) {
      if (r.outcome === "NotAttempted") {
        expect(r.problem).toMatchObject({ code: "TIMEOUT", status: 504 });
        expect(audited(r)).toBe(false);
      }
      if (r.outcome === "Succeeded") expect(audited(r)).toBe(true);
    }
    // A change under way when the answer went out completes on its own.
    const pending = results.filter((r: Json) => r.outcome === "InProgress");
    await waitFor(async () => {
      const now = await slow.services.stores.outbox.list(outboxScope.workspace(workspaceId), 100_000);
      return pending.every((r: Json) => now.some((x) => x.kind === "audit" && x.audit.targetResourceId === `SourceA/${r.incidentId}`));
    }, "the changes under way to complete");
  }, 60_000);
});
