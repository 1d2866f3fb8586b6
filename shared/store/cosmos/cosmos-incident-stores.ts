import type { Container, JSONObject, OperationInput } from "@azure/cosmos";
import { alreadyExists, concurrentWrite } from "../conflict";
import type { GamebookRunStore, IncidentStateStore } from "../ports";
import type { GamebookRunRecord, IncidentStateRecord, OutboxEventRecord } from "../records";
import { Collection } from "./collection";
import { translateCosmosError } from "./cosmos-errors";

/** How long a published outbox event is kept (seconds), for diagnosis; unpublished ones never expire. */
const PUBLISHED_EVENT_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Incident state and outbox events share the `incidents` container, partitioned by workspace, so
 * that a state change and its events are one transactional batch.
 */
export function cosmosIncidents(container: Container): IncidentStateStore {
  /** One transactional batch in a workspace's partition; operation failures come back as results. */
  const batch = async (partitionKey: string, operations: OperationInput[], id?: string) => {
    try {
      return (await container.items.batch(operations, partitionKey)).result ?? [];
    } catch (error) {
      throw translateCosmosError(error, { operation: "batch", kind: "incident state", id });
    }
  };
  const states = new Collection<IncidentStateRecord>(container, "incident state", (s) => s.workspaceId);
  const outbox = new Collection<OutboxEventRecord>(container, "outbox event", (e) => e.workspaceId);
  return {
    async get(workspaceId, stateId) {
      return states.read(stateId, workspaceId);
    },
    async getMany(workspaceId, stateIds) {
      if (stateIds.length === 0) return [];
      return states.query(
        "SELECT * FROM c WHERE c.workspaceId = @ws AND c.docType = 'incidentState' AND ARRAY_CONTAINS(@ids, c.id)",
        { "@ws": workspaceId, "@ids": [...new Set(stateIds)] },
        workspaceId,
      );
    },
    async commit(state, etag, events) {
      // The state operation goes first: when its precondition fails, the batch fails before any event.
      // Each operation names the partition too: real Cosmos accepts it, and cosmosdb-server needs it.
      const partitionKey = state.workspaceId;
      const stateOperation: OperationInput =
        etag === null
          ? { operationType: "Create", partitionKey, resourceBody: state as unknown as JSONObject }
          : { operationType: "Replace", partitionKey, id: state.id, resourceBody: state as unknown as JSONObject, ifMatch: etag };
      const results = await batch(partitionKey, [stateOperation, ...eventUpserts(partitionKey, events)], state.id);
      const first = results[0];
      if (!first || first.statusCode === 412) throw concurrentWrite("incident state");
      if (first.statusCode === 409) throw alreadyExists("incident state", state.id);
      assertAllApplied(results, 1 + events.length);
      if (!first.eTag) throw new Error("Cosmos acknowledged a batch write without an etag.");
      return { value: state, etag: first.eTag };
    },
    async appendEvents(workspaceId, events) {
      if (events.length === 0) return;
      assertAllApplied(await batch(workspaceId, eventUpserts(workspaceId, events)), events.length);
    },
    async listUnpublished(limit) {
      if (limit <= 0) return [];
      // Cross-partition by nature: the sweep looks at every workspace.
      return outbox.query(
        "SELECT TOP @top * FROM c WHERE c.docType = 'outboxEvent' AND IS_NULL(c.publishedAt) ORDER BY c.occurredAt",
        { "@top": limit },
      );
    },
    async listEvents(workspaceId, limit) {
      if (limit <= 0) return [];
      return outbox.query(
        "SELECT TOP @top * FROM c WHERE c.workspaceId = @ws AND c.docType = 'outboxEvent' ORDER BY c.occurredAt",
        { "@top": limit, "@ws": workspaceId },
        workspaceId,
      );
    },
    async markPublished(workspaceId, eventId, at) {
      const found = await outbox.read(`event-${eventId}`, workspaceId);
      if (!found || found.value.publishedAt !== null) return;
      try {
        await outbox.replace({ ...found.value, publishedAt: at, ttl: PUBLISHED_EVENT_TTL_SECONDS } as OutboxEventRecord, found.etag);
      } catch {
        // Lost a race with another publisher of the same event: it is marked either way, or will be
        // republished by the sweep, which is harmless (same event id).
      }
    },
  };
}

export function cosmosGamebookRuns(runs: Collection<GamebookRunRecord>): GamebookRunStore {
  return {
    async latestForIncident(workspaceId, source, incidentId) {
      const [latest] = await runs.query(
        "SELECT TOP 1 * FROM c WHERE c.workspaceId = @ws AND c.source = @source AND c.incidentId = @incidentId ORDER BY c.creationDate DESC",
        { "@ws": workspaceId, "@source": source, "@incidentId": incidentId },
        workspaceId,
      );
      return latest;
    },
    async upsert(run) {
      await runs.upsert(run);
    },
  };
}

/** Each operation names the partition too: real Cosmos accepts it, and cosmosdb-server needs it. */
function eventUpserts(partitionKey: string, events: readonly OutboxEventRecord[]): OperationInput[] {
  // Upsert: a deterministic event id republished by a later write replaces its earlier copy.
  return events.map((e) => ({ operationType: "Upsert", partitionKey, resourceBody: e as unknown as JSONObject }));
}

function assertAllApplied(results: readonly { statusCode: number }[], expected: number): void {
  const failed = results.find((r) => r.statusCode >= 400);
  if (failed || results.length !== expected) {
    throw new Error(`Cosmos transactional batch failed with status ${failed?.statusCode ?? "unknown"}.`);
  }
}
