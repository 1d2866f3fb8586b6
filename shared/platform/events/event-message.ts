import type { IncidentRef } from "../../model/webhooks/delivery-log";

/** The delivery envelope (DESIGN §5): `{id, type, occurredAt, data}`, plus `isTest` on test events. */
export interface EventEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
  isTest?: true;
}

/** A message on the `events` queue: one domain event, to be fanned out to the webhooks that get it. */
export interface EventMessage {
  envelope: EventEnvelope;
  /** The account the event belongs to; its managing provider's webhooks may get it too. */
  accountId: string;
  /** The incident it is about, when it is about one (auto-disable counts incidents). */
  incident: IncidentRef | null;
  /** Manual trigger (docs/contract.md §6.1): delivered whether or not a webhook subscribes to the type. */
  bypassSubscription?: boolean;
  /** Only these webhooks (a trigger aimed at one); account scope and `monitoredAccountIds` still apply. */
  onlyWebhookIds?: string[];
  /**
   * `agent.investigation.completed.v1` (docs/contract.md §6.2.2): the webhooks the classification's card names.
   * Each gets it only if it also subscribes to the type; one that is bound but not subscribed has the
   * delivery recorded as Failed.
   */
  boundWebhookIds?: string[];
}
