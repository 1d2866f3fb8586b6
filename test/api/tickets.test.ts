import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { EXAMPLE_INCIDENT_ID, EXAMPLE_TICKET, linkBody, priorityBody } from "../../shared/api/tickets/ticket-schemas";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

const example = (schema: { meta(): unknown }) => ((schema.meta() as { examples: unknown[] }).examples[0]) as Json;

let host: TestHost;
let WS: string;
let CLINICS: string;
const tickets = () => `/workspaces/${WS}/tickets`;

beforeAll(async () => {
  host = await startTestHost();
  WS = host.demo.workspaces[0]!.id;
  CLINICS = host.demo.workspaces[3]!.id;
});
afterAll(async () => host?.close());

/** A fresh incident at SourceA of the workspace, so that tests do not share links. */
async function newIncident(workspaceId = WS): Promise<string> {
  const res = await host.local("POST", `/sources/SourceA/workspaces/${workspaceId}/incidents`, { title: "Impossible travel activity for a.jensen", severity: "High" });
  return (await json(res)).data.id as string;
}

async function newTicket(workspaceId = WS, groupingIds: string[] = []): Promise<Json> {
  const res = await host.local("POST", `/itsm/workspaces/${workspaceId}/tickets`, { title: "Investigate impossible travel", priority: "P3", groupingIds });
  expect(res.status).toBe(201);
  return (await json(res)).data;
}

async function auditTrail(workspaceId = WS): Promise<Json[]> {
  await host.auditSequenced(workspaceId);
  const res = await host.call("GET", `/workspaces/${workspaceId}/export/audit?pageSize=1000`);
  return (await json(res)).value;
}

describe("ticket search", () => {
  it("finds tickets by number (case-insensitive) and by grouping id, with the incidents linked to them", async () => {
    const incident = await newIncident();
    const ticket = await newTicket(WS, ["case-search-1"]);
    await host.call("POST", `${tickets()}/link`, { body: { source: "sourcea", incidentId: incident, ticketId: ticket.ticketId } });

    const byNumber = await host.call("GET", `${tickets()}/search?ticketNumber=${ticket.ticketNumber.toLowerCase()}`);
    expect(byNumber.status).toBe(200);
    const [found] = (await json(byNumber)).data;
    expect(found).toMatchObject({ ticketSystem: ticket.system, ticketId: ticket.ticketId, ticketNumber: ticket.ticketNumber, url: ticket.url, priority: "P3", state: "Open" });
    expect(found.links).toEqual([expect.objectContaining({ source: "SourceA", incidentId: incident, linkedBy: { serviceAccountId: host.admin.clientId, userId: null, name: "Local admin" } })]);

    const byGrouping = await json(await host.call("GET", `${tickets()}/search?groupingId=case-search-1`));
    expect(byGrouping.data.map((t: Json) => t.ticketId)).toEqual([ticket.ticketId]);
    expect((await json(await host.call("GET", `${tickets()}/search?groupingId=case-nothing-here`))).data).toEqual([]);
  });

  it("needs groupingId or ticketNumber (400 VALIDATION_ERROR) and refuses unknown parameters", async () => {
    const none = await host.call("GET", `${tickets()}/search`);
    expect(none.status).toBe(400);
    expect(await json(none)).toMatchObject({ code: "VALIDATION_ERROR" });
    expect((await host.call("GET", `${tickets()}/search?ticketNumber=SEC-1&limit=5`)).status).toBe(400);
  });

  it("finds the documented example ticket of the default demo data", async () => {
    const res = await host.call("GET", `${tickets()}/search?groupingId=${EXAMPLE_TICKET.groupingId}`);
    expect((await json(res)).data.map((t: Json) => t.ticketNumber)).toContain(EXAMPLE_TICKET.ticketNumber);
  });
});

