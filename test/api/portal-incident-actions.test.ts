import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventEnvelope } from "../../shared/platform/events/event-message";
import { outboxAudits } from "../support/audit-events";
import { outboxEvents } from "../support/outbox";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/**
 * One incident worked in the portal: assign, status and SLA clock, close, comment, tickets, Trigger
 * webhook, who may be assigned; each the domain operation the contract's routes run, audited with the
 * person as actor, with the contract's events. And comment create for service accounts.
 */
let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);
const minutes = (n: number) => (clock += n * 60_000);

let host: TestHost;
let ws: string;
let clinics: string;
let analyst: TestPerson;
let owner: TestPerson;
let reader: TestPerson;
let roleless: TestPerson;

/** The address a test person is registered with (test-host.ts). */
const emailOf = (person: TestPerson) => `${person.userId.slice(0, 8)}@contoso.example`;

beforeAll(async () => {
  // The clock moves on by hours to watch SLA clocks: the sessions outlast it.
  host = await startTestHost({ now, env: { PORTAL_SESSION_HOURS: "24" } });
  ws = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  // Ticketing is off there (demo-data.ts).
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  analyst = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }, { workspaceId: clinics, role: "Analyst" }] });
  owner = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: ws, role: "Owner" }] });
  reader = await host.person({ organizationalRole: "WorkspaceAdmin" });
  roleless = await host.person({ organizationalRole: "Member" });
});
afterAll(async () => host?.close());

const newIncident = (severity: "High" | "Medium" | "Low" | "Informational" = "High", workspaceId = ws) =>
  host.simulated.vendors.createIncident("SourceA", workspaceId, { title: `Worked in the portal ${Math.random().toString(36).slice(2, 8)}`, severity });
const pathOf = (id: string, workspaceId = ws) => `/portal/workspaces/${workspaceId}/incidents/SourceA/${id}`;

/** The incident page's read: its detail and ETag. */
async function detail(person: TestPerson, id: string, workspaceId = ws) {
  const res = await host.portal(person, "GET", pathOf(id, workspaceId));
  expect(res.status).toBe(200);
  return { data: (await json(res)).data, etag: res.headers.get("etag")! };
}

/** A write as the page sends it: with the ETag it read. */
async function act(person: TestPerson, method: string, path: string, body?: unknown, etag?: string) {
  return host.portal(person, method, path, { body, headers: etag ? { "If-Match": etag } : {} });
}

async function eventsOf(id: string, type: string): Promise<EventEnvelope[]> {
  return (await outboxEvents(host.services, ws)).filter((e) => e.type === type && (e.data as Json).incidentId === id);
}

async function auditsOf(activityType: string, targetResourceId: string) {
  return (await outboxAudits(host.services, ws)).filter((a) => a.activityType === activityType && a.targetResourceId.startsWith(targetResourceId));
}

/** The person as an audit event names its actor. */
const asActor = (person: TestPerson) => ({ actorId: person.userId, actorName: person.name, actorEmail: emailOf(person) });

