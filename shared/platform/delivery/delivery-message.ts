import type { EventEnvelope } from "../events/event-message";
import type { IncidentRef } from "../../model/webhooks/delivery-log";
import type { OutgoingMessage } from "../queue/queue";

/** A message on the `deliveries` queue: one attempt to deliver one event to one webhook. */
export interface DeliveryMessage {
  webhookId: string;
  eventId: string;
  eventType: string;
  /** The event's `occurredAt`, kept so a redelivery can rebuild the event with it. */
  occurredAt: string;
  /** The exact body to send, fixed at fan-out: every attempt signs and sends the same bytes. */
  body: string;
  /** 1 for the first attempt; a retry is a new scheduled message with the next number. */
  attempt: number;
  /** When attempt 1 was made; the 5-minute window counts from here. Null before it. */
  firstAttemptAt: string | null;
  incident: IncidentRef | null;
  isTest: boolean;
  /** Sent again through `redeliver`; each redelivery has its own id, so it is never taken for a duplicate. */
  redelivered: boolean;
  redeliveryId?: string;
  /** When the delivery was first held by a paused webhook: its Pending log entry's time. */
  heldAt?: string;
  /** How many times a paused webhook has been looked at for this delivery (for the hold loop's ids). */
  heldChecks?: number;
}

/** The message id of an attempt: duplicate detection drops a second copy of the same attempt. */
export function deliveryMessageId(m: Pick<DeliveryMessage, "eventId" | "webhookId" | "attempt" | "redeliveryId">): string {
  return `${m.eventId}:${m.webhookId}:${m.redeliveryId ? `r-${m.redeliveryId}:` : ""}${m.attempt}`;
}

/**
 * The one way a delivery starts: attempt 1 of an event to one webhook, with the exact body every
 * attempt will sign and send. Fan-out, test events and redeliveries all build it here.
 */
export function firstAttempt(
  webhookId: string,
  event: { envelope: EventEnvelope; incident: IncidentRef | null },
  options: { redeliveryId?: string } = {},
): DeliveryMessage {
  return {
    webhookId,
    eventId: event.envelope.id,
    eventType: event.envelope.type,
    occurredAt: event.envelope.occurredAt,
    body: JSON.stringify(event.envelope),
    attempt: 1,
    firstAttemptAt: null,
    incident: event.incident,
    isTest: event.envelope.isTest === true,
    redelivered: options.redeliveryId !== undefined,
    ...(options.redeliveryId !== undefined && { redeliveryId: options.redeliveryId }),
  };
}

/** A delivery message as sent: its id lets duplicate detection drop a second copy of the same attempt. */
export function outgoingDelivery(message: DeliveryMessage): OutgoingMessage<DeliveryMessage> {
  return { messageId: deliveryMessageId(message), body: message };
}