describe("linking an incident to a ticket", () => {
  it("the OpenAPI example body links the example incident and ticket: 201 with the link resource, audited", async () => {
    const body = example(linkBody);
    const res = await host.call("POST", `${tickets()}/link`, { body });
    expect(res.status).toBe(201);
    const link = (await json(res)).data;
    expect(link).toEqual({
      id: expect.any(String),
      workspaceId: WS,
      source: "SourceA",
      incidentId: EXAMPLE_INCIDENT_ID,
      ticketSystem: "Jira Service Management",
      ticketId: EXAMPLE_TICKET.ticketId,
      ticketNumber: EXAMPLE_TICKET.ticketNumber,
      url: `https://fabrikam.atlassian.example/browse/${EXAMPLE_TICKET.ticketNumber}`,
      linkedAt: expect.any(String),
      linkedBy: { serviceAccountId: host.admin.clientId, userId: null, name: "Local admin" },
    });
    const audit = (await auditTrail()).filter((e) => e.targetResourceId === link.id);
    expect(audit.map((e) => [e.activityType, e.activityAction, e.targetResourceName, e.actorId])).toEqual([["TicketLink", "Create", EXAMPLE_TICKET.ticketNumber, host.admin.clientId]]);
    // Unlinking by ticket id works as well as by number.
    expect((await host.call("POST", `${tickets()}/unlink`, { body: { source: "SourceA", incidentId: EXAMPLE_INCIDENT_ID, ticketId: EXAMPLE_TICKET.ticketId } })).status).toBe(204);
  });

  it("linking an already linked pair is 409 CONFLICT, by id or by number, and writes no second audit event", async () => {
    const incident = await newIncident();
    const ticket = await newTicket();
    const first = await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } });
    expect(first.status).toBe(201);
    for (const name of [{ ticketId: ticket.ticketId }, { ticketNumber: ticket.ticketNumber }]) {
      const again = await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ...name } });
      expect(again.status).toBe(409);
      expect(await json(again)).toMatchObject({ code: "CONFLICT" });
    }
    const audit = (await auditTrail()).filter((e) => e.activityType === "TicketLink" && e.targetResourceName === ticket.ticketNumber);
    expect(audit).toHaveLength(1);
  });

  it("concurrent links of the same pair: exactly one wins, the others are 409", async () => {
    const incident = await newIncident();
    const ticket = await newTicket();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it("one incident may link several tickets, and one ticket several incidents", async () => {
    const [a, b] = [await newIncident(), await newIncident()];
    const [t1, t2] = [await newTicket(), await newTicket()];
    for (const [incidentId, ticketId] of [[a, t1.ticketId], [a, t2.ticketId], [b, t1.ticketId]]) {
      expect((await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId, ticketId } })).status).toBe(201);
    }
    const found = (await json(await host.call("GET", `${tickets()}/search?ticketNumber=${t1.ticketNumber}`))).data[0];
    expect(found.links.map((l: Json) => l.incidentId).sort()).toEqual([a, b].sort());
  });

  it("an unknown incident or ticket is 404 NOT_FOUND naming it, and nothing is stored", async () => {
    const ticket = await newTicket();
    const noIncident = await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: "no-such-incident", ticketId: ticket.ticketId } });
    expect(noIncident.status).toBe(404);
    const incident = await newIncident();
    const noTicket = await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketNumber: "SEC-999999" } });
    expect(noTicket.status).toBe(404);
    expect(await json(noTicket)).toMatchObject({ code: "NOT_FOUND", target: "ticketNumber" });
    const noTicketId = await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketId: "999999999" } });
    expect(noTicketId.status).toBe(404);
    expect(await host.services.stores.ticketLinks.listForIncident(WS, "SourceA", incident)).toEqual([]);
  });

  it("the body names the ticket by exactly one of ticketId and ticketNumber, and a valid source (400 VALIDATION_ERROR)", async () => {
    const incident = await newIncident();
    const bodies = [
      { source: "SourceA", incidentId: incident },
      { source: "SourceA", incidentId: incident, ticketId: "1", ticketNumber: "SEC-1" },
      { source: "SourceZ", incidentId: incident, ticketId: "1" },
      { source: "SourceA", incidentId: "", ticketId: "1" },
      { source: "SourceA", incidentId: incident, ticketId: "1", linkedBy: "me" },
    ];
    for (const body of bodies) {
      const res = await host.call("POST", `${tickets()}/link`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).code).toBe("VALIDATION_ERROR");
    }
  });
});

