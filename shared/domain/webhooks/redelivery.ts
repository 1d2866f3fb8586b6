import { commitWithin } from "../../platform/concurrency/deadline";
import { randomUUID } from "node:crypto";
import { firstAttempt, outgoingDelivery } from "../../platform/delivery/delivery-message";
import { outboxDelivery } from "../../platform/delivery/outbox-delivery";
import { ApiError, isApiError } from "../../platform/errors/api-error";
import type { EventEnvelope } from "../../platform/events/event-message";
import type { Uses } from "../operation-context";
import { isFinalFailure, type DeliveryLogRecord, type DeliveryOutcome } from "../../model/webhooks/delivery-log";
import type { WebhookRecord } from "../../model/webhooks/webhook";
import { webhookAudit } from "./webhook-changes";
import { deliveryLogNotBefore } from "./delivery-log-access";
import { incidentNow, REBUILDABLE_EVENT_TYPE, rebuiltCreatedEvent } from "./event-rebuild";

/*
 * Redelivery (docs/contract.md §6.6.7): a failed `incident.created.v1` rebuilt from the incident as it is now,
 * with its event id and occurredAt, sent to that webhook alone; one entry at a time, or every failed
 * delivery since a time (bounded).
 */

type RedeliveryContext = Uses<"actor" | "config" | "events" | "now" | "sources" | "stores">;

/** At most this many events are sent again by one bulk redelivery; the answer says where to go on. */
export const BULK_REDELIVERY_LIMIT = 100;
/** At most this many entries are read by one bulk redelivery, oldest first. */
export const BULK_REDELIVERY_SCAN = 10_000;

/**
 * Sends one failed entry's event again and audits it (`WebhookDelivery`). Not `Failed`: 409; another
 * event type: 422 `VALIDATION_ERROR`; the incident gone from its source: 409.
 */
export async function redeliver(ctx: RedeliveryContext, webhook: WebhookRecord, entry: DeliveryLogRecord): Promise<{ eventId: string }> {
  if (entry.status !== "Failed") {
    throw new ApiError("CONFLICT", `Only a Failed delivery can be redelivered; this one is ${entry.status}.`, { target: "logId" });
  }
  if (!isRebuildable(entry)) {
    throw new ApiError("VALIDATION_ERROR", `Only ${REBUILDABLE_EVENT_TYPE} deliveries can be redelivered, not ${entry.eventType}.`, {
      status: 422,
      target: "logId",
      errors: { "": [`${entry.eventType} cannot be redelivered.`] },
    });
  }
  const event = { envelope: await rebuilt(ctx, entry), incident: entry.incident! };
  const audit = webhookAudit(ctx, webhook, "Create", { redeliverOf: entry.id, eventId: entry.eventId }, "WebhookDelivery");
  // The delivery and its audit event are one commit, as a test send's are: neither goes without the other.
  const delivery = outboxDelivery(audit.scope, firstAttempt(webhook.id, event, { redeliveryId: randomUUID() }), audit.createdAt);
  await ctx.events.outbox.record([delivery, audit], ctx.deadline);
  return { eventId: entry.eventId };
}

export interface BulkRedelivery {
  /** Events sent again, oldest failure first. */
  eventIds: string[];
  /** Final failures that cannot be rebuilt: other event types, tests. */
  notRedeliverable: number;
  /** Failures whose incident no longer exists at its source. */
  incidentGone: number;
  /** Where to go on when the bounds stopped this call (more failures, or more entries to read); null when done. */
  nextSince: string | null;
}

/**
 * Sends again every event whose delivery to the webhook finally failed at or after `since`: an event
 * whose latest attempt in the range is a final failure (a later success, a pending or a scheduled
 * retry leaves it alone), `incident.created.v1` only. Oldest first, at most `BULK_REDELIVERY_LIMIT`
 * events and `BULK_REDELIVERY_SCAN` entries read; one audit event names the events sent.
 */
export async function redeliverFailedSince(ctx: RedeliveryContext, webhook: WebhookRecord, since: string): Promise<BulkRedelivery> {
  const now = ctx.now();
  const range = { from: since, to: new Date(now.getTime() + 1).toISOString(), notBefore: deliveryLogNotBefore(ctx) };
  const scan = await ctx.stores.deliveryLogs.outcomes(webhook.id, range, BULK_REDELIVERY_SCAN, { oldestFirst: true });
  const latest = new Map<string, DeliveryOutcome>();
  for (const entry of scan.items) latest.set(entry.eventId, entry);
  const failed = [...latest.values()].filter((e) => isFinalFailure(e)).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  const result: BulkRedelivery = { eventIds: [], notRedeliverable: 0, incidentGone: 0, nextSince: null };
  const deliveries: { envelope: EventEnvelope; incident: NonNullable<DeliveryOutcome["incident"]> }[] = [];
  for (const entry of failed) {
    if (deliveries.length === BULK_REDELIVERY_LIMIT) {
      result.nextSince = entry.createdAt;
      break;
    }
    if (!isRebuildable(entry)) {
      result.notRedeliverable++;
      continue;
    }
    try {
      deliveries.push({ envelope: await rebuilt(ctx, entry), incident: entry.incident! });
    } catch (error) {
      if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
      result.incidentGone++;
    }
  }
  if (result.nextSince === null && scan.truncated) result.nextSince = scan.items.at(-1)!.createdAt;
  if (deliveries.length === 0) return result;
  await send(ctx, webhook, deliveries);
  result.eventIds = deliveries.map((d) => d.envelope.id);
  await ctx.events.outbox.record([webhookAudit(ctx, webhook, "Create", { redeliverFailedSince: since, eventIds: result.eventIds }, "WebhookDelivery")], ctx.deadline);
  return result;
}

function isRebuildable(entry: Pick<DeliveryOutcome, "eventType" | "incident" | "isTest">): boolean {
  return entry.eventType === REBUILDABLE_EVENT_TYPE && entry.incident !== null && !entry.isTest;
}

/** Each a redelivery of its own id, so that none is taken for a duplicate of an earlier attempt. */
async function send(ctx: RedeliveryContext, webhook: WebhookRecord, events: { envelope: EventEnvelope; incident: NonNullable<DeliveryOutcome["incident"]> }[]): Promise<void> {
  // Sending is the request's change: started only while its deadline allows (`Deadline.commit`).
  await commitWithin(ctx.deadline, () => ctx.events.deliveries.send(events.map((event) => outgoingDelivery(firstAttempt(webhook.id, event, { redeliveryId: randomUUID() })))));
}

/** `incident.created.v1` rebuilt from the current incident, keeping the event id and occurredAt; 409 when the incident is gone. */
async function rebuilt(ctx: RedeliveryContext, entry: Pick<DeliveryLogRecord, "eventId" | "eventOccurredAt" | "incident">): Promise<EventEnvelope> {
  const loaded = await incidentNow(ctx, entry.incident!);
  if (!loaded) throw new ApiError("CONFLICT", "The incident no longer exists at its source, so the event cannot be rebuilt.", { target: "logId" });
  return rebuiltCreatedEvent(entry, loaded);
}
