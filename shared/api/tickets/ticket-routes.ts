import { commitWithin } from "../../platform/concurrency/deadline";
import { z } from "zod";
import { demoLinkExample, ticketLinkExample, ticketPriorityExample, ticketSearchExample } from "./ticket-examples";
import { notFound } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import { workspaceRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { requireIntegration } from "../../domain/organizations/integration-switches";
import { outboxScope } from "../../platform/store/outbox-scope";
import { findTicket, linkTicket, unlinkTicket } from "../../domain/tickets/ticket-links";
import { ticketLinkView, toLinkedByView, toTicketLinkView } from "../../domain/tickets/ticket-link-view";
import { linkBody, linkParams, priorityBody, SEARCH_NEEDS, ticketSearchQuery, ticketSearchResult, ticketView, toTicketView, unlinkBody, workspaceParams } from "./ticket-schemas";

const tag = "Tickets";
const base = "/workspaces/{workspaceId}/tickets";
/** Search is by grouping id or number, never a listing: a handful of tickets, not a page. */
const SEARCH_LIMIT = 50;

/**
 * Tickets in the workspace's ITSM and their links to incidents. Every route needs the workspace's
 * ticketing integration (400 EXTENSION_NOT_ENABLED otherwise), unlink included: a workspace whose
 * ticketing is off has no ticket operations at all.
 */
export const ticketRoutes: RouteGroup = {
  name: "tickets",
  routes: [
    workspaceRoute({
      method: "GET",
      path: `${base}/search`,
      summary: "Find tickets by grouping id and/or ticket number, with the incidents linked to them",
      description: SEARCH_NEEDS,
      tag,
      auth: "tickets:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      query: ticketSearchQuery,
      response: z.array(ticketSearchResult).meta({ examples: [ticketSearchExample] }),
      async handler(input) {
        const { workspace, query } = input;
        await requireIntegration(input, workspace, "ticketing");
        const tickets = await input.ticketing.searchTickets(
          { workspaceId: workspace.id, groupingId: query.groupingId, ticketNumber: query.ticketNumber, limit: SEARCH_LIMIT },
          input.signal,
        );
        const links = await input.stores.ticketLinks.listForTickets(workspace.id, tickets.map((t) => t.ticketId));
        const data = tickets.map((ticket) => ({
          ...toTicketView(ticket),
          links: links
            .filter((l) => l.ticketId === ticket.ticketId && l.system === ticket.system)
            .map((l) => ({ id: l.id, source: l.source, incidentId: l.incidentId, linkedAt: l.linkedAt, linkedBy: toLinkedByView(l.linkedBy) })),
        }));
        return { data };
      },
    }),
    workspaceRoute({
      method: "POST",
      path: `${base}/link`,
      idempotencyKey: true,
      summary: "Link an incident to a ticket (409 when they are linked already)",
      tag,
      auth: "tickets:manage",
      problems: ["EXTENSION_NOT_ENABLED", "CONFLICT"],
      params: workspaceParams,
      body: linkBody,
      response: ticketLinkView.meta({ examples: [ticketLinkExample] }),
      successStatus: 201,
      responseHeaders: ["Location"],
      async handler(input) {
        await requireIntegration(input, input.workspace, "ticketing");
        const { source, incidentId, ...ticket } = input.body;
        const link = await linkTicket(input, { workspace: input.workspace, source, incidentId }, ticket);
        return { status: 201, data: toTicketLinkView(link), headers: { Location: `${input.origin}/api/v2${base.replace("{workspaceId}", input.workspace.id)}/links/${link.id}` } };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/links/{linkId}`,
      summary: "Get one link between an incident and a ticket",
      tag,
      auth: "tickets:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: linkParams,
      response: ticketLinkView.meta({ examples: [demoLinkExample] }),
      async handler(input) {
        await requireIntegration(input, input.workspace, "ticketing");
        const found = await input.stores.ticketLinks.get(input.workspace.id, input.params.linkId.toLowerCase());
        if (!found) throw notFound("The link", "linkId");
        return { data: toTicketLinkView(found.value) };
      },
    }),
    workspaceRoute({
      method: "POST",
      path: `${base}/unlink`,
      summary: "Remove the link between an incident and a ticket (404 when they are not linked)",
      tag,
      auth: "tickets:manage",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      body: unlinkBody,
      successStatus: 204,
      async handler(input) {
        await requireIntegration(input, input.workspace, "ticketing");
        const { source, incidentId, ...ticket } = input.body;
        await unlinkTicket(input, { workspace: input.workspace, source, incidentId }, ticket);
        return { status: 204 };
      },
    }),
    workspaceRoute({
      method: "PUT",
      path: `${base}/priority`,
      summary: "Set a ticket's priority in the ITSM",
      tag,
      auth: "tickets:manage",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      body: priorityBody,
      response: ticketView.meta({ examples: [ticketPriorityExample] }),
      async handler(input) {
        const { workspace, body } = input;
        await requireIntegration(input, workspace, "ticketing");
        const ticket = await findTicket(input, workspace, body);
        // A change in the ITSM: started only while the request's deadline allows, then not cut off by it.
        const updated = await commitWithin(input.deadline, (signal) => input.ticketing.setPriority(workspace.id, ticket.ticketId, body.priority, signal), input.signal);
        // The write happened in the ITSM: its audit event goes to the workspace's outbox on its own.
        await input.events.outbox.record([
          auditRecord(
            input.actor,
            {
              activityType: "TicketPriority",
              activityAction: "Update",
              targetResourceType: "Ticket",
              targetResourceId: ticket.ticketId,
              targetResourceName: ticket.ticketNumber,
              metadata: { ticketSystem: ticket.system, from: ticket.priority, to: body.priority, ...(body.reason ? { reason: body.reason } : {}) },
              workspaceId: workspace.id,
              accountId: workspace.accountId,
            },
            outboxScope.workspace(workspace.id),
            input.now(),
          ),
        ], input.deadline);
        return { data: toTicketView(updated) };
      },
    }),
  ],
};