describe("unlinking", () => {
  it("removes the link (204), audited; unlinking again, or a pair never linked, is 404", async () => {
    const incident = await newIncident();
    const ticket = await newTicket();
    const link = (await json(await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } }))).data;
    const res = await host.call("POST", `${tickets()}/unlink`, { body: { source: "SourceA", incidentId: incident, ticketNumber: ticket.ticketNumber.toLowerCase() } });
    expect(res.status).toBe(204);
    expect(await host.services.stores.ticketLinks.listForIncident(WS, "SourceA", incident)).toEqual([]);
    const again = await host.call("POST", `${tickets()}/unlink`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } });
    expect(again.status).toBe(404);
    expect(await json(again)).toMatchObject({ code: "NOT_FOUND", target: "ticketId" });
    const never = await host.call("POST", `${tickets()}/unlink`, { body: { source: "SourceA", incidentId: await newIncident(), ticketNumber: ticket.ticketNumber } });
    expect(never.status).toBe(404);
    const audit = (await auditTrail()).filter((e) => e.targetResourceId === link.id).map((e) => e.activityAction);
    expect(audit).toEqual(["Create", "Delete"]);
    // Linked again after the unlink: a new link of the same pair.
    expect((await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } })).status).toBe(201);
  });
});

describe("links on the incident", () => {
  it("the incident's comments show the link and every note of the ticket, with ticketId and ticketNoteId", async () => {
    const incident = await newIncident();
    const ticket = await newTicket();
    await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } });
    const note = await json(
      await host.local("POST", `/itsm/workspaces/${WS}/tickets/${ticket.ticketId}/notes`, { kind: "WorkNote", body: "Password reset done; MFA re-registered.", authorName: "Rahul Mehta" }),
    );
    const res = await host.call("GET", `/workspaces/${WS}/incidents/SourceA/${incident}/comments`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ticket-notes")).toBeNull();
    const comments = (await json(res)).data as Json[];
    const fromTicket = comments.filter((c) => c.ticketId !== null);
    expect(fromTicket).toEqual([
      expect.objectContaining({ isActivityComment: true, ticketId: ticket.ticketId, ticketNoteId: null, message: expect.stringContaining(ticket.ticketNumber) }),
      expect.objectContaining({ isActivityComment: false, ticketId: ticket.ticketId, ticketNoteId: note.data.id, authorName: "Rahul Mehta", message: expect.stringContaining("Password reset done") }),
    ]);
    // Every comment keeps docs/contract.md §2.5's fields only, oldest first.
    expect(Object.keys(fromTicket[1]!).sort()).toEqual(Object.keys(comments[0]!).sort());
    expect(comments.map((c) => c.createdTime)).toEqual([...comments.map((c) => c.createdTime)].sort());
    // Comments from a ticket live in the ITSM: deleting one is 403.
    const del = await host.call("DELETE", `/workspaces/${WS}/incidents/SourceA/${incident}/comments/${fromTicket[1]!.id}?extensionId=ext-ticketing`);
    expect(del.status).toBe(403);

    await host.call("POST", `${tickets()}/unlink`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } });
    const after = (await json(await host.call("GET", `/workspaces/${WS}/incidents/SourceA/${incident}/comments`))).data as Json[];
    expect(after.filter((c) => c.ticketId !== null)).toEqual([]);
  });

  it("when the ITSM fails, the incident's comments still answer, with the link and X-Ticket-Notes: Unavailable", async () => {
    const incident = await newIncident();
    const ticket = await newTicket();
    await host.call("POST", `${tickets()}/link`, { body: { source: "SourceA", incidentId: incident, ticketId: ticket.ticketId } });
    const spy = vi.spyOn(host.services.ticketing, "listNotes").mockRejectedValue(new ApiError("UPSTREAM_ERROR", "ITSM down"));
    const res = await host.call("GET", `/workspaces/${WS}/incidents/SourceA/${incident}/comments`);
    spy.mockRestore();
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ticket-notes")).toBe("Unavailable");
    expect(((await json(res)).data as Json[]).filter((c) => c.ticketId === ticket.ticketId).map((c) => c.isActivityComment)).toEqual([true]);
  });
});

