import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiError } from "../../shared/platform/errors/api-error";
import { createTicketingBridge } from "../../shared/systems/itsm/http/http-itsm";
import type { Ticket, TicketNote } from "../../shared/systems/itsm/port";
import { apiErrorOf } from "../support/api-error-of";
import { sendJson, startFakeHttpServer, type FakeHttpServer } from "../support/fake-http-server";

// A fake ticketing bridge on node:http, implementing docs/ticketing-bridge.md over a fixed data set.

const AUTH = "Bearer itsm-bridge-secret";
const LEAK = "servicenow-admin-password";
const WS = "ws 1/ü";

const ticket: Ticket = {
  system: "ServiceNow",
  ticketId: "9d3f1c2ab7e04f51a2c3d4e5f6a7b8c9",
  ticketNumber: "INC0012345",
  url: "https://contoso.service-now.example/nav_to.do?uri=incident.do%3Fsys_id%3D9d3f1c2ab7e04f51a2c3d4e5f6a7b8c9",
  title: "Security incident: impossible travel for ann@contoso.example",
  status: "In Progress",
  state: "InProgress",
  priority: "P2",
  groupingIds: ["case-7f3a9c01"],
  assignmentGroup: "SOC Tier 2",
  assignee: "Dana Whitfield",
  createdAt: "2024-05-01T10:00:00.000Z",
  updatedAt: "2024-05-01T11:00:00.000Z",
};

const note: TicketNote = {
  id: "n1",
  ticketId: ticket.ticketId,
  kind: "WorkNote",
  body: "Host isolated.",
  authorName: "Dana Whitfield",
  authorEmail: "dana@contoso.example",
  createdAt: "2024-05-01T10:30:00.000Z",
};

let fake: FakeHttpServer;
let base: string;


function route(req: IncomingMessage, res: ServerResponse, body: string) {
  if (req.headers.authorization !== AUTH) return sendJson(res, 401, { error: LEAK });
  const url = new URL(req.url ?? "/", "http://bridge");
  const [prefix, w, ws, t, id, sub] = url.pathname.split("/").slice(1).map(decodeURIComponent);
  if (prefix !== "itsm" || w !== "workspaces" || ws !== WS || t !== "tickets") return sendJson(res, 404, { error: LEAK });
  const key = `${req.method} ${id === undefined ? "" : ":id"}${sub === undefined ? "" : `/${sub}`}`;
  if (id !== undefined && id !== ticket.ticketId) return sendJson(res, 404, { error: LEAK });
  switch (key) {
    case "GET ":
      return sendJson(res, 200, { items: url.searchParams.get("ticketNumber") === "INC0000000" ? [] : [ticket] });
    case "GET :id":
      return sendJson(res, 200, { ...ticket, createdAt: "2024-05-01T10:00:00Z", unknownField: true });
    case "PUT :id/priority":
      return sendJson(res, 200, { ...ticket, ...(JSON.parse(body) as object) });
    case "GET :id/notes":
      return sendJson(res, 200, { items: [note] });
    case "POST :id/notes":
      return sendJson(res, 201, { ...note, ...(JSON.parse(body) as object), id: "n2" });
    default:
      return sendJson(res, 404, { error: LEAK });
  }
}

beforeAll(async () => {
  fake = await startFakeHttpServer(route);
  base = `${fake.origin}/itsm/`;
});

afterAll(() => fake.close());

beforeEach(() => {
  fake.reset();
});

const bridge = (options: { withAuth?: boolean } = {}) =>
  createTicketingBridge({ baseUrl: base, authHeader: options.withAuth === false ? undefined : AUTH, timeoutMs: 2000 });
const ticketPath = `/itsm/workspaces/ws%201%2F%C3%BC/tickets/${ticket.ticketId}`;

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await apiErrorOf(promise);
  expect(error.message).not.toContain(LEAK);
  expect(error.message).not.toContain(AUTH);
  return error;
}

