import type { EventMessage } from "./event-message";
import type { IncidentRef } from "../../model/webhooks/delivery-log";
import type { OutboxEventRecord, OutboxScope } from "./outbox-record";
import type { EventData } from "../../model/events/event-catalogue";
import { deterministicEventId, freshEventId } from "./event-ids";
import { subjectIdEventTypes, type EventType } from "../../model/events/event-types";

export interface EventRecordInput {
  /** The scope of the write it commits with (the workspace's, for incident events). */
  scope: OutboxScope;
  /** The account the event belongs to: its webhooks, and its managing provider's, may get it. */
  accountId: string;
  occurredAt: string;
  /**
   * What the event is about, for a deterministic id (docs/contract.md §6.6.4): the same subject gives the same
   * id, so a republish is the same event. Required for the types whose ids come from their subject.
   */
  subject?: string;
  /** docs/contract.md §6.6.4: a manual trigger (§6.1) fires `incident.created.v1` with a fresh id, unlike an ingestion. */
  freshId?: true;
  /** The incident it is about, when it is about one (auto-disable counts incidents). */
  incident?: IncidentRef | null;
  /** Fan-out instructions beside the subscriptions (manual trigger, agent cards). */
  routing?: Pick<EventMessage, "bypassSubscription" | "onlyWebhookIds" | "boundWebhookIds">;
}

/**
 * The one way an event enters the service: an outbox record of `type` whose `data` the compiler
 * checks against that type's schema in the event catalogue. Commit it with the write it reports
 * (`IncidentStateStore.commit` and the other stores' writes), or on its own with
 * `OutboxRelay.record`; the relay publishes it to the `events` queue after the commit.
 *
 * @example
 * const record = eventRecord("incident.comment.added.v1", { scope, accountId, occurredAt, subject }, data);
 */
export function eventRecord<T extends EventType>(type: T, input: EventRecordInput, data: EventData<T>): OutboxEventRecord {
  if (subjectIdEventTypes.includes(type) && input.subject === undefined && !input.freshId) {
    throw new Error(`${type} takes its id from its subject; none was given.`);
  }
  const id = input.subject !== undefined && !input.freshId ? deterministicEventId(type, input.subject) : freshEventId();
  const message: EventMessage = {
    envelope: { id, type, occurredAt: input.occurredAt, data: data as Record<string, unknown> },
    accountId: input.accountId,
    incident: input.incident ?? null,
    ...input.routing,
  };
  return { id: `outbox-${id}`, docType: "outbox", kind: "event", scope: input.scope, createdAt: input.occurredAt, publishedAt: null, message };
}
