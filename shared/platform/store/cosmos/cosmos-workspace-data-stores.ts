import type { TicketLinkStore, WorkspaceIntegrationsStore } from "../ports";
import type { TicketLinkRecord } from "../../../domain/tickets/ticket-link";
import type { WorkspaceIntegrationsRecord } from "../../../domain/organizations/workspace-integrations";
import type { Collection } from "./collection";

/** Integration switches: one document per workspace in `workspaceItems`, beside its outbox. */
export function cosmosIntegrations(documents: Collection<WorkspaceIntegrationsRecord>): WorkspaceIntegrationsStore {
  return {
    get: (workspaceId) => documents.read("integrations", workspaceId),
    create: (record, outbox = []) => documents.create(record, outbox),
    replace: (record, etag, outbox = []) => documents.replace(record, etag, outbox),
  };
}

/** Ticket links in `workspaceItems`: a link, its audit event and its unlink stay in one partition. */
export function cosmosTicketLinks(links: Collection<TicketLinkRecord>): TicketLinkStore {
  return {
    get: (workspaceId, id) => links.read(id, workspaceId),
    async listForIncident(workspaceId, source, incidentId) {
      const found = await links.query(
        "SELECT * FROM c WHERE c.pk = @ws AND c.docType = 'ticketLink' AND c.source = @source AND c.incidentId = @incidentId",
        { "@ws": workspaceId, "@source": source, "@incidentId": incidentId },
        workspaceId,
      );
      return oldestFirst(found);
    },
    async listForTickets(workspaceId, ticketIds) {
      if (ticketIds.length === 0) return [];
      const found = await links.query(
        "SELECT * FROM c WHERE c.pk = @ws AND c.docType = 'ticketLink' AND ARRAY_CONTAINS(@ticketIds, c.ticketId)",
        { "@ws": workspaceId, "@ticketIds": [...new Set(ticketIds)] },
        workspaceId,
      );
      return oldestFirst(found);
    },
    create: (record, outbox = []) => links.create(record, outbox),
    delete: (workspaceId, id, etag, outbox = []) => links.delete(id, workspaceId, etag, outbox),
  };
}

function oldestFirst(links: TicketLinkRecord[]): TicketLinkRecord[] {
  return links.sort((a, b) => (a.linkedAt < b.linkedAt ? -1 : a.linkedAt > b.linkedAt ? 1 : a.id < b.id ? -1 : 1));
}
