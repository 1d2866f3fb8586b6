import type { Logger } from "../logger";
import type { QueueSender } from "../queue/queue";
import { parseSource } from "../sources/source";
import type { IncidentStateStore } from "../store/ports";
import type { IncidentRef, OutboxEventRecord } from "../store/records";
import type { EventMessage } from "./event-message";

/**
 * Moves committed outbox events onto the `events` queue. `publish` runs right after a commit; the
 * sweep republishes whatever a crash between commit and publish left behind. The event id is the
 * message id, so a republish is dropped by duplicate detection, and receivers deduplicate anyway.
 */
export class OutboxRelay {
  constructor(
    private readonly store: IncidentStateStore,
    private readonly events: QueueSender<EventMessage>,
    private readonly now: () => Date,
    private readonly logger: Logger,
  ) {}

  /**
   * Never throws: an event that fails to publish stays in the outbox for the sweep. When a batch fails
   * the events go one at a time, so one event the queue refuses (too large, say) holds up only itself.
   */
  async publish(records: readonly OutboxEventRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    try {
      await this.events.send(records.map((r) => ({ messageId: r.eventId, body: toMessage(r) })));
    } catch (error) {
      if (records.length === 1) {
        this.logger.warn("outbox publish failed; the sweep will retry", { eventId: records[0]!.eventId, error: String(error) });
        return 0;
      }
      const each = await Promise.all(records.map(async (r) => ((await this.publish([r])) === 1 ? r : undefined)));
      return each.filter((r) => r !== undefined).length;
    }
    const at = this.now().toISOString();
    for (const r of records) {
      await this.store.markPublished(r.workspaceId, r.eventId, at).catch((error: unknown) => {
        // Published but not marked: the sweep sends it again, which duplicate detection absorbs.
        this.logger.warn("outbox mark failed", { eventId: r.eventId, error: String(error) });
      });
    }
    return records.length;
  }

  /** Publishes unpublished events, oldest first; returns how many went out. */
  async sweep(limit = 500): Promise<number> {
    const pending = await this.store.listUnpublished(limit);
    const published = await this.publish(pending);
    if (published > 0) this.logger.info("outbox sweep published events", { count: published });
    return published;
  }
}

function toMessage(record: OutboxEventRecord): EventMessage {
  return { envelope: record.envelope, accountId: record.accountId, incident: incidentOf(record) };
}

function incidentOf(record: OutboxEventRecord): IncidentRef | null {
  const data = record.envelope.data;
  const source = typeof data.source === "string" ? parseSource(data.source) : undefined;
  if (!source || typeof data.incidentId !== "string" || typeof data.workspaceId !== "string") return null;
  return { workspaceId: data.workspaceId, source, incidentId: data.incidentId };
}
