import type { Container } from "@azure/cosmos";
import { auditPartitionOf, auditTrailOf, workspaceAuditTrail } from "../audit-trail";
import { isLostRace } from "../conflict";
import type { AuditStore } from "../ports";
import { DEFAULT_AUDIT_RETENTION_DAYS, type AuditEventRecord } from "../../../domain/audit/audit-event";
import { mapLimited } from "../../concurrency/map-limited";
import { Collection } from "./collection";
import { AuditSequencer } from "./audit-sequencer";

/**
 * An event as stored: `trail` and `sequence` (null until its trail's sequencer gives it one), and its
 * `ttl`. Events recorded before appends were plain creates sit in their trail's partition (pk
 * `<trail>`) with their sequence and neither `trail` nor `ttl`.
 */
type StoredAuditEvent = AuditEventRecord & { docType: "auditEvent"; trail?: string; sequence: number | null; ttl?: number };

export interface CosmosAuditOptions {
  /** Days an event is kept from its append (its `ttl`); default `DEFAULT_AUDIT_RETENTION_DAYS`. */
  retentionDays?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** How long a trail's visible mark stands before readers go up to it (`settledMark`); default 1 s. */
  settleMs?: number;
}

/** Allocations the relay's drain makes at most, so that a request never waits on a busy trail for long. */
const RELAY_ROUNDS = 10;
/** Allocations the sweep makes at most per trail, each minute. */
const SWEEP_ROUNDS = 100;
/** Trails the sweep looks at in one run. */
const SWEEP_TRAILS = 1000;
/** Trails sequenced at once. */
const TRAILS_AT_ONCE = 8;

/**
 * The audit trail on Cosmos. An append is one create, in a partition of the event's trail and UTC
 * day (`auditPartitionOf`), touching nothing any other append touches: appends never contend, and
 * no partition grows without bound. An event appended twice hits 409 and is left as it was. Its
 * sequence, the export's order, is given afterwards by the trail's sequencer (`AuditSequencer`),
 * which `sequence` and `sequenceWaiting` run.
 */
export function cosmosAudit(container: Container, options: CosmosAuditOptions = {}): AuditStore {
  const ttl = (options.retentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400;
  const events = new Collection<StoredAuditEvent>(container, "audit event", auditPartitionOf);
  const sequencer = new AuditSequencer(container, { now: options.now ?? (() => Date.now()), settleMs: options.settleMs ?? 1_000, takeoverMs: 10_000, batch: 100 });
  // Every trail is tried, whatever another's fails with; then the first failure is thrown.
  const drainAll = async (trails: readonly string[], rounds: number) => {
    const failures: unknown[] = [];
    await mapLimited([...new Set(trails)], TRAILS_AT_ONCE, (trail) => sequencer.drain(trail, rounds).catch((error: unknown) => void failures.push(error)));
    if (failures.length > 0) throw failures[0];
  };
  return {
    async append(event) {
      try {
        await events.create({ ...event, docType: "auditEvent", trail: auditTrailOf(event), sequence: null, ttl });
      } catch (error) {
        // Appended before (the relay carries a record out twice after a crash): it stays as it was.
        if (!isLostRace(error)) throw error;
      }
    },
    sequence: (trails) => drainAll(trails, RELAY_ROUNDS),
    async sequenceWaiting() {
      const trails = await sequencer.waitingTrails(SWEEP_TRAILS);
      await drainAll(trails, SWEEP_ROUNDS);
      return trails.length;
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
      const upTo = await sequencer.readableUpTo(trail);
      if (upTo <= afterSequence) return [];
      const since = notBefore === undefined ? "" : " AND c.timeGenerated >= @notBefore";
      // Across the trail's day partitions, and its own partition, where events recorded before
      // appends were plain creates keep their sequences (pk `<trail>`, no `trail` field).
      const found = await events.query(
        `SELECT TOP @top * FROM c WHERE (c.trail = @trail OR c.pk = @trail) AND c.docType = 'auditEvent' AND c.sequence > @after AND c.sequence <= @upTo${since} ORDER BY c.sequence`,
        { "@top": limit, "@trail": trail, "@after": afterSequence, "@upTo": upTo, ...(notBefore === undefined ? {} : { "@notBefore": notBefore }) },
      );
      return found.map((e) => ({ sequence: e.sequence!, event: plain(e) }));
    },
  };
}

function plain(doc: StoredAuditEvent): AuditEventRecord {
  const { docType: _docType, trail: _trail, sequence: _sequence, ttl: _ttl, ...event } = doc;
  return event;
}
