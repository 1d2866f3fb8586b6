import { z } from "zod";
import { sources } from "../../model/sources";
import type { TicketLinkRecord } from "../../model/tickets/ticket-link";

/*
 * A link between an incident and a ticket as every caller reads it: the contract's ticket routes and
 * the portal's incident page.
 */

const timestamp = z.string().describe("UTC ISO 8601 timestamp.");

export const linkedByView = z.object({
  serviceAccountId: z.string().nullable().describe("The service account that linked them; null when a person or the service did."),
  userId: z.string().nullable().describe("The person who linked them in the portal; null when a service account or the service did."),
  name: z.string(),
});

export const ticketLinkView = z
  .object({
    id: z.string().describe("The link's id: the same for the same incident and ticket."),
    workspaceId: z.string(),
    source: z.enum(sources),
    incidentId: z.string(),
    ticketSystem: z.string().describe("The ITSM: `ServiceNow`, `Jira Service Management`."),
    ticketId: z.string(),
    ticketNumber: z.string(),
    url: z.string().describe("Where an analyst opens the ticket."),
    linkedAt: timestamp,
    linkedBy: linkedByView,
  })
  .describe("An incident linked to an ITSM ticket.");

/** Who linked, as views show it (links stored before people could link have no `userId`). */
export function toLinkedByView(linkedBy: TicketLinkRecord["linkedBy"]): z.infer<typeof linkedByView> {
  return { serviceAccountId: linkedBy.serviceAccountId, userId: linkedBy.userId ?? null, name: linkedBy.name };
}

export function toTicketLinkView(link: TicketLinkRecord): z.infer<typeof ticketLinkView> {
  return {
    id: link.id,
    workspaceId: link.workspaceId,
    source: link.source,
    incidentId: link.incidentId,
    ticketSystem: link.system,
    ticketId: link.ticketId,
    ticketNumber: link.ticketNumber,
    url: link.url,
    linkedAt: link.linkedAt,
    linkedBy: toLinkedByView(link.linkedBy),
  };
}
