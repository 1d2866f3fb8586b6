import type { Config } from "../config/config";
import { createDeliveryHandler } from "../delivery/delivery-worker";
import type { DeliveryMessage } from "../delivery/delivery-message";
import type { GuardedSender } from "../delivery/guarded-sender";
import type { Logger } from "../logger";
import type { InProcessQueue } from "../queue/in-process/in-process-queue";
import type { MessageHandler, QueueSender } from "../queue/queue";
import type { Stores } from "../store/ports";
import type { SecretBox } from "../delivery/secret-box";
import type { EventMessage } from "./event-message";
import type { GamebookRunsMessage } from "../../model/gamebooks/gamebook-run";
import { createFanOutHandler } from "./fan-out";
import { OutboxRelay } from "./outbox-relay";

/**
 * Outbox → `events` → fan-out → `deliveries` → delivery worker (DESIGN §5). With in-process queues
 * (the embedded default) the handlers are subscribed here and run in this process; with Service Bus
 * they run as queue-triggered functions (`functions/event-fan-out.ts`, `functions/webhook-delivery.ts`).
 */
export interface EventPipeline {
  events: QueueSender<EventMessage>;
  deliveries: QueueSender<DeliveryMessage>;
  /** Dispatched gamebook runs, for the executor (sent by the relay from the outbox). */
  gamebookRuns: QueueSender<GamebookRunsMessage>;
  outbox: OutboxRelay;
  fanOutHandler: MessageHandler<EventMessage>;
  deliveryHandler: MessageHandler<DeliveryMessage>;
  sender: GuardedSender;
  /** Set on the embedded default: the queues themselves, for local controls and tests. */
  inProcess?: InProcessQueues;
}

export interface InProcessQueues {
  events: InProcessQueue<EventMessage>;
  deliveries: InProcessQueue<DeliveryMessage>;
  /** Its handler (the gamebook executor) is subscribed by the composition root. */
  gamebookRuns: InProcessQueue<GamebookRunsMessage>;
}

/** The queues the outbox feeds: in-process on the embedded default, Service Bus in Azure. */
export interface EventQueues {
  events: QueueSender<EventMessage>;
  deliveries: QueueSender<DeliveryMessage>;
  gamebookRuns: QueueSender<GamebookRunsMessage>;
  /** Set when the queues run in this process: the event handlers are subscribed to them here. */
  inProcess?: InProcessQueues;
}

export interface EventPipelineDeps {
  config: Config;
  queues: EventQueues;
  stores: Stores;
  secretBox: SecretBox;
  /** The SSRF-guarded HTTPS sender the delivery worker sends with. */
  sender: GuardedSender;
  now: () => Date;
  logger: Logger;
}

export function createEventPipeline(deps: EventPipelineDeps): EventPipeline {
  const { config, stores, logger, now } = deps;
  const { events, deliveries, gamebookRuns, inProcess } = deps.queues;
  const { sender } = deps;
  const logTtlSeconds = config.webhooks.deliveryLogTtlDays * 86_400;
  const fanOutHandler = createFanOutHandler({
    accounts: stores.accounts,
    webhooks: stores.webhooks,
    deliveries,
    logs: stores.deliveryLogs,
    now,
    logTtlSeconds,
    logger,
  });
  const deliveryHandler = createDeliveryHandler({
    webhooks: stores.webhooks,
    logs: stores.deliveryLogs,
    deliveries,
    sender,
    secretBox: deps.secretBox,
    now,
    logger,
    backoffMs: config.webhooks.retryBackoffMs,
    windowMs: config.webhooks.retryWindowMs,
    logTtlSeconds,
  });
  if (inProcess) {
    inProcess.events.subscribe(fanOutHandler);
    inProcess.deliveries.subscribe(deliveryHandler);
  }
  return {
    events,
    deliveries,
    gamebookRuns,
    outbox: new OutboxRelay({ outbox: stores.outbox, events, workQueues: { "gamebook-runs": gamebookRuns, deliveries }, audit: stores.audit, now, logger }),
    fanOutHandler,
    deliveryHandler,
    sender,
    inProcess,
  };
}