describe("ticket priority", () => {
  it("the OpenAPI example sets the example ticket's priority: 200 with the ticket as it now stands, audited with the reason", async () => {
    const res = await host.call("PUT", `${tickets()}/priority`, { body: example(priorityBody) });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ ticketNumber: EXAMPLE_TICKET.ticketNumber, priority: "P1" });
    const [audit] = (await auditTrail()).filter((e) => e.activityType === "TicketPriority" && e.targetResourceId === EXAMPLE_TICKET.ticketId);
    expect(JSON.parse(audit!.metadata)).toMatchObject({ to: "P1", reason: "Confirmed ransomware precursor on a file server." });
  });

  it("an unknown ticket is 404; a priority outside P1–P5 is 400", async () => {
    expect((await host.call("PUT", `${tickets()}/priority`, { body: { ticketNumber: "SEC-999999", priority: "P2" } })).status).toBe(404);
    const bad = await host.call("PUT", `${tickets()}/priority`, { body: { ticketNumber: EXAMPLE_TICKET.ticketNumber, priority: "Critical" } });
    expect(bad.status).toBe(400);
    expect(Object.keys((await json(bad)).errors)).toEqual(["priority"]);
  });
});

describe("who may use the ticket endpoints", () => {
  it("search needs tickets:read; link, unlink and priority need tickets:manage (403 INSUFFICIENT_SCOPE)", async () => {
    const reader = await createServiceAccount(host, { scopes: ["tickets:read"], workspaceAssignments: [{ workspaceId: WS, role: "Analyst" }] });
    expect((await host.call("GET", `${tickets()}/search?ticketNumber=SEC-1`, { auth: reader })).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "link", { source: "SourceA", incidentId: "x", ticketId: "1" }],
      ["POST", "unlink", { source: "SourceA", incidentId: "x", ticketId: "1" }],
      ["PUT", "priority", { ticketId: "1", priority: "P1" }],
    ] as const) {
      const res = await host.call(method, `${tickets()}/${path}`, { auth: reader, body });
      expect(res.status).toBe(403);
      expect((await json(res)).code).toBe("INSUFFICIENT_SCOPE");
    }
  });

  it("a credential with no role on the workspace gets 403 INSUFFICIENT_WORKSPACE_ROLE", async () => {
    const other = await createServiceAccount(host, { scopes: ["tickets:read", "tickets:manage"], workspaceAssignments: [{ workspaceId: CLINICS, role: "Owner" }] });
    const res = await host.call("GET", `${tickets()}/search?ticketNumber=SEC-1`, { auth: other });
    expect(res.status).toBe(403);
    expect((await json(res)).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
  });
});

