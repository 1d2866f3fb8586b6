import { z } from "zod";
import { ticketNoteKinds, ticketPriorities, type TicketingSystem } from "../../../shared/systems/itsm/port";
import type { FakeHttpServer } from "../fake-http-server";
import { jsonBody, methodNotAllowed, noRoute, numberParam, startBridgeServer, textParam, type BridgeAnswer, type BridgeRequest } from "./bridge-server";

/**
 * A ticketing bridge (docs/ticketing-bridge.md) in front of an ITSM given as the port (the simulated
 * ITSM), on `<origin>/itsm`. A workspace the ITSM does not serve is answered 404, as section 1 asks;
 * every other refusal with the vendor bridge's statuses (section 4).
 */
export interface ItsmBridge {
  server: FakeHttpServer;
  /** `<origin>/itsm`. */
  baseUrl: string;
  close(): Promise<void>;
}

const priorityBodySchema = z.object({ priority: z.enum(ticketPriorities) });
const newNoteSchema = z.object({ kind: z.enum(ticketNoteKinds), body: z.string(), authorName: z.string(), authorEmail: z.string().nullable() });

export async function startItsmBridge(itsm: TicketingSystem, options: { authHeader?: string } = {}): Promise<ItsmBridge> {
  async function route(request: BridgeRequest): Promise<BridgeAnswer> {
    const [base, workspaces, workspaceId, tickets, ticketId, sub, ...rest] = request.segments;
    if (base !== "itsm" || workspaces !== "workspaces" || workspaceId === undefined || tickets !== "tickets" || rest.length > 0) noRoute();
    const { method, query } = request;

    if (ticketId === undefined) {
      if (method !== "GET") methodNotAllowed();
      const items = await itsm.searchTickets({
        workspaceId,
        groupingId: textParam(query, "groupingId"),
        ticketNumber: textParam(query, "ticketNumber"),
        limit: numberParam(query, "limit"),
      });
      return { status: 200, body: { items } };
    }
    switch (sub) {
      case undefined:
        if (method !== "GET") methodNotAllowed();
        return { status: 200, body: await itsm.getTicket(workspaceId, ticketId) };
      case "priority": {
        if (method !== "PUT") methodNotAllowed();
        const { priority } = jsonBody(request.body, priorityBodySchema);
        return { status: 200, body: await itsm.setPriority(workspaceId, ticketId, priority) };
      }
      case "notes":
        if (method === "GET") return { status: 200, body: { items: await itsm.listNotes(workspaceId, ticketId) } };
        if (method === "POST") return { status: 201, body: await itsm.addNote(workspaceId, ticketId, jsonBody(request.body, newNoteSchema)) };
        return methodNotAllowed();
      default:
        return noRoute();
    }
  }

  const server = await startBridgeServer(route, {
    ...options,
    statusOverride: (error) => (error.code === "EXTENSION_NOT_ENABLED" ? 404 : undefined),
  });
  return { server, baseUrl: `${server.origin}/itsm`, close: () => server.close() };
}