describe("ticketing bridge adapter", () => {
  it("searches with the criteria in the query string and the Authorization header", async () => {
    expect(await bridge().searchTickets({ workspaceId: WS, groupingId: "case 7+/", ticketNumber: "INC0012345", limit: 5 })).toEqual([ticket]);
    expect(fake.last()).toMatchObject({
      method: "GET",
      url: "/itsm/workspaces/ws%201%2F%C3%BC/tickets?groupingId=case%207%2B%2F&ticketNumber=INC0012345&limit=5",
      headers: expect.objectContaining({ authorization: AUTH }) as unknown,
    });
    expect(await bridge().searchTickets({ workspaceId: WS, ticketNumber: "INC0000000", limit: 5 })).toEqual([]);
    expect(fake.last().url).not.toContain("groupingId");
  });

  it("refuses a search without criteria before asking the bridge", async () => {
    expect((await rejection(bridge().searchTickets({ workspaceId: WS, limit: 5 }))).code).toBe("VALIDATION_ERROR");
    expect(fake.requests).toHaveLength(0);
  });

  it("reads a ticket, normalising timestamps and dropping unknown fields", async () => {
    expect(await bridge().getTicket(WS, ticket.ticketId)).toEqual(ticket);
    expect(fake.last()).toMatchObject({ method: "GET", url: ticketPath });
  });

  it("sets the priority with a JSON body and returns the ticket as it now stands", async () => {
    expect((await bridge().setPriority(WS, ticket.ticketId, "P1")).priority).toBe("P1");
    expect(fake.last()).toMatchObject({ method: "PUT", url: `${ticketPath}/priority` });
    expect(JSON.parse(fake.last().body)).toEqual({ priority: "P1" });
  });

  it("lists and adds notes", async () => {
    expect(await bridge().listNotes(WS, ticket.ticketId)).toEqual([note]);
    const added = { kind: "Comment" as const, body: "Customer informed.", authorName: "SOC", authorEmail: null };
    expect(await bridge().addNote(WS, ticket.ticketId, added)).toEqual({ ...note, ...added, id: "n2" });
    expect(fake.last()).toMatchObject({ method: "POST", url: `${ticketPath}/notes` });
    expect(JSON.parse(fake.last().body)).toEqual(added);
  });

  it("maps the bridge's statuses by docs/contract.md §7 and relays Retry-After as seconds", async () => {
    expect((await rejection(bridge().getTicket(WS, "unknown"))).code).toBe("NOT_FOUND");
    expect((await rejection(bridge({ withAuth: false }).getTicket(WS, ticket.ticketId))).code).toBe("UPSTREAM_ERROR");
    fake.override((_req, res) => sendJson(res, 429, { error: LEAK }, { "retry-after": "12" }));
    const limited = await rejection(bridge().setPriority(WS, ticket.ticketId, "P3"));
    expect(limited).toMatchObject({ code: "RATE_LIMITED", status: 429, headers: { "Retry-After": "12" } });
    expect(limited.message).toContain(`setting the priority of ticket ${ticket.ticketId}`);
    fake.override((_req, res) => sendJson(res, 409, { error: LEAK }));
    expect((await rejection(bridge().addNote(WS, ticket.ticketId, { kind: "Comment", body: "b", authorName: "a", authorEmail: null }))).code).toBe("CONFLICT");
  });

  it("rejects answers that break the contract as UPSTREAM_ERROR", async () => {
    const cases: unknown[] = [
      { ...ticket, ticketId: "another" }, // about another ticket
      { ...ticket, priority: "Critical" }, // not on the P1–P5 scale
      { ...ticket, url: "javascript:alert(1)" }, // not a web link
      { ...ticket, updatedAt: "2024-05-01T11:00:00+02:00" }, // not UTC
    ];
    for (const answer of cases) {
      fake.override((_req, res) => sendJson(res, 200, answer));
      expect((await rejection(bridge().getTicket(WS, ticket.ticketId))).code).toBe("UPSTREAM_ERROR");
    }
    fake.override((_req, res) => sendJson(res, 200, { items: [ticket, ticket] }));
    expect((await rejection(bridge().searchTickets({ workspaceId: WS, groupingId: "g", limit: 1 }))).message).toContain("more items than the limit");
    fake.override((_req, res) => sendJson(res, 200, { items: [{ ...note, ticketId: "another" }] }));
    expect((await rejection(bridge().listNotes(WS, ticket.ticketId))).code).toBe("UPSTREAM_ERROR");
  });

  it("refuses ids that cannot name a ticket without a request", async () => {
    expect((await rejection(bridge().getTicket(WS, ".."))).code).toBe("NOT_FOUND");
    expect(fake.requests).toHaveLength(0);
  });
});
