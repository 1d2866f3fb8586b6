import { z } from "zod";
import { createJsonHttpClient, queryString, type JsonCall } from "../../../platform/upstream/json-http-client";
import {
  checkTicketSearch,
  ticketNoteKinds,
  ticketPriorities,
  ticketStates,
  type Ticket,
  type TicketingSystem,
  type TicketNote,
} from "../port";

/**
 * The ticketing bridge adapter: a TicketingSystem over the JSON contract of docs/ticketing-bridge.md,
 * which a small service in front of ServiceNow, Jira Service Management or another ITSM implements.
 * Transport, deadlines, size bounds and the docs/contract.md §7 mapping are the shared bridge client's.
 */
export interface TicketingBridgeOptions {
  /** e.g. "https://bridge.example.com/itsm" (a trailing slash is ignored). */
  baseUrl: string;
  /** Full value of the Authorization header; never logged, never in errors. */
  authHeader?: string;
  timeoutMs: number;
  /** Injectable for tests; defaults to globalThis.fetch. */
  fetch?: typeof fetch;
}

/** UTC only, normalised to milliseconds, as the vendor bridge's timestamps (docs/vendor-bridge.md §1). */
const timestamp = z.iso
  .datetime()
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), "Not a valid instant.")
  .transform((date) => date.toISOString());

const ticketSchema: z.ZodType<Ticket> = z.object({
  system: z.string().min(1),
  ticketId: z.string().min(1),
  ticketNumber: z.string().min(1),
  // Only web links: the URL is shown to analysts as something to click.
  url: z.url({ protocol: /^https?$/ }),
  title: z.string(),
  status: z.string(),
  state: z.enum(ticketStates),
  priority: z.enum(ticketPriorities),
  groupingIds: z.array(z.string()),
  assignmentGroup: z.string().nullable(),
  assignee: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const noteSchema: z.ZodType<TicketNote> = z.object({
  id: z.string().min(1),
  ticketId: z.string().min(1),
  kind: z.enum(ticketNoteKinds),
  body: z.string(),
  authorName: z.string(),
  authorEmail: z.string().nullable(),
  createdAt: timestamp,
});

const ticketListSchema = z.object({ items: z.array(ticketSchema) });
const noteListSchema = z.object({ items: z.array(noteSchema) });

export function createTicketingBridge(options: TicketingBridgeOptions): TicketingSystem {
  const client = createJsonHttpClient({ system: "Ticketing", ...options });
  const ticketPath = (workspaceId: string, ticketId: string) =>
    `/workspaces/${client.segment(workspaceId)}/tickets/${client.segment(ticketId)}`;
  const about = (workspaceId: string, ticketId: string) => `ticket ${ticketId} of workspace ${workspaceId}`;

  /** An answer about another ticket is as wrong as a malformed one. */
  function sameTicket<T extends { ticketId: string }>(call: JsonCall, item: T, ticketId: string): T {
    if (item.ticketId !== ticketId) throw client.invalid(call, "ticketId does not match the request");
    return item;
  }

  async function ticketCall(call: JsonCall, ticketId: string, signal?: AbortSignal): Promise<Ticket> {
    return sameTicket(call, await client.read(call, ticketSchema, signal), ticketId);
  }

  // Every method is async so that a synchronous refusal (segment, search rule) arrives as a rejection.
  return {
    // The bridge decides per workspace: one it does not serve answers 404 (NOT_FOUND) rather than
    // EXTENSION_NOT_ENABLED, which only the deployment's configuration can say.
    isEnabled: () => true,

    async searchTickets(query, signal) {
      checkTicketSearch(query);
      const call: JsonCall = {
        method: "GET",
        path:
          `/workspaces/${client.segment(query.workspaceId)}/tickets` +
          queryString([
            ["groupingId", query.groupingId],
            ["ticketNumber", query.ticketNumber],
            ["limit", query.limit],
          ]),
        what: `searching the tickets of workspace ${query.workspaceId}`,
      };
      const { items } = await client.read(call, ticketListSchema, signal);
      if (items.length > query.limit) throw client.invalid(call, `more items than the limit of ${query.limit}`);
      return items;
    },

    getTicket: async (workspaceId, ticketId, signal) =>
      ticketCall({ method: "GET", path: ticketPath(workspaceId, ticketId), what: `reading ${about(workspaceId, ticketId)}` }, ticketId, signal),

    setPriority: async (workspaceId, ticketId, priority, signal) =>
      ticketCall(
        {
          method: "PUT",
          path: `${ticketPath(workspaceId, ticketId)}/priority`,
          body: { priority },
          what: `setting the priority of ${about(workspaceId, ticketId)}`,
        },
        ticketId,
        signal,
      ),

    async listNotes(workspaceId, ticketId, signal) {
      const call: JsonCall = { method: "GET", path: `${ticketPath(workspaceId, ticketId)}/notes`, what: `listing the notes of ${about(workspaceId, ticketId)}` };
      const { items } = await client.read(call, noteListSchema, signal);
      for (const note of items) sameTicket(call, note, ticketId);
      return items;
    },

    async addNote(workspaceId, ticketId, note, signal) {
      const call: JsonCall = {
        method: "POST",
        path: `${ticketPath(workspaceId, ticketId)}/notes`,
        body: note,
        what: `adding a note to ${about(workspaceId, ticketId)}`,
      };
      return sameTicket(call, await client.read(call, noteSchema, signal), ticketId);
    },
  };
}
