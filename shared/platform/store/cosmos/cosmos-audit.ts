import type { Container, JSONObject, OperationInput } from "@azure/cosmos";
import { concurrentWrite } from "../conflict";
import { auditTrailOf, workspaceAuditTrail } from "../audit-trail";
import type { AuditStore } from "../ports";
import type { AuditEventRecord } from "../../../domain/audit/audit-event";
import { commit } from "../commit";
import { assertAllApplied, Collection } from "./collection";
import { translateCosmosError } from "./cosmos-errors";

type StoredAuditEvent = AuditEventRecord & { docType: "auditEvent"; sequence: number };
type TrailCounter = { id: string; docType: "auditSequence"; trail: string; sequence: number };

/** The one counter document of a trail's partition. */
const COUNTER_ID = "audit-sequence";
/** Appends racing for one trail's counter; each loser reads again after a short random pause. */
const MAX_APPEND_ATTEMPTS = 40;

/**
 * The audit trail on Cosmos, one partition per trail (`auditTrailOf`). An append is one
 * transactional batch: the trail's counter moves from n to n + 1 (conditional on its etag) and the
 * event is created with sequence n + 1. Event n + 1 can therefore commit only after event n has, so a
 * reader that has seen sequence k has seen every smaller one, and an event appended again (same id)
 * fails the batch and keeps its first sequence.
 */
export function cosmosAudit(container: Container): AuditStore {
  const events = new Collection<StoredAuditEvent>(container, "audit event", auditTrailOf);
  const counters = new Collection<TrailCounter>(container, "audit trail counter", (c) => c.trail);
  return {
    async append(event) {
      const trail = auditTrailOf(event);
      if (await events.read(event.id, trail)) return;
      const initial: TrailCounter = { id: COUNTER_ID, docType: "auditSequence", trail, sequence: 0 };
      await commit({
        read: async () => (await counters.read(COUNTER_ID, trail)) ?? { value: initial, etag: null },
        change(counter) {
          counter.sequence += 1;
        },
        async write(next, etag) {
          const counterOperation: OperationInput = etag
            ? { operationType: "Replace", partitionKey: trail, id: COUNTER_ID, resourceBody: stored(next, trail), ifMatch: etag }
            : { operationType: "Create", partitionKey: trail, resourceBody: stored(next, trail) };
          const eventOperation: OperationInput = {
            operationType: "Create",
            partitionKey: trail,
            resourceBody: stored({ ...event, docType: "auditEvent", sequence: next.sequence }, trail),
          };
          let results;
          try {
            results = (await events.container.items.batch([counterOperation, eventOperation], trail)).result ?? [];
          } catch (error) {
            throw translateCosmosError(error, { operation: "batch", kind: "audit event", id: event.id });
          }
          const [counterResult, eventResult] = results;
          // Another append took the sequence first: read the counter again.
          if (counterResult?.statusCode === 412 || counterResult?.statusCode === 409) throw concurrentWrite("audit trail");
          // Appended before (the relay carries a record out twice after a crash): it keeps its sequence.
          if (eventResult?.statusCode === 409) return;
          assertAllApplied(results, 2);
        },
        maxAttempts: MAX_APPEND_ATTEMPTS,
        pauseMs: () => 2 + Math.floor(Math.random() * 20),
      });
    },
    async listRecent(accountId, limit) {
      if (limit <= 0) return [];
      const found = await events.query(
        "SELECT TOP @top * FROM c WHERE c.docType = 'auditEvent' AND c.accountId = @accountId ORDER BY c.timeGenerated DESC",
        { "@top": limit, "@accountId": accountId },
      );
      return found.map(plain);
    },
    async listWorkspaceTrail(workspaceId, afterSequence, limit, notBefore) {
      if (limit <= 0) return [];
      const trail = workspaceAuditTrail(workspaceId);
      const since = notBefore === undefined ? "" : " AND c.timeGenerated >= @notBefore";
      const found = await events.query(
        `SELECT TOP @top * FROM c WHERE c.pk = @trail AND c.docType = 'auditEvent' AND c.sequence > @after${since} ORDER BY c.sequence`,
        { "@top": limit, "@trail": trail, "@after": afterSequence, ...(notBefore === undefined ? {} : { "@notBefore": notBefore }) },
        trail,
      );
      return found.map((e) => ({ sequence: e.sequence, event: plain(e) }));
    },
  };
}

function stored(doc: object, trail: string): JSONObject {
  return { ...(doc as JSONObject), pk: trail };
}

function plain(doc: StoredAuditEvent): AuditEventRecord {
  const { docType: _docType, sequence: _sequence, ...event } = doc;
  return event;
}

