import { ApiError, notFound } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import { derivedGuid } from "../../platform/ids/derived-guid";
import type { Actor } from "../../platform/actor";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { Ticket } from "../../systems/itsm/port";
import type { Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { loadChecked, type IncidentTarget } from "../incidents/incident-access";
import type { TicketLinkRecord } from "../../model/tickets/ticket-link";

/*
 * Linking incidents and ITSM tickets, whoever asks: a service account on the contract's ticket routes
 * or a person on the incident's page. Each change commits with its audit event, the actor as who did it.
 */

/** A ticket as the caller names it: by the ITSM's id or by its number. */
export interface TicketName {
  ticketId?: string;
  ticketNumber?: string;
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
 * Links an incident to a ticket: both must exist (the incident at its source, its version the
 * caller's `If-Match` when sent; the ticket in the workspace's ITSM); the link and its audit event
 * commit together. CONFLICT when the pair is linked.
 */
export async function linkTicket(ctx: Uses<"actor" | "events" | "now" | "sources" | "stores" | "ticketing">, target: IncidentTarget, name: TicketName): Promise<TicketLinkRecord> {
  const { workspace } = target;
  if (target.ifMatch === undefined) await ctx.sources.gateway(target.source).getIncident(workspace.id, target.incidentId, ctx.signal);
  else await loadChecked(ctx, target);
  const ticket = await findTicket(ctx, workspace, name);
  const now = ctx.now();
  const link: TicketLinkRecord = {
    id: ticketLinkId(workspace.id, { source: target.source, incidentId: target.incidentId, system: ticket.system, ticketId: ticket.ticketId }),
    docType: "ticketLink",
    workspaceId: workspace.id,
    source: target.source,
    incidentId: target.incidentId,
    system: ticket.system,
    ticketId: ticket.ticketId,
    ticketNumber: ticket.ticketNumber,
    url: ticket.url,
    linkedAt: now.toISOString(),
    linkedBy: linkedBy(ctx.actor),
  };
  try {
    await commit({
      deadline: ctx.deadline,
      read: async () => ({ value: link, etag: null }),
      change: (created) => [linkAudit(ctx, workspace, created, "Create", now)],
      write: (created, _etag, outbox) => ctx.stores.ticketLinks.create(created, outbox),
      outbox: ctx.events.outbox,
      // A create conflicts only with itself: the pair is linked already.
      maxAttempts: 1,
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === "CONFLICT") {
      throw new ApiError("CONFLICT", `Incident ${target.incidentId} is already linked to ticket ${ticket.ticketNumber}.`, { target: "ticketId", cause: error });
    }
    throw error;
  }
  return link;
}

/**
 * Removes the link of an incident and a ticket, found among the incident's stored links (by the
 * ticket's id or number), so that a ticket since deleted in the ITSM can still be unlinked. The
 * incident is read only to check the caller's `If-Match`, when sent. NOT_FOUND when the pair is not linked.
 */
export async function unlinkTicket(ctx: Uses<"actor" | "events" | "now" | "sources" | "stores">, target: IncidentTarget, name: TicketName): Promise<TicketLinkRecord> {
  const { stores } = ctx;
  const { workspace } = target;
  if (target.ifMatch !== undefined) await loadChecked(ctx, target);
  const links = await stores.ticketLinks.listForIncident(workspace.id, target.source, target.incidentId);
  const number = name.ticketNumber?.toLowerCase();
  const link = links.find((l) => (name.ticketId !== undefined ? l.ticketId === name.ticketId : l.ticketNumber.toLowerCase() === number));
  const ticket = name.ticketId ?? name.ticketNumber;
  if (!link) throw new ApiError("NOT_FOUND", `Incident ${target.incidentId} is not linked to ticket ${ticket}.`, { target: name.ticketId !== undefined ? "ticketId" : "ticketNumber" });
  await commit({
    deadline: ctx.deadline,
    async read() {
      const current = await stores.ticketLinks.get(workspace.id, link.id);
      if (!current) throw new ApiError("NOT_FOUND", `Incident ${target.incidentId} is not linked to ticket ${ticket}.`, { target: "ticketId" });
      return current;
    },
    change: (current) => [linkAudit(ctx, workspace, current, "Delete", ctx.now())],
    write: (current, etag, outbox) => stores.ticketLinks.delete(workspace.id, current.id, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  return link;
}

/** Who made a link: the service account, or the person in the portal. */
function linkedBy(actor: Actor): TicketLinkRecord["linkedBy"] {
  return { serviceAccountId: actor.serviceAccountId, userId: actor.person?.userId ?? null, name: actor.name };
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