describe("assign", () => {
  it("assigns to the person (their name from the organization's people), emits incident.assignee.changed.v1 from the portal, audited with the person as actor", async () => {
    const incident = newIncident();
    const { etag } = await detail(analyst, incident.id);
    const res = await act(analyst, "PUT", `${pathOf(incident.id)}/assignee`, { userId: analyst.userId, email: emailOf(analyst) }, etag);
    expect(res.status).toBe(204);
    const after = await detail(analyst, incident.id);
    expect(after.data.incident.assignee).toEqual({ userId: analyst.userId, email: emailOf(analyst), name: analyst.name, isAgent: false });
    expect(after.etag).not.toBe(etag);
    const [event] = await eventsOf(incident.id, "incident.assignee.changed.v1");
    expect(event!.data).toMatchObject({ assignee: { email: emailOf(analyst) }, previousAssignee: null, changedBy: { origin: "portal", serviceAccountId: null, name: analyst.name } });
    expect(await auditsOf("IncidentAssignee", `SourceA/${incident.id}`)).toEqual([expect.objectContaining(asActor(analyst))]);

    // Unassigned with both fields null; the vendor's owner goes too.
    expect((await act(analyst, "PUT", `${pathOf(incident.id)}/assignee`, { userId: null, email: null }, after.etag)).status).toBe(204);
    expect((await detail(analyst, incident.id)).data.incident.assignee).toBeNull();
    expect((await eventsOf(incident.id, "incident.assignee.changed.v1")).map((e) => (e.data as Json).assignee)).toEqual([expect.any(Object), null]);
  });

  it("lists who may be assigned: the people with a role on the workspace, active ones only, the caller marked", async () => {
    const leaver = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }], isActive: false });
    const res = await host.portal(analyst, "GET", `${pathOf(newIncident().id)}/assignees`);
    expect(res.status).toBe(200);
    const people = (await json(res)).data as Json[];
    const ids = people.map((p) => p.userId);
    expect(ids).toEqual(expect.arrayContaining([analyst.userId, owner.userId]));
    for (const absent of [reader, roleless, leaver]) expect(ids).not.toContain(absent.userId);
    expect(people.filter((p) => p.isYou).map((p) => p.userId)).toEqual([analyst.userId]);
    expect(people.find((p) => p.userId === owner.userId)).toMatchObject({ workspaceRole: "Owner", email: emailOf(owner), displayName: owner.name });
    // The demo's provider people work every workspace: Jonas (Owner) and Li (Analyst).
    expect(people.map((p) => p.displayName)).toEqual(expect.arrayContaining(["Jonas Becker", "Li Wei"]));
    expect(people.map((p) => p.displayName)).toEqual([...people.map((p) => p.displayName)].sort((a, b) => a.localeCompare(b)));
    // Anyone who may see the workspace reads it; an organization-wide reader is marked nowhere.
    const asReader = (await json(await host.portal(reader, "GET", `${pathOf(newIncident().id)}/assignees`))).data as Json[];
    expect(asReader.some((p) => p.isYou)).toBe(false);
  });
});

