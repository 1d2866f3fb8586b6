import type { Container } from "@azure/cosmos";
import { actorTextKeeps, auditPartitionOf, auditTrailOf, workspaceAuditTrail } from "../audit-trail";
import { isLostRace } from "../conflict";
import type { AuditSearchCursor, AuditStore } from "../ports";
import { DEFAULT_AUDIT_RETENTION_DAYS, type AuditEventRecord } from "../../../model/audit/audit-event";
import { mapLimited } from "../../concurrency/map-limited";
import { Collection, type Parameters } from "./collection";
import { AuditSequencer } from "./audit-sequencer";
import { SerialRuns } from "../../concurrency/serial-runs";

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
  /** Events a search by the actor's text reads at most in one call; default `MAX_AUDIT_SEARCH_READ`. */
  searchReadLimit?: number;
}

/**
 * Allocations (of up to 100 events each) one run of a trail's sequencing makes at most before it lets
 * the next run, if one was asked for meanwhile, query afresh; what is still waiting with none asked
 * for goes to the sweep.
 */
const ROUNDS_PER_RUN = 100;
/**
 * Events an audit search reads at most in one call when it filters by the actor's text, which no
 * index serves (a substring): it reads the events the indexed filters keep, newest first, in batches,
 * and keeps those whose actor matches, until the page is full or this many were read.
 */
export const MAX_AUDIT_SEARCH_READ = 1_000;
/** Events a search by the actor's text reads in one query. */
const SEARCH_BATCH = 250;
/** Trails the sweep looks at in one run. */
const SWEEP_TRAILS = 1000;
/** Trails the sweep sequences at once. */
const TRAILS_AT_ONCE = 8;

/**
 * The audit trail on Cosmos. An append is one create, in a partition of the event's trail and UTC
 * day (`auditPartitionOf`), touching nothing any other append touches: appends never contend, and
 * no partition grows without bound. An event appended twice hits 409 and is left as it was. Its
 * sequence, the export's order, is given afterwards by the trail's sequencer (`AuditSequencer`).
 * `sequence` and `sequenceWaiting` ask for it; in one process a trail's sequencing runs one at a
 * time, however many writers ask (`SerialRuns`): each run queries the trail's waiting events once and
 * numbers up to 100 of them per allocation, so its cost follows the trail's write rate in batches,
 * not the number of writers, and no two runs of one process race each other on the trail's document.
 */
export function cosmosAudit(container: Container, options: CosmosAuditOptions = {}): AuditStore {
  const ttl = (options.retentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400;
  const events = new Collection<StoredAuditEvent>(container, "audit event", auditPartitionOf);
  const sequencer = new AuditSequencer(container, { now: options.now ?? (() => Date.now()), settleMs: options.settleMs ?? 1_000, takeoverMs: 10_000, batch: 100 });
  const runs = new SerialRuns((trail: string) => sequencer.drain(trail, ROUNDS_PER_RUN));
  const searchReadLimit = options.searchReadLimit ?? MAX_AUDIT_SEARCH_READ;
  // Every trail is tried, whatever another's fails with; then the first failure is thrown.
  const sequenceAll = async (trails: readonly string[]) => {
    const failures: unknown[] = [];
    await mapLimited([...new Set(trails)], TRAILS_AT_ONCE, (trail) => runs.request(trail).catch((error: unknown) => void failures.push(error)));
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
    sequence: sequenceAll,
    async sequenceWaiting() {
      const trails = await sequencer.waitingTrails(SWEEP_TRAILS);
      await sequenceAll(trails);
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
    async search(filter, limit, cursor) {
      const trails = [...new Set(filter.trails)];
      if (limit <= 0 || trails.length === 0) return { items: [] };
      // Across partitions (a trail's days, and the trail's own partition for events recorded before
      // days split it). Every condition is an equality or a range on an indexed path, and the order is
      // the composite index (timeGenerated, id) read backwards: a query loads the events it answers.
      const conditions = ["c.docType = 'auditEvent'", "(ARRAY_CONTAINS(@trails, c.trail) OR ARRAY_CONTAINS(@trails, c.pk))"];
      const parameters: Parameters = { "@trails": trails };
      const indexed: [condition: string, name: string, value: string | undefined][] = [
        ["c.timeGenerated >= @from", "@from", filter.from],
        ["c.timeGenerated < @to", "@to", filter.to],
        ["c.actorId = @actorId", "@actorId", filter.actorId],
        ["c.activityType = @activityType", "@activityType", filter.activityType],
        ["c.activityAction = @activityAction", "@activityAction", filter.activityAction],
      ];
      for (const [condition, name, value] of indexed) {
        if (value === undefined) continue;
        conditions.push(condition);
        parameters[name] = value;
      }
      const text = filter.actorText;
      const items: AuditEventRecord[] = [];
      let position = cursor;
      let read = 0;
      let exhausted = false;
      // Without the text, one query of the page and one event more (whether there is more); with it,
      // batches until the page is full or `searchReadLimit` events were read.
      while (items.length <= limit && !exhausted && (text === undefined ? read === 0 : read < searchReadLimit)) {
        const top = text === undefined ? limit + 1 : Math.min(SEARCH_BATCH, searchReadLimit - read);
        const after = position === undefined ? [] : ["(c.timeGenerated < @cAt OR (c.timeGenerated = @cAt AND c.id < @cId))"];
        const found = await events.query(
          `SELECT TOP @top * FROM c WHERE ${[...conditions, ...after].join(" AND ")} ORDER BY c.timeGenerated DESC, c.id DESC`,
          { ...parameters, "@top": top, ...(position === undefined ? {} : { "@cAt": position.timeGenerated, "@cId": position.id }) },
        );
        read += found.length;
        exhausted = found.length < top;
        for (const doc of found) {
          position = { timeGenerated: doc.timeGenerated, id: doc.id };
          if (actorTextKeeps(text, doc)) items.push(plain(doc));
          if (items.length > limit) break;
        }
      }
      const page = items.slice(0, limit);
      const last = page.at(-1);
      const next: AuditSearchCursor | undefined =
        items.length > limit && last ? { timeGenerated: last.timeGenerated, id: last.id } : !exhausted && items.length <= limit ? position : undefined;
      return { items: page, next };
    },
  };
}

function plain(doc: StoredAuditEvent): AuditEventRecord {
  const { docType: _docType, trail: _trail, sequence: _sequence, ttl: _ttl, ...event } = doc;
  return event;
}
