import type { z } from "zod";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import { derivedGuid } from "../../platform/ids/derived-guid";
import type { Uses } from "../../platform/operation-context";
import type { Source } from "../../domain/sources";
import { commit } from "../../platform/store/commit";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { TicketLinkRecord } from "../../domain/tickets/ticket-link";
import type { WorkspaceRecord } from "../../domain/organizations/workspace";
import type { Ticket } from "../../systems/itsm/port";
import type { ticketLinkView, ticketView } from "./ticket-schemas";

/** A ticket as the caller names it: by the ITSM's id or by its number. */
export interface TicketName {
  ticketId?: string;
  ticketNumber?: string;
}

export interface IncidentTicketPair extends TicketName {
  source: Source;
  incidentId: string;
}

/** The same incident and ticket always give the same link id, so a second link of the pair is a taken id. */
export function ticketLinkId(workspaceId: string, pair: { source: Source; incidentId: string; system: string; ticketId: string }): string {
  return derivedGuid(`ticket-link/${workspaceId}/${pair.source}/${pair.incidentId}/${pair.system}/${pair.ticketId}`);
}

/** The ticket in the workspace's ITSM: NOT_FOUND (target ticketId or ticketNumber) when there is none. */
export async function findTicket(ctx: Uses<"ticketing">, workspace: WorkspaceRecord, name: TicketName): Promise<Ticket> {
  const { ticketing } = ctx;
  if (name.ticketId !== undefined) return ticketing.getTicket(workspace.id, name.ticketId, ctx.signal);
  const [ticket] = await ticketing.searchTickets({ workspaceId: workspace.id, ticketNumber: name.ticketNumber, limit: 1 }, ctx.signal);
  if (!ticket) throw notFound(`Ticket ${name.ticketNumber}`, "ticketNumber");
  return ticket;
}

/**
 * Links an incident to a ticket: both must exist (the incident at its source, the ticket in the
 * workspace's ITSM); the link and its audit event commit together. CONFLICT when the pair is linked.
 */
export async function linkTicket(ctx: Uses<"actor" | "events" | "now" | "sources" | "stores" | "ticketing">, workspace: WorkspaceRecord, pair: IncidentTicketPair): Promise<TicketLinkRecord> {
  await ctx.sources.gateway(pair.source).getIncident(workspace.id, pair.incidentId, ctx.signal);
  const ticket = await findTicket(ctx, workspace, pair);
  const now = ctx.now();
  const link: TicketLinkRecord = {
    id: ticketLinkId(workspace.id, { source: pair.source, incidentId: pair.incidentId, system: ticket.system, ticketId: ticket.ticketId }),
    docType: "ticketLink",
    workspaceId: workspace.id,
    source: pair.source,
    incidentId: pair.incidentId,
    system: ticket.system,
    ticketId: ticket.ticketId,
    ticketNumber: ticket.ticketNumber,
    url: ticket.url,
    linkedAt: now.toISOString(),
    linkedBy: { serviceAccountId: ctx.actor.serviceAccountId, name: ctx.actor.name },
  };
  try {
    await commit({
      read: async () => ({ value: link, etag: null }),
      change: (created) => [linkAudit(ctx, workspace, created, "Create", now)],
      write: (created, _etag, outbox) => ctx.stores.ticketLinks.create(created, outbox),
      outbox: ctx.events.outbox,
      // A create conflicts only with itself: the pair is linked already.
      maxAttempts: 1,
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === "CONFLICT") {
      throw new ApiError("CONFLICT", `Incident ${pair.incidentId} is already linked to ticket ${ticket.ticketNumber}.`, { target: "ticketId", cause: error });
    }
    throw error;
  }
  return link;
}

/**
 * Removes the link of an incident and a ticket, found among the incident's stored links (by the
 * ticket's id or number), so that a ticket since deleted in the ITSM can still be unlinked. NOT_FOUND
 * when the pair is not linked.
 */
export async function unlinkTicket(ctx: Uses<"actor" | "events" | "now" | "stores">, workspace: WorkspaceRecord, pair: IncidentTicketPair): Promise<TicketLinkRecord> {
  const { stores } = ctx;
  const links = await stores.ticketLinks.listForIncident(workspace.id, pair.source, pair.incidentId);
  const number = pair.ticketNumber?.toLowerCase();
  const link = links.find((l) => (pair.ticketId !== undefined ? l.ticketId === pair.ticketId : l.ticketNumber.toLowerCase() === number));
  const ticket = pair.ticketId ?? pair.ticketNumber;
  if (!link) throw new ApiError("NOT_FOUND", `Incident ${pair.incidentId} is not linked to ticket ${ticket}.`, { target: pair.ticketId !== undefined ? "ticketId" : "ticketNumber" });
  await commit({
    async read() {
      const current = await stores.ticketLinks.get(workspace.id, link.id);
      if (!current) throw new ApiError("NOT_FOUND", `Incident ${pair.incidentId} is not linked to ticket ${ticket}.`, { target: "ticketId" });
      return current;
    },
    change: (current) => [linkAudit(ctx, workspace, current, "Delete", ctx.now())],
    write: (current, etag, outbox) => stores.ticketLinks.delete(workspace.id, current.id, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  return link;
}

function linkAudit(ctx: Uses<"actor">, workspace: WorkspaceRecord, link: TicketLinkRecord, action: "Create" | "Delete", now: Date) {
  return auditRecord(
    ctx.actor,
    {
      activityType: "TicketLink",
      activityAction: action,
      targetResourceType: "TicketLink",
      targetResourceId: link.id,
      targetResourceName: link.ticketNumber,
      metadata: { source: link.source, incidentId: link.incidentId, ticketSystem: link.system, ticketId: link.ticketId, ticketNumber: link.ticketNumber },
      workspaceId: workspace.id,
      accountId: workspace.accountId,
    },
    outboxScope.workspace(workspace.id),
    now,
  );
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
    linkedBy: { ...link.linkedBy },
  };
}

export function toTicketView(ticket: Ticket): z.infer<typeof ticketView> {
  const { system, ...rest } = ticket;
  return { ticketSystem: system, ...rest, groupingIds: [...ticket.groupingIds] };
}
