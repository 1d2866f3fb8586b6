import { outboxScope } from "../outbox-scope";
import { auditSearchKeeps, auditTrailOf, newestEventFirst, workspaceAuditTrail } from "../audit-trail";
import type { AgentConfigurationStore, AuditStore, PlaybookCatalogueStore, SopStore, TicketLinkStore, WorkspaceIntegrationsStore } from "../ports";
import type { AgentConfigurationRecord } from "../../../model/incidents/agent-configuration";
import type { PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";
import type { SopRecord } from "../../../model/sops/sop";
import { DEFAULT_AUDIT_RETENTION_DAYS, type AuditEventRecord, type SequencedAuditEvent } from "../../../model/audit/audit-event";
import type { TicketLinkRecord } from "../../../model/tickets/ticket-link";
import type { WorkspaceIntegrationsRecord } from "../../../model/organizations/workspace-integrations";
import type { MemoryOutbox } from "./memory-outbox";
import { OutboxedWrites } from "./memory-outbox";
import { VersionedMap } from "./versioned-map";
import { ExpiringKeys } from "../../expiring-keys";

export interface MemoryAuditOptions {
  /** Days an event is kept from its append; default `DEFAULT_AUDIT_RETENTION_DAYS`. */
  retentionDays?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** Events kept at most, across trails: past it the oldest go first; default `MEMORY_AUDIT_MAX_EVENTS`. */
  maxEvents?: number;
}

/**
 * The embedded store's bound on audit events (~700 bytes each in memory, so ~1.5 MB). Cosmos keeps every
 * event for the retention, a year, which under a steady load would be gigabytes in one process. What a
 * local host reads of its trails is the portal's audit pages and an export consumer that keeps up:
 * 2,000 events are a day of a person using a demo, and half a minute of the soak bench's 150 requests
 * a second (~75 audited writes a second), which no reader of a local host lags behind.
 */
export const MEMORY_AUDIT_MAX_EVENTS = 2_000;

interface TrailEntry {
  sequence: number;
  event: AuditEventRecord;
}

/**
 * The audit trails in memory. A single process can number an event in the same synchronous stretch
 * as its append, so an event is sequenced when appended and `sequence` has nothing left to do.
 * Retention: every event is kept the same time from its append, so events expire in the order they
 * were appended, and past `maxEvents` the oldest appended go first (`ExpiringKeys`); the oldest
 * appended of all is the front of its own trail, so a dropped event is shifted off that trail's front
 * and every trail's sequences go on unbroken.
 */
export function memoryAudit(options: MemoryAuditOptions = {}): AuditStore {
  const retentionMs = (options.retentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400_000;
  const now = options.now ?? (() => Date.now());
  // Per trail, its live events in sequence order: the i-th from the front has sequence `first + i`.
  const trails = new Map<string, { first: number; entries: Queue<TrailEntry> }>();
  // The ids of the events kept, for an append of one already kept (the id strings are the stored events' own).
  const ids = new Set<string>();
  // The stored events, oldest appended first: the front is also the front of its own trail.
  const kept = new ExpiringKeys<AuditEventRecord>({
    now,
    max: options.maxEvents ?? MEMORY_AUDIT_MAX_EVENTS,
    onDrop: (event) => {
      const trail = trails.get(auditTrailOf(event))!;
      trail.entries.shift();
      trail.first += 1;
      ids.delete(event.id);
    },
  });
  const copy = (e: AuditEventRecord) => structuredClone(e);
  return {
    async append(event) {
      kept.trim();
      if (ids.has(event.id)) return;
      const stored = Object.freeze(copy(event));
      const key = auditTrailOf(stored);
      const trail = trails.get(key) ?? { first: 1, entries: new Queue<TrailEntry>() };
      trail.entries.push({ sequence: trail.first + trail.entries.length, event: stored });
      trails.set(key, trail);
      ids.add(stored.id);
      kept.keep(stored, now() + retentionMs);
    },
    async sequence() {},
    async sequenceWaiting() {
      return 0;
    },
    async listRecent(accountId, limit) {
      kept.trim();
      return [...trails.values()]
        .flatMap((t) => [...t.entries.from(0)])
        .map((e) => e.event)
        .filter((e) => e.accountId === accountId)
        .sort((a, b) => (a.timeGenerated < b.timeGenerated ? 1 : a.timeGenerated > b.timeGenerated ? -1 : 0))
        .slice(0, Math.max(0, limit))
        .map(copy);
    },
    async listWorkspaceTrail(workspaceId, afterSequence, limit, notBefore) {
      kept.trim();
      const trail = trails.get(workspaceAuditTrail(workspaceId));
      if (!trail) return [];
      // Sequences have no gaps here: the one after `afterSequence` is at index afterSequence + 1 - first.
      const page: SequencedAuditEvent[] = [];
      for (const e of trail.entries.from(afterSequence + 1 - trail.first)) {
        if (page.length >= limit) break;
        if (notBefore === undefined || e.event.timeGenerated >= notBefore) page.push({ sequence: e.sequence, event: copy(e.event) });
      }
      return page;
    },
    async search(filter, limit, cursor) {
      kept.trim();
      if (limit <= 0) return { items: [] };
      // Every event of the trails asked for: the store holds at most `maxEvents` of them.
      const found = [...new Set(filter.trails)]
        .flatMap((trail) => [...(trails.get(trail)?.entries.from(0) ?? [])].map((e) => e.event))
        .filter((e) => auditSearchKeeps(filter, e) && (cursor === undefined || newestEventFirst(cursor, e) < 0))
        .sort(newestEventFirst);
      const items = found.slice(0, limit).map(copy);
      const last = items.at(-1);
      return { items, next: found.length > limit && last ? { timeGenerated: last.timeGenerated, id: last.id } : undefined };
    },
  };
}

/** A FIFO queue with O(1) amortised `shift` (an array's own shift moves every element). */
class Queue<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The items from the index-th from the front (0: the front) on. */
  *from(index: number): Generator<T> {
    for (let i = this.head + Math.max(0, index); i < this.items.length; i++) yield this.items[i]!;
  }

  shift(): T | undefined {
    const item = this.items[this.head];
    if (item === undefined) return undefined;
    this.head += 1;
    // Drop the consumed front once it is most of the array: each element is moved at most once more.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
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
