import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { stateIdOf } from "../../shared/domain/incidents/incident-state";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { commentPathSources, sources } from "../../shared/model/sources";
import { outboxEvents } from "../support/outbox";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
let ws: string;
beforeAll(async () => {
  host = await startTestHost();
  ws = host.demo.workspaces[0]!.id;
});
afterAll(async () => host?.close());

/** A fresh vendor incident made "in the console", so each test owns its incident. */
function newIncident(source: "SourceA" | "SourceB" | "SourceG" = "SourceA", workspaceId = ws): VendorIncident {
  return host.simulated.vendors.createIncident(source, workspaceId, { title: "Suspicious sign-in from TOR exit node", severity: "High" });
}
const path = (i: VendorIncident, suffix = "") => `/workspaces/${i.workspaceId}/incidents/${i.source}/${encodeURIComponent(i.id)}${suffix}`;

type OutboxEvent = { type: string; eventId: string; envelope: Json };
async function eventsOf(incident: VendorIncident): Promise<OutboxEvent[]> {
  const all = await outboxEvents(host.services, incident.workspaceId);
  return all.filter((e) => e.data.incidentId === incident.id).map((e) => ({ type: e.type, eventId: e.id, envelope: e as Json }));
}

describe("GET incident", () => {
  it("returns every contract field, live from the source, merged with the service's state, with an ETag", async () => {
    const incident = newIncident();
    const res = await host.call("GET", path(incident));
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toMatch(/^".+"$/);
    const { data } = await json(res);
    expect(data.source).toBe("SourceA");
    expect(data.incident).toMatchObject({ id: incident.id, title: incident.title, severity: "High", status: "New", workspaceId: ws });
    expect(data.incident.createdAt).toBe(incident.createdAt);
    expect(data.incident.updatedAt).toEqual(expect.any(String));
    expect(data.lastModificationTime).toBe(incident.lastModificationTime);
    expect(data.lastActivityTime).toBe(incident.lastActivityTime);
    expect(Array.isArray(data.investigationDetails.entities)).toBe(true);
    expect(data.investigationDetails.entities.length).toBeGreaterThan(0);
    expect(Array.isArray(data.investigationDetails.alerts)).toBe(true);
    expect(data.evidence).toEqual(expect.any(Object));
    expect(data.gamebookCatalog).toEqual(expect.any(Object));
    expect(data.vendorIdentifiers).toEqual(expect.any(Object));
    expect(data.serviceStatus).toBe("New");
    expect(data.sla).toMatchObject({ state: "Running", startedAt: incident.createdAt });
  });

  it("accepts the source segment in any case and answers with the canonical value", async () => {
    const incident = newIncident("SourceB");
    const res = await host.call("GET", `/workspaces/${ws}/incidents/sourceb/${encodeURIComponent(incident.id)}`);
    expect(res.status).toBe(200);
    expect((await json(res)).data.source).toBe("SourceB");
  });

  it("rejects an unknown source with 400 VALIDATION_ERROR listing the accepted values under errors.source", async () => {
    const body = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceZ/abc`));
    expect(body.status).toBe(400);
    expect(body.code).toBe("VALIDATION_ERROR");
    for (const s of sources) expect(body.errors.source.join(" ")).toContain(s);
  });

  it("the comments path accepts SourceA to SourceF only", async () => {
    const body = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceG/abc/comments`));
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(body.errors.source[0]).toContain(commentPathSources.join(", "));
    expect(body.errors.source[0]).not.toContain("SourceG");
  });

  it("is 404 NOT_FOUND for an incident the source does not have, and after the vendor deletes it", async () => {
    expect((await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/no-such-incident`))).code).toBe("NOT_FOUND");
    const incident = newIncident();
    host.simulated.vendors.deleteIncident("SourceA", ws, incident.id);
    expect((await host.call("GET", path(incident))).status).toBe(404);
  });

  it("needs a role on the workspace (403 INSUFFICIENT_WORKSPACE_ROLE) and incidents:read (403 INSUFFICIENT_SCOPE)", async () => {
    const incident = newIncident();
    const other = host.demo.workspaces[1]!.id;
    const sa = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: other, role: "Analyst" }], scopes: ["incidents:read"] });
    expect((await json(await host.call("GET", path(incident), { auth: sa }))).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
    const noScope = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }], scopes: ["gamebooks:read"] });
    expect((await json(await host.call("GET", path(incident), { auth: noScope }))).code).toBe("INSUFFICIENT_SCOPE");
  });
});

describe("evidence, comments, last gamebook, by-entity", () => {
  it("evidence is the incident's evidence table", async () => {
    const incident = newIncident();
    const { data } = await json(await host.call("GET", path(incident, "/evidence")));
    expect(Array.isArray(data.rows)).toBe(true);
  });

  it("comments carry exactly the contract's fields, oldest first", async () => {
    const incident = newIncident();
    const gateway = host.services.sources.gateway("SourceA");
    await gateway.addComment(ws, incident.id, comment("first"));
    await gateway.addComment(ws, incident.id, comment("second"));
    const { data } = await json(await host.call("GET", path(incident, "/comments")));
    expect(data.map((c: Json) => c.message)).toEqual(["first", "second"]);
    expect(Object.keys(data[0]).sort()).toEqual(
      ["agentName", "authorEmail", "authorName", "createdTime", "id", "isActivityComment", "isAgentComment", "isClosingComment", "message", "ticketId", "ticketNoteId"].sort(),
    );
  });

  it("last-gamebook is 404 before any run and the newest run after, with the contract's fields only", async () => {
    const incident = newIncident();
    expect((await json(await host.call("GET", path(incident, "/last-gamebook")))).code).toBe("NOT_FOUND");
    const older = await runComment(incident, "first");
    // Runs are ordered by creation time (to the millisecond), then id.
    await new Promise((r) => setTimeout(r, 5));
    const newer = await runComment(incident, "second");
    expect(newer).not.toBe(older);
    const { data } = await json(await host.call("GET", path(incident, "/last-gamebook")));
    expect(data).toMatchObject({ id: newer, incidentId: incident.id, source: "SourceA", title: "Add incident comment" });
    expect(Object.keys(data).sort()).toEqual(
      [
        "id", "tracingId", "incidentId", "source", "incidentTitle", "incidentNumber", "isOcr", "isRecover", "isAdminRequired", "isAutoRun",
        "isRetryGamebook", "isQueued", "triggedByUserId", "displayName", "modificationDate", "creationDate", "status", "title", "summary",
        "workspaceId", "workspaceName", "tenantId", "originalGamebookId", "originalGamebookTitle", "playbooks",
      ].sort(),
    );
  });

  it("by-entity finds incidents sharing an entity, and validates its parameters", async () => {
    const incident = newIncident();
    const entity = incident.entities[0]!;
    const res = await host.call("GET", `/workspaces/${ws}/incidents/SourceA/by-entity?EntityName=${encodeURIComponent(entity.name)}`);
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.map((i: Json) => i.incident.id)).toContain(incident.id);
    const byIncident = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/by-entity?IncidentId=${encodeURIComponent(incident.id)}`));
    expect(byIncident.data.length).toBeGreaterThan(0);

    const bad = [
      "EntityName=x&EntityType=Spaceship",
      "EntityName=x&StartDate=2026-02-01T00:00:00Z&EndDate=2026-01-01T00:00:00Z",
      "TimeFilteringType=Yesterday&EntityName=x",
      "EntityKind=Host",
      "EntityName=x&Unknown=1",
    ];
    for (const query of bad) {
      const body = await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceA/by-entity?${query}`));
      expect([query, body.code]).toEqual([query, "VALIDATION_ERROR"]);
    }
  });
});

describe("DELETE comment", () => {
  it("deletes a comment owned by the named integration; others are 403, unknown 404, missing extensionId 400", async () => {
    const incident = newIncident();
    const gateway = host.services.sources.gateway("SourceA");
    const owned = await gateway.addComment(ws, incident.id, comment("from the connector", "ext-soar"));
    const human = await gateway.addComment(ws, incident.id, comment("by an analyst", null));

    expect((await json(await host.call("DELETE", path(incident, `/comments/${owned.id}`)))).code).toBe("VALIDATION_ERROR");
    expect((await json(await host.call("DELETE", path(incident, `/comments/${owned.id}?extensionId=ext-other`)))).code).toBe("FORBIDDEN");
    expect((await json(await host.call("DELETE", path(incident, `/comments/${human.id}?extensionId=ext-soar`)))).code).toBe("FORBIDDEN");
    expect((await json(await host.call("DELETE", path(incident, `/comments/nope?extensionId=ext-soar`)))).code).toBe("NOT_FOUND");

    const res = await host.call("DELETE", path(incident, `/comments/${owned.id}?extensionId=ext-soar`));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    const { data } = await json(await host.call("GET", path(incident, "/comments")));
    expect(data.map((c: Json) => c.id)).toEqual([human.id]);
    const audit = await host.services.stores.audit.listRecent(host.demo.workspaces[0]!.accountId, 5);
    expect(audit.some((a) => a.activityType === "IncidentComment" && a.activityAction === "Delete")).toBe(true);
  });

  it("needs incidents:comments", async () => {
    const incident = newIncident();
    const sa = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }], scopes: ["incidents:read", "incidents:write"] });
    const res = await host.call("DELETE", path(incident, "/comments/x?extensionId=ext-soar"), { auth: sa });
    expect((await json(res)).code).toBe("INSUFFICIENT_SCOPE");
  });
});

describe("PUT status", () => {
  it("closing needs a classification; classification and closingComment only go with Closed", async () => {
    const incident = newIncident();
    const cases = [
      [{ status: "Closed" }, "classification"],
      [{ status: "Active", classification: "TruePositive" }, "classification"],
      [{ status: "Active", closingComment: "done" }, "closingComment"],
      [{ status: "Resolved" }, "status"],
      [{ status: "Closed", classification: "Benign" }, "classification"],
      [{ status: "Active", extra: 1 }, "extra"],
    ] as const;
    for (const [body, field] of cases) {
      const problem = await json(await host.call("PUT", path(incident, "/status"), { body }));
      expect([JSON.stringify(body), problem.code, Object.keys(problem.errors ?? {})]).toEqual([JSON.stringify(body), "VALIDATION_ERROR", [field]]);
    }
  });

  it("closes at the vendor, then records the state with incident.status.changed.v1 and incident.closed.v1", async () => {
    const incident = newIncident();
    const res = await host.call("PUT", path(incident, "/status"), {
      body: { status: "Closed", classification: "TruePositive", closingComment: "Contained and reset." },
    });
    expect(res.status).toBe(204);
    const { data } = await json(await host.call("GET", path(incident)));
    expect(data.incident.status).toBe("Closed");
    expect(data.classification).toBe("TruePositive");
    expect(data.sla.state).toBe("Stopped");
    expect(data.lastModificationTime > incident.lastModificationTime).toBe(true);

    const events = await eventsOf(incident);
    expect(events.map((e) => e.type)).toEqual(["incident.status.changed.v1", "incident.closed.v1"]);
    const [changed, closed] = events.map((e) => e.envelope);
    expect(changed!.id).not.toBe(closed!.id);
    expect(changed!.data).toMatchObject({ incidentId: incident.id, source: "sourcea", status: "Closed", previousStatus: "New", changedBy: { origin: "api" } });
    expect(closed!.data).toMatchObject({ classification: "TruePositive", closingComment: "Contained and reset.", closedBy: { origin: "api", serviceAccountId: host.admin.clientId } });
    expect(closed!.data.vendorIdentifiers).toEqual(expect.any(Object));
    const comments = (await json(await host.call("GET", path(incident, "/comments")))).data;
    expect(comments.at(-1)).toMatchObject({ message: "Contained and reset.", isClosingComment: true });
  });

  it("a reopened incident closed again is a new closed event (a new subject, a new id)", async () => {
    const incident = newIncident();
    const close = { status: "Closed", classification: "FalsePositive" };
    expect((await host.call("PUT", path(incident, "/status"), { body: close })).status).toBe(204);
    expect((await host.call("PUT", path(incident, "/status"), { body: { status: "Active" } })).status).toBe(204);
    expect((await host.call("PUT", path(incident, "/status"), { body: close })).status).toBe(204);
    const closed = (await eventsOf(incident)).filter((e) => e.type === "incident.closed.v1");
    expect(closed.length).toBe(2);
    expect(closed[0]!.eventId).not.toBe(closed[1]!.eventId);
  });

  it("a transition is judged from the vendor's status: close, reopened at the vendor, close again is a second close", async () => {
    // SourceC is not reconciled: the service's state only learns of the reopening through this write.
    const incident = host.simulated.vendors.createIncident("SourceC", ws, { title: "Reopened at the vendor", severity: "Low" });
    const status = (body: object) => host.call("PUT", `/workspaces/${ws}/incidents/SourceC/${encodeURIComponent(incident.id)}/status`, { body });
    expect((await status({ status: "Closed", classification: "TruePositive" })).status).toBe(204);
    await host.services.sources.gateway("SourceC").setStatus(ws, incident.id, { status: "Active" });
    expect((await status({ status: "Closed", classification: "TruePositive" })).status).toBe(204);
    const events = await eventsOf(incident);
    const closed = events.filter((e) => e.type === "incident.closed.v1");
    expect(closed).toHaveLength(2);
    expect(closed[0]!.eventId).not.toBe(closed[1]!.eventId);
    expect(events.filter((e) => e.type === "incident.status.changed.v1").map((e) => e.envelope.data.previousStatus)).toEqual(["New", "Active"]);
  });

  it("when the state cannot be written after the vendor accepted the change, its events are still kept", async () => {
    const incident = newIncident();
    const commit = vi.spyOn(host.services.stores.incidents, "commit").mockRejectedValueOnce(new Error("store unavailable"));
    const res = await host.call("PUT", path(incident, "/status"), { body: { status: "Active" } });
    commit.mockRestore();
    expect(res.status).toBe(500);
    expect((await host.services.sources.gateway("SourceA").getIncident(ws, incident.id)).status).toBe("Active");
    expect((await eventsOf(incident)).map((e) => [e.type, e.envelope.data.status])).toEqual([["incident.status.changed.v1", "Active"]]);
  });

  it("racing status writes leave the stored state on the vendor's final status", async () => {
    const incident = newIncident();
    const bodies = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? { status: "Closed", classification: "TruePositive" } : { status: "Active" }));
    const responses = await Promise.all(bodies.map((body) => host.call("PUT", path(incident, "/status"), { body })));
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 204));
    const vendor = await host.services.sources.gateway("SourceA").getIncident(ws, incident.id);
    const stored = (await host.services.stores.incidents.get(ws, stateIdOf("SourceA", incident.id)))!.value;
    expect([stored.status, stored.vendorLastModificationTime]).toEqual([vendor.status, vendor.lastModificationTime]);
  });

  it("OnHold pauses the SLA clock without touching the vendor; Active resumes it", async () => {
    const incident = newIncident();
    const before = (await json(await host.call("GET", path(incident)))).data;
    expect((await host.call("PUT", path(incident, "/status"), { body: { status: "OnHold" } })).status).toBe(204);
    const held = (await json(await host.call("GET", path(incident)))).data;
    expect(held.incident.status).toBe("New");
    expect(held.serviceStatus).toBe("OnHold");
    expect(held.sla.state).toBe("Paused");
    expect(held.lastModificationTime).toBe(before.lastModificationTime);
    const vendor = await host.services.sources.gateway("SourceA").getIncident(ws, incident.id);
    expect(vendor.status).toBe("New");

    expect((await host.call("PUT", path(incident, "/status"), { body: { status: "WaitingOnCustomer" } })).status).toBe(204);
    expect((await json(await host.call("GET", path(incident)))).data.serviceStatus).toBe("WaitingOnCustomer");
    expect((await host.call("PUT", path(incident, "/status"), { body: { status: "Active" } })).status).toBe(204);
    const resumed = (await json(await host.call("GET", path(incident)))).data;
    expect(resumed).toMatchObject({ serviceStatus: "Active", incident: { status: "Active" }, sla: { state: "Running", pausedSince: null } });
    const statuses = (await eventsOf(incident)).map((e) => e.envelope.data.serviceStatus);
    expect(statuses).toEqual(["OnHold", "WaitingOnCustomer", "Active"]);
  });

  it("If-Match with the current ETag succeeds; a stale one is 409 CONFLICT and changes nothing", async () => {
    const incident = newIncident();
    const etag = (await host.call("GET", path(incident))).headers.get("etag")!;
    expect((await host.call("PUT", path(incident, "/status"), { body: { status: "Active" }, headers: { "if-match": etag } })).status).toBe(204);
    const stale = await json(await host.call("PUT", path(incident, "/status"), { body: { status: "New" }, headers: { "if-match": etag } }));
    expect(stale.code).toBe("CONFLICT");
    expect((await json(await host.call("GET", path(incident)))).data.incident.status).toBe("Active");
  });

  it("needs incidents:write", async () => {
    const incident = newIncident();
    const sa = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }], scopes: ["incidents:read"] });
    expect((await json(await host.call("PUT", path(incident, "/status"), { auth: sa, body: { status: "Active" } }))).code).toBe("INSUFFICIENT_SCOPE");
  });
});

describe("PUT assignee", () => {
  it("assigns, reassigns and unassigns, each with incident.assignee.changed.v1 carrying the previous assignee", async () => {
    const incident = newIncident("SourceG");
    const user = host.demo.users[0]!;
    expect((await host.call("PUT", path(incident, "/assignee"), { body: { userId: user.id, email: user.email } })).status).toBe(204);
    expect((await json(await host.call("GET", path(incident)))).data.assignee).toEqual({ userId: user.id, email: user.email, name: user.displayName, isAgent: false });
    expect((await host.call("PUT", path(incident, "/assignee"), { body: { userId: null, email: "night.shift@contoso-mssp.example" } })).status).toBe(204);
    expect((await host.call("PUT", path(incident, "/assignee"), { body: { userId: null, email: null } })).status).toBe(204);
    expect((await json(await host.call("GET", path(incident)))).data.assignee).toBeNull();

    const events = (await eventsOf(incident)).map((e) => e.envelope.data);
    expect(events.map((d) => [d.previousAssignee?.email ?? null, d.assignee?.email ?? null])).toEqual([
      [null, user.email],
      [user.email, "night.shift@contoso-mssp.example"],
      ["night.shift@contoso-mssp.example", null],
    ]);
  });

  it("rejects a userId without an e-mail address and unknown fields", async () => {
    const incident = newIncident();
    expect((await json(await host.call("PUT", path(incident, "/assignee"), { body: { userId: "u-1", email: null } }))).errors).toHaveProperty("email");
    expect((await json(await host.call("PUT", path(incident, "/assignee"), { body: { email: "a@b.example" } }))).code).toBe("VALIDATION_ERROR");
  });

  it("concurrent writes to one incident lose no update: every change is committed in some order, with its event", async () => {
    const incident = newIncident();
    const emails = Array.from({ length: 12 }, (_, i) => `analyst${i}@contoso-mssp.example`);
    const responses = await Promise.all([
      ...emails.map((email) => host.call("PUT", path(incident, "/assignee"), { body: { userId: null, email } })),
      host.call("PUT", path(incident, "/status"), { body: { status: "OnHold" } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 204));

    const final = (await json(await host.call("GET", path(incident)))).data;
    expect(final.serviceStatus).toBe("OnHold");
    const assigneeEvents = (await eventsOf(incident)).filter((e) => e.type === "incident.assignee.changed.v1").map((e) => e.envelope.data);
    expect(assigneeEvents.length).toBe(emails.length);
    // Serialised: the events form one chain, each change's "previous" being the change committed
    // just before it, from the first assignment (previous null) to the final assignee.
    const byPrevious = new Map(assigneeEvents.map((d) => [d.previousAssignee?.email ?? null, d]));
    expect(byPrevious.size).toBe(assigneeEvents.length);
    const chain: string[] = [];
    for (let link = byPrevious.get(null); link; link = byPrevious.get(link.assignee.email)) chain.push(link.assignee.email);
    expect(chain.length).toBe(emails.length);
    expect(final.assignee.email).toBe(chain.at(-1));
    expect(new Set(assigneeEvents.map((d) => d.assignee.email))).toEqual(new Set(emails));
  });
});

describe("upstream failures through the API", () => {
  let vendor: Server;
  let bridged: TestHost;
  const answer = new Map<string, [number, string]>();
  beforeAll(async () => {
    vendor = createServer((req, res) => {
      const id = decodeURIComponent(req.url!.split("/").at(-1)!);
      const [status, body] = answer.get(id) ?? [404, ""];
      if (status === 0) return; // never answers
      res.writeHead(status, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((r) => vendor.listen(0, "127.0.0.1", r));
    const port = (vendor.address() as AddressInfo).port;
    bridged = await startTestHost({ env: { SOURCE_C_URL: `http://127.0.0.1:${port}/source-c`, SOURCE_C_AUTH_HEADER: "Bearer bridge-secret", SOURCE_C_TIMEOUT_MS: "300" } });
    answer.set("down", [503, "{}"]);
    answer.set("locked", [403, "{}"]);
    answer.set("slow", [0, ""]);
    answer.set("busy", [429, "{}"]);
  });
  afterAll(async () => {
    await bridged?.close();
    vendor?.closeAllConnections();
    await new Promise((r) => vendor?.close(r));
  });

  it("maps the vendor's answers to the contract's codes", async () => {
    // Each failure in a workspace of its own: two in a row in one workspace would open its circuit
    // breaker, and the next read there would be answered with the last failure's code (vendor-faults.test.ts).
    const workspaces = bridged.demo.workspaces.map((w) => w.id);
    const codeOf = async (id: string) => (await json(await bridged.call("GET", `/workspaces/${workspaces.shift()}/incidents/SourceC/${id}`))).code;
    expect(await codeOf("missing")).toBe("NOT_FOUND");
    expect(await codeOf("down")).toBe("UPSTREAM_ERROR");
    expect(await codeOf("locked")).toBe("UPSTREAM_ERROR");
    expect(await codeOf("slow")).toBe("TIMEOUT");
    expect(await codeOf("busy")).toBe("RATE_LIMITED");
    expect(JSON.stringify(bridged.logs)).not.toContain("bridge-secret");
  });
});

function comment(message: string, extensionId: string | null = null) {
  return { message, authorEmail: "bot@contoso-mssp.example", authorName: "SOAR connector", isAgentComment: false, agentName: null, isClosingComment: false, extensionId };
}

/** Runs the catalogue's add-comment playbook on the incident through the API; the run's id. */
async function runComment(incident: VendorIncident, message: string): Promise<string> {
  const catalogue = await host.services.stores.playbookCatalogues.get(incident.workspaceId);
  const addComment = catalogue!.playbooks.find((p) => p.referenceId === "add-comment")!;
  const res = await host.call("POST", `/workspaces/${incident.workspaceId}/gamebooks/run`, {
    body: {
      incidentId: incident.id,
      incidentTitle: incident.title,
      source: incident.source,
      playbooks: [{ id: addComment.id, sequence: 1, entityId: incident.id, parameters: { message } }],
    },
  });
  const body = await json(res);
  if (res.status !== 200) throw new Error(`run failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data.id as string;
}
