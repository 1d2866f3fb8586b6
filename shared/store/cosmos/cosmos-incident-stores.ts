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
      const operations: OperationInput[] = [
        etag === null
          ? { operationType: "Create", partitionKey, resourceBody: state as unknown as JSONObject }
          : { operationType: "Replace", partitionKey, id: state.id, resourceBody: state as unknown as JSONObject, ifMatch: etag },
        // Upsert: a deterministic event id republished by a later commit replaces its earlier copy.
        ...events.map((e): OperationInput => ({ operationType: "Upsert", partitionKey, resourceBody: e as unknown as JSONObject })),
      ];
      let results;
      try {
        results = (await container.items.batch(operations, state.workspaceId)).result ?? [];
      } catch (error) {
        throw translateCosmosError(error, { operation: "batch", kind: "incident state", id: state.id });
      }
      const first = results[0];
      if (!first || first.statusCode === 412) throw concurrentWrite("incident state");
      if (first.statusCode === 409) throw alreadyExists("incident state", state.id);
      const failed = results.find((r) => r.statusCode >= 400);
      if (failed) throw new Error(`Cosmos transactional batch failed with status ${failed.statusCode}.`);
      if (!first.eTag) throw new Error("Cosmos acknowledged a batch write without an etag.");
      return { value: state, etag: first.eTag };
    },
    async appendEvents(workspaceId, events) {
      if (events.length === 0) return;
      const operations: OperationInput[] = events.map((e) => ({ operationType: "Upsert", partitionKey: workspaceId, resourceBody: e as unknown as JSONObject }));
      let results;
      try {
        results = (await container.items.batch(operations, workspaceId)).result ?? [];
      } catch (error) {
        throw translateCosmosError(error, { operation: "batch", kind: "outbox event" });
      }
      const failed = results.find((r) => r.statusCode >= 400);
      if (failed || results.length !== events.length) throw new Error(`Cosmos transactional batch failed with status ${failed?.statusCode ?? "unknown"}.`);
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