describe("a workspace without ticketing", () => {
  it("answers every ticket endpoint with 400 EXTENSION_NOT_ENABLED naming ticketing, until the integration is switched on", async () => {
    const calls = [
      ["GET", `/workspaces/${CLINICS}/tickets/search?ticketNumber=INC0010001`, undefined],
      ["POST", `/workspaces/${CLINICS}/tickets/link`, { source: "SourceA", incidentId: "x", ticketId: "1" }],
      ["POST", `/workspaces/${CLINICS}/tickets/unlink`, { source: "SourceA", incidentId: "x", ticketId: "1" }],
      ["PUT", `/workspaces/${CLINICS}/tickets/priority`, { ticketId: "1", priority: "P1" }],
    ] as const;
    for (const [method, path, body] of calls) {
      const res = await host.call(method, path, { body });
      expect(res.status, path).toBe(400);
      expect(await json(res)).toMatchObject({ code: "EXTENSION_NOT_ENABLED", target: "ticketing", detail: expect.stringContaining("ticketing") });
    }
    // A WorkspaceAdmin switches it on in the portal.
    const workspaceAdmin: TestPerson = await host.person({ organizationalRole: "WorkspaceAdmin" });
    const on = await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${CLINICS}/integrations`, { body: { ticketing: true } });
    expect(on.status).toBe(200);
    const inEffect = { switchedOn: true, inEffect: true, notInEffect: null };
    expect((await json(on)).data).toEqual({ ticketing: inEffect, directoryLogs: inEffect, logAnalytics: inEffect, playbookAutomation: inEffect });
    expect((await host.call("GET", calls[0][1])).status).toBe(200);
    // The switch is audited in the workspace's trail, by the person, after the demo seed's switching it off.
    const switched = (await auditTrail(CLINICS)).filter((e) => e.activityType === "WorkspaceIntegrations");
    expect(switched.map((e) => [e.actorName, JSON.parse(e.metadata).after.ticketing])).toEqual([
      ["Demo seed", false],
      [workspaceAdmin.name, true],
    ]);
    expect(switched.at(-1)!.actorId).toBe(workspaceAdmin.userId);
    expect((await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${CLINICS}/integrations`, { body: { ticketing: false } })).status).toBe(200);
    expect((await host.call("GET", calls[0][1])).status).toBe(400);
  });
});

describe("through the ticketing bridge", () => {
  let bridge: TestHost;
  let server: Server;
  beforeAll(async () => {
    // A bridge that throttles one ticket number, fails on another and knows no ticket ids.
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      const number = url.searchParams.get("ticketNumber");
      if (number === "SEC-429") {
        res.writeHead(429, { "Retry-After": "7", "Content-Type": "application/json" }).end("{}");
      } else if (number === "SEC-503") {
        res.writeHead(503, { "Content-Type": "application/json" }).end("{}");
      } else if (number === "SEC-400") {
        res.writeHead(400, { "Content-Type": "application/json" }).end("{}");
      } else if (url.pathname.endsWith("/tickets")) {
        res.writeHead(200, { "Content-Type": "application/json" }).end('{"items":[]}');
      } else {
        res.writeHead(404, { "Content-Type": "application/json" }).end("{}");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    bridge = await startTestHost({ env: { TICKETING_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/itsm` } });
  });
  afterAll(async () => {
    await bridge?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("maps the ITSM's answers as docs/contract.md §7 says: 429 with Retry-After, 503 to 502, 400 to VALIDATION_ERROR, 404 to NOT_FOUND", async () => {
    const ws = bridge.demo.workspaces[0]!.id;
    const search = (number: string) => bridge.call("GET", `/workspaces/${ws}/tickets/search?ticketNumber=${number}`);
    const throttled = await search("SEC-429");
    expect([throttled.status, throttled.headers.get("retry-after"), (await json(throttled)).code]).toEqual([429, "7", "RATE_LIMITED"]);
    const down = await search("SEC-503");
    expect([down.status, (await json(down)).code]).toEqual([502, "UPSTREAM_ERROR"]);
    expect((await json(await search("SEC-400"))).code).toBe("VALIDATION_ERROR");
    const none = await search("SEC-1");
    expect([none.status, (await json(none)).data]).toEqual([200, []]);
    const priority = await bridge.call("PUT", `/workspaces/${ws}/tickets/priority`, { body: { ticketId: "777", priority: "P2" } });
    expect([priority.status, (await json(priority)).code]).toEqual([404, "NOT_FOUND"]);
  });
});
