import { commitWithin, type Deadline } from "../concurrency/deadline";
import type { Logger } from "../logger";
import type { QueueSender } from "../queue/queue";
import { auditTrailOf } from "../store/audit-trail";
import type { AuditStore, OutboxStore } from "../store/ports";
import type { EventMessage } from "./event-message";
import type { OutboxAuditRecord, OutboxEventRecord, OutboxMessageRecord, OutboxRecord, OutboxWorkMessages } from "./outbox-record";

export interface OutboxRelayOptions {
  outbox: OutboxStore;
  events: QueueSender<EventMessage>;
  /** The work queues that outbox message records go to, by name. */
  workQueues: { [Q in keyof OutboxWorkMessages]: QueueSender<OutboxWorkMessages[Q]> };
  audit: AuditStore;
  now: () => Date;
  logger: Logger;
}

/** One sweep: the records it found waiting (batch after batch) and how many of them it carried out. */
export interface SweepCounts {
  waiting: number;
  carriedOut: number;
}

/**
 * Carries out committed outbox records: events go to the `events` queue, audit events to the trail,
 * work messages (a dispatched gamebook run) to their queue.
 * `publish` runs right after a commit (the unit of work, `store/commit.ts`, calls it); the sweep
 * carries out whatever a crash between commit and publish left behind. Both are idempotent: the
 * event id is the message id (duplicate detection, and receivers deduplicate anyway), and the trail
 * keeps one copy of an audit id. An audit record is carried out once its event is stored; the
 * relay then asks for the trails it appended to be sequenced, and does not wait: the export shows an
 * event once its trail is sequenced, which is the trail's business, not the request's (a failure there
 * leaves the record carried out and the event waiting, which the next run or the sweep sequences).
 *
 * @example
 * await commit({ read, change: (w) => [auditOf(w)], write, outbox: services.events.outbox });
 * await services.events.outbox.record([createdEvent(incident, ...)], ctx.deadline); // records with no write beside them
 */
/** The longest one sweep goes on taking batches: well within the minute between the timer's runs. */
export const SWEEP_BUDGET_MS = 40_000;

export class OutboxRelay {
  constructor(private readonly options: OutboxRelayOptions) {}

  /**
   * Records with no aggregate write beside them: appended to the outbox, then carried out. The append
   * is a write of the request, if any, that records them (through its `deadline`: after a change at a
   * vendor it always follows; alone, it starts only while the deadline allows); carrying them out is
   * the service's own follow-up, which no request's deadline cuts short.
   */
  async record(records: readonly OutboxRecord[], deadline: Deadline | undefined): Promise<void> {
    if (records.length === 0) return;
    await commitWithin(deadline, () => this.options.outbox.append(records));
    await this.publish(records);
  }

  /**
   * Never throws: a record that fails stays in the outbox for the sweep. When a batch of events
   * fails they go one at a time, so one event the queue refuses (too large, say) holds up only itself.
   */
  async publish(records: readonly OutboxRecord[]): Promise<number> {
    const events = records.filter((r): r is OutboxEventRecord => r.kind === "event");
    const audits = records.filter((r): r is OutboxAuditRecord => r.kind === "audit");
    const messages = records.filter((r): r is OutboxMessageRecord => r.kind === "message");
    const sent = await this.sendEvents(events);
    const appended = await this.appendAudits(audits);
    const done = [...sent, ...appended, ...(await this.sendMessages(messages))];
    const at = this.options.now().toISOString();
    for (const r of done) {
      await this.options.outbox.markPublished(r, at).catch((error: unknown) => {
        // Carried out but not marked: the sweep does it again, which is harmless.
        this.options.logger.warn("outbox mark failed", { recordId: r.id, error: String(error) });
      });
    }
    if (appended.length > 0) this.sequence(appended.map((r) => auditTrailOf(r.audit)));
    return done.length;
  }

  /** Carries out pending records, oldest first; returns how many were carried out. */
  async sweep(limit = 500): Promise<number> {
    return (await this.sweepAndCount(limit)).carriedOut;
  }

  /**
   * `sweep`, also saying how many records it found waiting over the run: the outbox's backlog. Takes
   * `limit` records at a time and goes on while it finds a full batch and carries records out, for at
   * most `budgetMs`, so that a backlog (after an outage of the queue, say) drains at the rate the
   * relay can carry it rather than `limit` a minute.
   */
  async sweepAndCount(limit = 500, budgetMs = SWEEP_BUDGET_MS): Promise<SweepCounts> {
    const started = performance.now();
    let waiting = 0;
    let carriedOut = 0;
    for (;;) {
      const pending = await this.options.outbox.listUnpublished(limit);
      const published = await this.publish(pending);
      waiting += pending.length;
      carriedOut += published;
      if (pending.length < limit || published === 0 || performance.now() - started >= budgetMs) break;
    }
    if (carriedOut > 0) this.options.logger.info("outbox sweep carried out records", { count: carriedOut });
    // Audit events stored but not sequenced (a crash, or a relay that gave up on a busy trail).
    const trails = await this.options.audit.sequenceWaiting().catch((error: unknown) => {
      this.options.logger.warn("audit sequencing failed; the next sweep will retry", { error: String(error) });
      return 0;
    });
    if (trails > 0) this.options.logger.info("outbox sweep sequenced audit trails", { count: trails });
    return { waiting, carriedOut };
  }

  /** Started, not waited for; never throws: events left unsequenced wait for the next run of their trail, or the sweep. */
  private sequence(trails: readonly string[]): void {
    void this.options.audit.sequence(trails).catch((error: unknown) => {
      this.options.logger.warn("audit sequencing failed; the sweep will retry", { trails: [...new Set(trails)], error: String(error) });
    });
  }

  private async sendEvents(records: readonly OutboxEventRecord[]): Promise<OutboxEventRecord[]> {
    if (records.length === 0) return [];
    try {
      await this.options.events.send(records.map((r) => ({ messageId: r.message.envelope.id, body: r.message })));
      return [...records];
    } catch (error) {
      if (records.length === 1) {
        this.options.logger.warn("outbox publish failed; the sweep will retry", { eventId: records[0]!.message.envelope.id, error: String(error) });
        return [];
      }
      return (await Promise.all(records.map((r) => this.sendEvents([r])))).flat();
    }
  }

  /** One send per message: they are few (one per dispatched run), and one refused holds up only itself. */
  private async sendMessages(records: readonly OutboxMessageRecord[]): Promise<OutboxMessageRecord[]> {
    const results = await Promise.all(
      records.map(async (r) => {
        try {
          if (r.queue === "deliveries") await this.options.workQueues.deliveries.send([r.message]);
          else await this.options.workQueues["gamebook-runs"].send([r.message]);
          return r;
        } catch (error) {
          this.options.logger.warn("outbox message send failed; the sweep will retry", { queue: r.queue, messageId: r.message.messageId, error: String(error) });
          return undefined;
        }
      }),
    );
    return results.filter((r): r is OutboxMessageRecord => r !== undefined);
  }

  private async appendAudits(records: readonly OutboxAuditRecord[]): Promise<OutboxAuditRecord[]> {
    const results = await Promise.all(
      records.map(async (r) => {
        try {
          await this.options.audit.append(r.audit);
          return r;
        } catch (error) {
          this.options.logger.warn("audit append failed; the sweep will retry", { auditId: r.audit.id, error: String(error) });
          return undefined;
        }
      }),
    );
    return results.filter((r): r is OutboxAuditRecord => r !== undefined);
  }
}
