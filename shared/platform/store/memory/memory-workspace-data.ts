import { outboxScope } from "../outbox-scope";
import { auditTrailOf, workspaceAuditTrail } from "../audit-trail";
import type { AgentConfigurationStore, AuditStore, PlaybookCatalogueStore, SopStore, TicketLinkStore, WorkspaceIntegrationsStore } from "../ports";
import type { AgentConfigurationRecord } from "../../../domain/incidents/agent-configuration";
import type { PlaybookCatalogueRecord } from "../../../domain/gamebooks/playbook-catalogue-record";
import type { SopRecord } from "../../../domain/sops/sop";
import type { AuditEventRecord } from "../../../domain/audit/audit-event";
import type { TicketLinkRecord } from "../../../domain/tickets/ticket-link";
import type { WorkspaceIntegrationsRecord } from "../../../domain/organizations/workspace-integrations";
import type { MemoryOutbox } from "./memory-outbox";
import { OutboxedWrites } from "./memory-outbox";
import { VersionedMap } from "./versioned-map";

/** The audit trail: one sequence per trail, taken in the same synchronous stretch as the append. */
export function memoryAudit(): AuditStore {
  const trails = new Map<string, { sequence: number; event: AuditEventRecord }[]>();
  const ids = new Set<string>();
  const copy = (e: AuditEventRecord) => structuredClone(e);
  return {
    async append(event) {
      if (ids.has(event.id)) return;
      ids.add(event.id);
      const trail = auditTrailOf(event);
      const entries = trails.get(trail) ?? [];
      entries.push({ sequence: entries.length + 1, event: Object.freeze(copy(event)) });
      trails.set(trail, entries);
    },
    async listRecent(accountId, limit) {
      return [...trails.values()]
        .flat()
        .map((e) => e.event)
        .filter((e) => e.accountId === accountId)
        .sort((a, b) => (a.timeGenerated < b.timeGenerated ? 1 : a.timeGenerated > b.timeGenerated ? -1 : 0))
        .slice(0, Math.max(0, limit))
        .map(copy);
    },
    async listWorkspaceTrail(workspaceId, afterSequence, limit, notBefore) {
      const entries = trails.get(workspaceAuditTrail(workspaceId)) ?? [];
      // Sequences start at 1 and have no gaps here: the next one is at index afterSequence.
      return entries
        .slice(Math.max(0, afterSequence))
        .filter((e) => notBefore === undefined || e.event.timeGenerated >= notBefore)
        .slice(0, Math.max(0, limit))
        .map((e) => ({ sequence: e.sequence, event: copy(e.event) }));
    },
  };
}

export function memoryIntegrations(outbox: MemoryOutbox): WorkspaceIntegrationsStore {
  const map = new VersionedMap<WorkspaceIntegrationsRecord>("workspace integrations");
  const writes = new OutboxedWrites(map, outbox);
  return {
    get: async (workspaceId) => map.get(workspaceId),
    create: async (record, records) => writes.create(record.workspaceId, record, outboxScope.workspace(record.workspaceId), records),
    replace: async (record, etag, records) => writes.replace(record.workspaceId, record, etag, outboxScope.workspace(record.workspaceId), records),
  };
}

export function memoryTicketLinks(outbox: MemoryOutbox): TicketLinkStore {
  const map = new VersionedMap<TicketLinkRecord>("ticket link");
  const writes = new OutboxedWrites(map, outbox);
  const key = (workspaceId: string, id: string) => `${workspaceId}|${id}`;
  const oldestFirst = (links: TicketLinkRecord[]) => links.sort((a, b) => (a.linkedAt < b.linkedAt ? -1 : a.linkedAt > b.linkedAt ? 1 : a.id < b.id ? -1 : 1));
  return {
    get: async (workspaceId, id) => map.get(key(workspaceId, id)),
    async listForIncident(workspaceId, source, incidentId) {
      return oldestFirst(map.values().filter((l) => l.workspaceId === workspaceId && l.source === source && l.incidentId === incidentId));
    },
    async listForTickets(workspaceId, ticketIds) {
      return oldestFirst(map.values().filter((l) => l.workspaceId === workspaceId && ticketIds.includes(l.ticketId)));
    },
    create: async (record, records) => writes.create(key(record.workspaceId, record.id), record, outboxScope.workspace(record.workspaceId), records),
    delete: async (workspaceId, id, etag, records) => writes.delete(key(workspaceId, id), etag, outboxScope.workspace(workspaceId), records),
  };
}

/** One catalogue per workspace; a change and its audit event commit together. */
export function memoryPlaybookCatalogues(outbox: MemoryOutbox): PlaybookCatalogueStore {
  const map = new VersionedMap<PlaybookCatalogueRecord>("playbook catalogue");
  const writes = new OutboxedWrites(map, outbox);
  return {
    get: async (workspaceId) => map.get(workspaceId)?.value,
    async put(catalogue) {
      map.upsert(catalogue.workspaceId, catalogue);
    },
    read: async (workspaceId) => map.get(workspaceId),
    create: async (record, records) => writes.create(record.workspaceId, record, outboxScope.workspace(record.workspaceId), records),
    replace: async (record, etag, records) => writes.replace(record.workspaceId, record, etag, outboxScope.workspace(record.workspaceId), records),
  };
}

export function memoryAgentConfigurations(outbox: MemoryOutbox): AgentConfigurationStore {
  const map = new VersionedMap<AgentConfigurationRecord>("agent configuration");
  const writes = new OutboxedWrites(map, outbox);
  return {
    get: async (workspaceId) => map.get(workspaceId),
    create: async (record, records) => writes.create(record.workspaceId, record, outboxScope.workspace(record.workspaceId), records),
    replace: async (record, etag, records) => writes.replace(record.workspaceId, record, etag, outboxScope.workspace(record.workspaceId), records),
  };
}

export function memorySops(outbox: MemoryOutbox): SopStore {
  const map = new VersionedMap<SopRecord>("SOP document");
  const writes = new OutboxedWrites(map, outbox);
  const key = (workspaceId: string, id: string) => `${workspaceId}|${id}`;
  return {
    async list(workspaceId) {
      return map
        .values()
        .filter((r) => r.workspaceId === workspaceId)
        .sort((a, b) => (a.uploadedAt > b.uploadedAt ? -1 : a.uploadedAt < b.uploadedAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    get: async (workspaceId, id) => map.get(key(workspaceId, id)),
    create: async (record, records) => writes.create(key(record.workspaceId, record.id), record, outboxScope.workspace(record.workspaceId), records),
    delete: async (workspaceId, id, etag, records) => writes.delete(key(workspaceId, id), etag, outboxScope.workspace(workspaceId), records),
  };
}
