import { firstAttempt, outgoingDelivery, type DeliveryMessage } from "../delivery/delivery-message";
import type { Logger } from "../logger";
import type { MessageHandler, QueueSender } from "../queue/queue";
import { deliveryLogEntry } from "../delivery/delivery-worker";
import type { AccountStore, DeliveryLogStore, WebhookStore } from "../store/ports";
import type { WebhookRecord } from "../../model/webhooks/webhook";
import type { EventMessage } from "./event-message";

export interface FanOutDeps {
  accounts: AccountStore;
  webhooks: WebhookStore;
  deliveries: QueueSender<DeliveryMessage>;
  logs: DeliveryLogStore;
  now: () => Date;
  logTtlSeconds: number;
  logger: Logger;
}

/**
 * Routing (docs/contract.md §6.2): a webhook gets an event when it subscribes to the type, is not disabled,
 * and its account is the event's account or the provider managing it. A webhook with
 * `monitoredAccountIds` gets events of the accounts listed only: a provider's webhook narrowed to
 * some customers does not get the provider's own events unless the provider lists itself. Paused
 * webhooks get the message too: the worker holds it as Pending until resume.
 */
export function routeEvent(event: EventMessage, providerId: string | null, webhook: WebhookRecord): boolean {
  if (webhook.status === "Disabled") return false;
  if (event.onlyWebhookIds && !event.onlyWebhookIds.includes(webhook.id)) return false;
  if (event.boundWebhookIds && !event.boundWebhookIds.includes(webhook.id)) return false;
  if (!event.bypassSubscription && !webhook.eventTypes.includes(event.envelope.type)) return false;
  const inScope = webhook.targetAccountId === event.accountId || (providerId !== null && webhook.targetAccountId === providerId);
  if (!inScope) return false;
  return webhook.monitoredAccountIds.length === 0 || webhook.monitoredAccountIds.includes(event.accountId);
}

/** The `events` queue handler: one delivery message per webhook that gets the event. */
export function createFanOutHandler(deps: FanOutDeps): MessageHandler<EventMessage> {
  return async ({ body: event }) => {
    const account = await deps.accounts.get(event.accountId);
    const providerId = account?.managedByAccountId ?? null;
    const candidates = await deps.webhooks.listByAccounts(providerId ? [event.accountId, providerId] : [event.accountId]);
    const targets = candidates.filter((w) => routeEvent(event, providerId, w));
    const messageFor = (w: WebhookRecord): DeliveryMessage => firstAttempt(w.id, event);
    if (event.boundWebhookIds) {
      // Bound on the card but no longer subscribed: recorded as a failed delivery, never sent.
      const unsubscribed = candidates.filter(
        (w) => event.boundWebhookIds!.includes(w.id) && w.status !== "Disabled" && !w.eventTypes.includes(event.envelope.type) && routeEvent({ ...event, bypassSubscription: true }, providerId, w),
      );
      for (const w of unsubscribed) {
        const error = `Not sent: the webhook is bound on the agent's classification card but not subscribed to ${event.envelope.type}.`;
        await deps.logs.put(deliveryLogEntry(messageFor(w), w, { status: "Failed", error, createdAt: deps.now() }, deps.logTtlSeconds));
      }
    }
    if (targets.length === 0) return;
    const messages = targets.map((w) => outgoingDelivery(messageFor(w)));
    // Throwing abandons the event message: it comes back and fans out again; duplicate detection
    // on the delivery message ids keeps that from doubling deliveries.
    await deps.deliveries.send(messages);
    deps.logger.debug("event fanned out", { eventId: event.envelope.id, type: event.envelope.type, webhooks: targets.length });
  };
}
