import type { AgentConfigurationStore, SopStore, TicketLinkStore, WorkspaceIntegrationsStore } from "../ports";
import { AGENT_CONFIGURATION_ID, type AgentConfigurationRecord } from "../../../model/incidents/agent-configuration";
import type { SopRecord } from "../../../model/sops/sop";
import type { TicketLinkRecord } from "../../../model/tickets/ticket-link";
import type { WorkspaceIntegrationsRecord } from "../../../model/organizations/workspace-integrations";
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

/** The agent configuration: one document per workspace in `workspaceItems`, beside its outbox. */
export function cosmosAgentConfigurations(documents: Collection<AgentConfigurationRecord>): AgentConfigurationStore {
  return {
    async get(workspaceId) {
      const found = await documents.read(AGENT_CONFIGURATION_ID, workspaceId);
      return found?.value.docType === "agentConfiguration" ? found : undefined;
    },
    create: (record, outbox = []) => documents.create(record, outbox),
    replace: (record, etag, outbox = []) => documents.replace(record, etag, outbox),
  };
}

/** SOP records in `workspaceItems`: an upload, its audit event and its removal stay in one partition. */
export function cosmosSops(records: Collection<SopRecord>): SopStore {
  return {
    async list(workspaceId) {
      // A workspace keeps tens of documents: sorted here rather than on a composite index of its own.
      const found = await records.query("SELECT * FROM c WHERE c.pk = @ws AND c.docType = 'sop'", { "@ws": workspaceId }, workspaceId);
      return found.sort((a, b) => (a.uploadedAt > b.uploadedAt ? -1 : a.uploadedAt < b.uploadedAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async get(workspaceId, id) {
      const found = await records.read(id, workspaceId);
      return found?.value.docType === "sop" ? found : undefined;
    },
    create: (record, outbox = []) => records.create(record, outbox),
    delete: (workspaceId, id, etag, outbox = []) => records.delete(id, workspaceId, etag, outbox),
  };
}

function oldestFirst(links: TicketLinkRecord[]): TicketLinkRecord[] {
  return links.sort((a, b) => (a.linkedAt < b.linkedAt ? -1 : a.linkedAt > b.linkedAt ? 1 : a.id < b.id ? -1 : 1));
}