describe("status, the SLA clock and its target", () => {
  it("OnHold pauses the clock (the source is not written), Active resumes it; the view shows the workspace's target, what remains and when it falls due", async () => {
    const incident = newIncident("High");
    minutes(60);
    const running = await detail(analyst, incident.id);
    expect(running.data.incident.sla).toMatchObject({ state: "Running", elapsedSeconds: 3600, targetSeconds: 4 * 3600, remainingSeconds: 3 * 3600, breached: false });
    expect(running.data.incident.sla.dueAt).toBe(new Date(clock + 3 * 3_600_000).toISOString());

    expect((await act(analyst, "PUT", `${pathOf(incident.id)}/status`, { status: "OnHold" }, running.etag)).status).toBe(204);
    minutes(120);
    const held = await detail(analyst, incident.id);
    expect(held.data.incident).toMatchObject({ serviceStatus: "OnHold", incident: { status: "New" } });
    expect(held.data.incident.sla).toMatchObject({ state: "Paused", elapsedSeconds: 3600, remainingSeconds: 3 * 3600, dueAt: null, breached: false });

    expect((await act(analyst, "PUT", `${pathOf(incident.id)}/status`, { status: "Active" }, held.etag)).status).toBe(204);
    minutes(30);
    const resumed = await detail(analyst, incident.id);
    expect(resumed.data.incident.sla).toMatchObject({ state: "Running", elapsedSeconds: 5400, remainingSeconds: 9000 });
    expect(resumed.data.incident.sla.dueAt).toBe(new Date(clock + 9_000_000).toISOString());
    // The contract's incident route shows the same block.
    const contract = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/${incident.id}`));
    expect(contract.data.sla).toEqual(resumed.data.incident.sla);

    const moves = await eventsOf(incident.id, "incident.status.changed.v1");
    expect(moves.map((e) => [(e.data as Json).serviceStatus, (e.data as Json).changedBy.origin])).toEqual([
      ["OnHold", "portal"],
      ["Active", "portal"],
    ]);
    expect((await auditsOf("IncidentStatus", `SourceA/${incident.id}`)).map((a) => [JSON.parse(a.metadata).status, a.actorId])).toEqual([
      ["OnHold", analyst.userId],
      ["Active", analyst.userId],
    ]);
  });

  it("closes with a classification and a closing comment: incident.closed.v1 names the portal; the clock stops; OnHold on a closed incident is 400", async () => {
    const incident = newIncident("Medium");
    minutes(10);
    const { etag } = await detail(analyst, incident.id);
    const closing = { status: "Closed", classification: "TruePositive", closingComment: "Credentials reset; the user confirmed the phishing mail." };
    expect((await act(analyst, "PUT", `${pathOf(incident.id)}/status`, closing, etag)).status).toBe(204);
    const closed = await detail(analyst, incident.id);
    expect(closed.data.incident).toMatchObject({ serviceStatus: "Closed", classification: "TruePositive", sla: { state: "Stopped", elapsedSeconds: 600, targetSeconds: 86_400, dueAt: null, breached: false } });
    const [event] = await eventsOf(incident.id, "incident.closed.v1");
    expect(event!.data).toMatchObject({ classification: "TruePositive", closingComment: closing.closingComment, closedBy: { origin: "portal", name: analyst.name } });
    expect(await eventsOf(incident.id, "incident.status.changed.v1")).toHaveLength(1);

    const onHold = await act(analyst, "PUT", `${pathOf(incident.id)}/status`, { status: "OnHold" }, closed.etag);
    expect([onHold.status, (await json(onHold)).code, (await json(onHold)).target]).toEqual([400, "VALIDATION_ERROR", "status"]);
    const unclassified = await act(analyst, "PUT", `${pathOf(incident.id)}/status`, { status: "Closed" });
    expect((await json(unclassified)).errors).toHaveProperty("classification");
  });

  it("a closed incident past its target shows it breached", async () => {
    const incident = newIncident("High");
    minutes(5 * 60);
    const late = await detail(analyst, incident.id);
    expect(late.data.incident.sla).toMatchObject({ state: "Running", breached: true, remainingSeconds: -3600 });
    expect(Date.parse(late.data.incident.sla.dueAt)).toBe(clock - 3_600_000);
    await act(analyst, "PUT", `${pathOf(incident.id)}/status`, { status: "Closed", classification: "BenignPositive" }, late.etag);
    expect((await detail(analyst, incident.id)).data.incident.sla).toMatchObject({ state: "Stopped", breached: true, dueAt: null });
  });
});

describe("comments", () => {
  it("adds the analyst's comment under their name and address (not an agent's), emits incident.comment.added.v1 from the portal, audited with the person", async () => {
    const incident = newIncident();
    const { etag } = await detail(analyst, incident.id);
    const message = "Called the user: the sign-in at 03:12 was not them.";
    minutes(1);
    expect((await act(analyst, "POST", `${pathOf(incident.id)}/comments`, { message }, etag)).status).toBe(204);
    const after = await detail(analyst, incident.id);
    const comment = (after.data.comments as Json[]).find((c) => c.message === message);
    expect(comment).toMatchObject({ authorName: analyst.name, authorEmail: emailOf(analyst), isAgentComment: false, agentName: null });
    const [event] = await eventsOf(incident.id, "incident.comment.added.v1");
    expect(event!.data).toMatchObject({ comment: { id: comment!.id, message, authorName: analyst.name, isAgentComment: false }, addedBy: { origin: "portal", name: analyst.name } });
    expect(await auditsOf("IncidentComment", `SourceA/${incident.id}/${comment!.id}`)).toEqual([expect.objectContaining({ ...asActor(analyst), activityAction: "Create" })]);
    // A comment moves the source's last-modified time: the ETag read before is stale now.
    const stale = await act(analyst, "POST", `${pathOf(incident.id)}/comments`, { message: "Again." }, etag);
    expect([stale.status, (await json(stale)).code]).toEqual([409, "CONFLICT"]);
  });
});

describe("tickets", () => {
  it("links by number, lists, and unlinks by the ticket's id; each audited with the person", async () => {
    const incident = newIncident();
    const tickets = `${pathOf(incident.id)}/tickets`;
    expect((await json(await host.portal(analyst, "GET", tickets))).data).toEqual([]);
    expect((await act(analyst, "POST", tickets, { ticketNumber: "sec-2219" })).status).toBe(204);
    const [link] = (await json(await host.portal(analyst, "GET", tickets))).data as Json[];
    expect(link).toMatchObject({ incidentId: incident.id, ticketNumber: "SEC-2219", ticketId: "12219", linkedBy: { serviceAccountId: null, userId: analyst.userId, name: analyst.name } });
    const again = await act(analyst, "POST", tickets, { ticketId: "12219" });
    expect([again.status, (await json(again)).code]).toEqual([409, "CONFLICT"]);
    // The link's activity comment joins the incident's comments, as the contract's link does.
    expect(((await detail(analyst, incident.id)).data.comments as Json[]).some((c) => c.ticketId === "12219")).toBe(true);
    expect((await act(analyst, "DELETE", `${tickets}/12219`)).status).toBe(204);
    expect((await json(await host.portal(analyst, "GET", tickets))).data).toEqual([]);
    expect((await act(analyst, "DELETE", `${tickets}/12219`)).status).toBe(404);
    const audits = (await outboxAudits(host.services, ws)).filter((a) => a.activityType === "TicketLink" && a.targetResourceId === link!.id);
    expect(audits.map((a) => [a.activityAction, a.actorId, a.actorEmail])).toEqual([
      ["Create", analyst.userId, emailOf(analyst)],
      ["Delete", analyst.userId, emailOf(analyst)],
    ]);
  });

  it("is 400 EXTENSION_NOT_ENABLED where ticketing is off, for the read and both writes", async () => {
    const incident = newIncident("High", clinics);
    const tickets = `${pathOf(incident.id, clinics)}/tickets`;
    for (const [method, path, body] of [
      ["GET", tickets, undefined],
      ["POST", tickets, { ticketNumber: "SEC-2219" }],
      ["DELETE", `${tickets}/12219`, undefined],
    ] as const) {
      const res = await act(analyst, method, path, body);
      expect([method, res.status, (await json(res)).code]).toEqual([method, 400, "EXTENSION_NOT_ENABLED"]);
    }
  });
});

describe("Trigger webhook", () => {
  it("sends incident.created.v1 with a fresh id per fire, to one webhook when named, audited with the event", async () => {
    const incident = newIncident();
    const webhook = await json(await host.call("POST", "/webhooks", { body: { name: "trigger target", url: "https://hooks.example.com/trigger", eventTypes: ["incident.closed.v1"], monitoredAccountIds: [] } }));
    const trigger = `${pathOf(incident.id)}/trigger`;
    expect((await act(analyst, "POST", trigger, {})).status).toBe(204);
    expect((await act(analyst, "POST", trigger, { webhookId: webhook.data.id })).status).toBe(204);
    const fires = (await outboxEvents(host.services, ws)).filter((e) => e.type === "incident.created.v1" && (e.data as Json).incidentId === incident.id);
    expect(fires).toHaveLength(2);
    expect(new Set(fires.map((e) => e.id)).size).toBe(2);
    const audits = await auditsOf("IncidentWebhookTrigger", `SourceA/${incident.id}`);
    expect(audits.map((a) => [JSON.parse(a.metadata).eventId, JSON.parse(a.metadata).webhookId, a.actorId])).toEqual([
      [fires[0]!.id, null, analyst.userId],
      [fires[1]!.id, webhook.data.id, analyst.userId],
    ]);
  });

  it("refuses a webhook that would not receive it: another customer's account only, or none of the person's organization", async () => {
    const incident = newIncident();
    const northwind = host.demo.customers.find((c) => c.name === "Northwind Health")!.id;
    const elsewhere = await json(
      await host.call("POST", "/webhooks", { body: { name: "northwind only", url: "https://hooks.example.com/northwind", eventTypes: ["incident.created.v1"], monitoredAccountIds: [northwind] } }),
    );
    const res = await act(analyst, "POST", `${pathOf(incident.id)}/trigger`, { webhookId: elsewhere.data.id });
    expect([res.status, (await json(res)).target]).toEqual([400, "webhookId"]);
    const unknown = await act(analyst, "POST", `${pathOf(incident.id)}/trigger`, { webhookId: "0f0e0d0c-0b0a-4909-8807-060504030201" });
    expect((await json(unknown)).errors.webhookId).toEqual(["No webhook of your organization has this id."]);
  });
});

describe("who may act", () => {
  const writes = (id: string) =>
    [
      ["PUT", `${pathOf(id)}/assignee`, { userId: null, email: null }],
      ["PUT", `${pathOf(id)}/status`, { status: "Active" }],
      ["POST", `${pathOf(id)}/comments`, { message: "Not mine to write." }],
      ["POST", `${pathOf(id)}/tickets`, { ticketNumber: "SEC-2219" }],
      ["DELETE", `${pathOf(id)}/tickets/12219`, undefined],
      ["POST", `${pathOf(id)}/trigger`, {}],
    ] as const;

  it("the Owner role acts (it includes Analyst)", async () => {
    const incident = newIncident();
    expect((await act(owner, "PUT", `${pathOf(incident.id)}/status`, { status: "Active" })).status).toBe(204);
  });

  it("one who only reads the workspace (an organization-wide role, no role on it) reads the incident and may not act: 403 for every write", async () => {
    const incident = newIncident();
    expect((await host.portal(reader, "GET", pathOf(incident.id))).status).toBe(200);
    for (const [method, path, body] of writes(incident.id)) {
      const res = await act(reader, method, path, body);
      expect([method, path, res.status, (await json(res)).code]).toEqual([method, path, 403, "INSUFFICIENT_WORKSPACE_ROLE"]);
    }
  });

  it("a Member with no role on the workspace is 403 for every write, and for the incident, its tickets, its assignees and its playbooks", async () => {
    const incident = newIncident();
    const reads = ["", "/assignees", "/tickets", "/playbooks"].map((suffix) => ["GET", `${pathOf(incident.id)}${suffix}`, undefined] as const);
    for (const [method, path, body] of [...writes(incident.id), ...reads]) {
      const res = await act(roleless, method, path, body);
      expect([method, path, res.status, (await json(res)).code]).toEqual([method, path, 403, "INSUFFICIENT_WORKSPACE_ROLE"]);
    }
  });

  it("another organization's workspace is 404", async () => {
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!.id;
    const northwindProd = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-prod")!.id;
    const stranger = await host.person({ organizationalRole: "Admin", accountId: fabrikam, workspaceAssignments: [{ workspaceId: ws, role: "Owner" }] });
    const incident = newIncident("High", northwindProd);
    const res = await act(stranger, "PUT", `${pathOf(incident.id, northwindProd)}/status`, { status: "Active" });
    expect([res.status, (await json(res)).code]).toEqual([404, "NOT_FOUND"]);
  });

  it("a stale If-Match is 409 and changes nothing, for every write", async () => {
    const incident = newIncident();
    const { etag } = await detail(analyst, incident.id);
    await act(owner, "PUT", `${pathOf(incident.id)}/status`, { status: "Active" }, etag);
    const before = await detail(analyst, incident.id);
    for (const [method, path, body] of writes(incident.id)) {
      const res = await act(analyst, method, path, body, etag);
      expect([method, path, res.status, (await json(res)).target]).toEqual([method, path, 409, "If-Match"]);
    }
    expect((await detail(analyst, incident.id)).etag).toBe(before.etag);
  });
});

describe("SLA policy", () => {
  it("a WorkspaceAdmin sets the targets with If-Match, audited; the incidents' views follow at once; others read it", async () => {
    const path = `/portal/workspaces/${ws}/sla-policy`;
    const read = await host.portal(analyst, "GET", path);
    expect((await json(read)).data).toEqual({ timeToResolveMinutes: { Informational: null, Low: 4320, Medium: 1440, High: 240 } });
    const etag = read.headers.get("etag")!;
    const denied = await act(analyst, "PUT", path, { timeToResolveMinutes: { High: 60 } });
    expect([denied.status, (await json(denied)).code]).toEqual([403, "FORBIDDEN"]);

    const incident = newIncident("Informational");
    expect((await detail(analyst, incident.id)).data.incident.sla).toMatchObject({ targetSeconds: null, remainingSeconds: null, dueAt: null, breached: false });
    const saved = await act(reader, "PUT", path, { timeToResolveMinutes: { Informational: 10_080 } }, etag);
    expect(saved.status).toBe(200);
    expect((await json(saved)).data.timeToResolveMinutes).toEqual({ Informational: 10_080, Low: 4320, Medium: 1440, High: 240 });
    expect((await detail(analyst, incident.id)).data.incident.sla.targetSeconds).toBe(10_080 * 60);
    const stale = await act(reader, "PUT", path, { timeToResolveMinutes: { Informational: null } }, etag);
    expect([stale.status, (await json(stale)).code]).toEqual([409, "CONFLICT"]);
    const bad = await act(reader, "PUT", path, { timeToResolveMinutes: { High: 0 } });
    expect(Object.keys((await json(bad)).errors)).toEqual(["timeToResolveMinutes.High"]);

    await host.auditSequenced(ws);
    const trail = (await host.services.stores.audit.listWorkspaceTrail(ws, 0, 10_000)).map((e) => e.event).filter((e) => e.activityType === "SlaPolicy" && e.actorId === reader.userId);
    expect(trail.map((e) => JSON.parse(e.metadata).after.timeToResolveMinutes.Informational)).toEqual([10_080]);
    await act(reader, "PUT", path, { timeToResolveMinutes: { Informational: null } });
  });
});

describe("comments of service accounts (an extension of the contract)", () => {
  const comments = (id: string) => `/workspaces/${ws}/incidents/SourceA/${id}/comments`;

  it("creates the integration's comment (201, Location), owned by its service account, which deletes it by extensionId; incident.comment.added.v1 from the API", async () => {
    const incident = newIncident();
    const res = await host.call("POST", comments(incident.id), { body: { message: "Scan: CVE-2026-1234 on FAB-DC-4624." } });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(data).toMatchObject({ message: "Scan: CVE-2026-1234 on FAB-DC-4624.", authorName: "Local admin", isAgentComment: false, agentName: null });
    expect(data).not.toHaveProperty("extensionId");
    const located = await host.fetch(res.headers.get("location")!, { headers: { authorization: host.basic(host.admin.clientId, host.admin.clientSecret) } });
    expect((await json(located)).data).toEqual(data);
    const [event] = await eventsOf(incident.id, "incident.comment.added.v1");
    expect(event!.data).toMatchObject({ comment: { id: data.id }, addedBy: { origin: "api", serviceAccountId: host.admin.clientId } });
    expect(await auditsOf("IncidentComment", `SourceA/${incident.id}/${data.id}`)).toEqual([expect.objectContaining({ actorId: host.admin.clientId })]);

    const deleted = await host.call("DELETE", `${comments(incident.id)}/${data.id}?extensionId=${host.admin.clientId.toUpperCase()}`);
    expect(deleted.status).toBe(204);
    expect(((await json(await host.call("GET", comments(incident.id)))).data as Json[]).map((c) => c.id)).not.toContain(data.id);
  });

  it("with agentName the comment is that agent's, still owned by the integration", async () => {
    const incident = newIncident();
    const { data } = await json(await host.call("POST", comments(incident.id), { body: { message: "Sender domain is 3 days old.", agentName: "Triage agent" } }));
    expect(data).toMatchObject({ authorName: "Triage agent", isAgentComment: true, agentName: "Triage agent" });
    const [event] = await eventsOf(incident.id, "incident.comment.added.v1");
    expect(event!.data).toMatchObject({ addedBy: { origin: "agent", serviceAccountId: host.admin.clientId, name: "Triage agent" }, comment: { isAgentComment: true } });
  });

  it("another integration may not delete it, even naming its owner (403); without incidents:comments no comment is written (403)", async () => {
    const incident = newIncident();
    const { data } = await json(await host.call("POST", comments(incident.id), { body: { message: "Mine." } }));
    const other = await createServiceAccount(host, { scopes: ["incidents:read", "incidents:comments"], workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
    for (const extensionId of [other.clientId, host.admin.clientId]) {
      const res = await host.call("DELETE", `${comments(incident.id)}/${data.id}?extensionId=${extensionId}`, { auth: other });
      expect([res.status, (await json(res)).code]).toEqual([403, "FORBIDDEN"]);
    }
    const readOnly = await createServiceAccount(host, { scopes: ["incidents:read"], workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
    const refused = await host.call("POST", comments(incident.id), { auth: readOnly, body: { message: "Not allowed." } });
    expect([refused.status, (await json(refused)).code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    expect(((await json(await host.call("GET", comments(incident.id)))).data as Json[]).filter((c) => c.message === "Not allowed.")).toEqual([]);
  });

  it("edits the integration's own comment (PUT …/comments/{commentId}?extensionId=): the text changes, author, time and owner stay, audited with the text replaced, no new event", async () => {
    const incident = newIncident();
    const { data: added } = await json(await host.call("POST", comments(incident.id), { body: { message: "Scan: 2 of 3 hosts clean.", agentName: "Triage agent" } }));
    const res = await host.call("PUT", `${comments(incident.id)}/${added.id}?extensionId=${host.admin.clientId}`, { body: { message: "Scan: 3 of 3 hosts clean." } });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toEqual({ ...added, message: "Scan: 3 of 3 hosts clean." });
    const listed = ((await json(await host.call("GET", comments(incident.id)))).data as Json[]).find((c) => c.id === added.id);
    expect(listed).toEqual(data);
    // One comment was added: the edit sends no second event.
    expect(await eventsOf(incident.id, "incident.comment.added.v1")).toHaveLength(1);
    const audits = await auditsOf("IncidentComment", `SourceA/${incident.id}/${added.id}`);
    const edit = audits.find((a) => a.activityAction === "Update")!;
    expect([edit.actorId, JSON.parse(edit.metadata).previousMessage]).toEqual([host.admin.clientId, "Scan: 2 of 3 hosts clean."]);
  });

  it("an edit is refused to another integration (403), for a ticket's note (403), an unknown comment (404), an empty text or a missing extensionId (400), without incidents:comments (403), and with a stale If-Match (409)", async () => {
    const incident = newIncident();
    const { data: mine } = await json(await host.call("POST", comments(incident.id), { body: { message: "Mine." } }));
    const edit = (id: string, query: string, body: unknown, auth?: { clientId: string; clientSecret: string }, headers?: Record<string, string>) =>
      host.call("PUT", `${comments(incident.id)}/${id}${query}`, { body, auth, headers });
    const other = await createServiceAccount(host, { scopes: ["incidents:read", "incidents:comments"], workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
    const readOnly = await createServiceAccount(host, { scopes: ["incidents:read"], workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
    const outcomes = [
      await edit(mine.id, `?extensionId=${host.admin.clientId}`, { message: "Not mine." }, other),
      await edit(mine.id, "?extensionId=ext-other", { message: "x" }),
      await edit("ticket-INC0012345-note-1", `?extensionId=${host.admin.clientId}`, { message: "x" }),
      await edit("no-such-comment", `?extensionId=${host.admin.clientId}`, { message: "x" }),
      await edit(mine.id, `?extensionId=${host.admin.clientId}`, { message: "  " }),
      await edit(mine.id, "", { message: "x" }),
      await edit(mine.id, `?extensionId=${host.admin.clientId}`, { message: "x", agentName: "Someone" }),
      await edit(mine.id, `?extensionId=${host.admin.clientId}`, { message: "x" }, readOnly),
      await edit(mine.id, `?extensionId=${host.admin.clientId}`, { message: "x" }, undefined, { "if-match": '"stale"' }),
    ];
    const codes = await Promise.all(outcomes.map(async (r) => [r.status, (await json(r)).code]));
    expect(codes).toEqual([
      [403, "FORBIDDEN"],
      [403, "FORBIDDEN"],
      [403, "FORBIDDEN"],
      [404, "NOT_FOUND"],
      [400, "VALIDATION_ERROR"],
      [400, "VALIDATION_ERROR"],
      [400, "VALIDATION_ERROR"],
      [403, "INSUFFICIENT_SCOPE"],
      [409, "CONFLICT"],
    ]);
    expect(((await json(await host.call("GET", comments(incident.id)))).data as Json[]).find((c) => c.id === mine.id)!.message).toBe("Mine.");
  });

  it("the local stand-in for a vendor-side agent writes through the same operation", async () => {
    const incident = newIncident();
    const res = await host.local("POST", `/sources/SourceA/workspaces/${ws}/incidents/${incident.id}/comments`, { message: "Agent triage done.", origin: "agent", name: "Triage agent" });
    expect(res.status).toBe(201);
    const [event] = await eventsOf(incident.id, "incident.comment.added.v1");
    expect(event!.data).toMatchObject({ addedBy: { origin: "agent", serviceAccountId: null, name: "Triage agent" }, comment: { agentName: "Triage agent" } });
    expect(await auditsOf("IncidentComment", `SourceA/${incident.id}`)).toHaveLength(1);
  });
});
