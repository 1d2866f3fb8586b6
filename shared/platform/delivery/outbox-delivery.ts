import type { OutboxMessageRecordFor, OutboxScope } from "../events/outbox-record";
import { queueNames } from "../queue/queue-names";
import { outgoingDelivery, type DeliveryMessage } from "./delivery-message";

/**
 * A delivery committed through the outbox with the write that calls for it (a test send with its
 * audit event), in that write's scope: the relay sends it after the commit, so neither goes alone.
 */
export function outboxDelivery(scope: OutboxScope, message: DeliveryMessage, at: string): OutboxMessageRecordFor<"deliveries"> {
  const outgoing = outgoingDelivery(message);
  return {
    id: `outbox-delivery-${outgoing.messageId.replaceAll(":", "-")}`,
    docType: "outbox",
    kind: "message",
    scope,
    createdAt: at,
    publishedAt: null,
    queue: queueNames.deliveries,
    message: outgoing,
  };
}
