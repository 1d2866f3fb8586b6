import type { Config } from "../config";
import { createDeliveryHandler } from "../delivery/delivery-worker";
import type { DeliveryMessage } from "../delivery/delivery-message";
import { createGuardedSender, type GuardedSender } from "../delivery/guarded-sender";
import type { HostResolver } from "../delivery/address-policy";
import type { Logger } from "../logger";
import { InProcessQueue } from "../queue/in-process-queue";
import type { MessageHandler, QueueSender } from "../queue/queue";
import { queueNames } from "../queue/queue-names";
import type { Stores } from "../store/ports";
import type { SecretBox } from "../webhooks/secret-box";
import type { EventMessage } from "../store/records";
import { createFanOutHandler } from "./fan-out";
import { OutboxRelay } from "./outbox-relay";

/** Response bytes read from a receiver before the rest is dropped (contract 8: 1 MB). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Outbox → `events` → fan-out → `deliveries` → delivery worker (DESIGN §5). With in-process queues
 * (the embedded default) the handlers are subscribed here and run in this process; with Service Bus
 * they run as queue-triggered functions (`functions/event-fan-out.ts`, `functions/webhook-delivery.ts`).
 */
export interface EventPipeline {
  events: QueueSender<EventMessage>;
  deliveries: QueueSender<DeliveryMessage>;
  outbox: OutboxRelay;
  fanOutHandler: MessageHandler<EventMessage>;
  deliveryHandler: MessageHandler<DeliveryMessage>;
  sender: GuardedSender;
  /** Set on the embedded default: the queues themselves, for local controls and tests. */
  inProcess?: { events: InProcessQueue<EventMessage>; deliveries: InProcessQueue<DeliveryMessage> };
}

/** The two queues of the pipeline: in-process on the embedded default, Service Bus in Azure. */
export interface EventQueues {
  events: QueueSender<EventMessage>;
  deliveries: QueueSender<DeliveryMessage>;
  /** Set when the queues run in this process: the handlers are subscribed to them here. */
  inProcess?: { events: InProcessQueue<EventMessage>; deliveries: InProcessQueue<DeliveryMessage> };
}

/** In-process queues, for the embedded default and tests. */
export function inProcessEventQueues(now: () => Date, logger: Logger): EventQueues {
  const inProcess = {
    events: new InProcessQueue<EventMessage>({ name: queueNames.events, now, logger }),
    deliveries: new InProcessQueue<DeliveryMessage>({ name: queueNames.deliveries, now, logger }),
  };
  return { ...inProcess, inProcess };
}

export interface EventPipelineDeps {
  config: Config;
  queues: EventQueues;
  stores: Stores;
  secretBox: SecretBox;
  now: () => Date;
  logger: Logger;
  /** Connect-time name resolution of the sender (tests point names at chosen addresses). */
  lookup?: HostResolver;
  /** Extra CA certificates the sender trusts (tests' self-signed receivers). */
  ca?: string;
}

export function createEventPipeline(deps: EventPipelineDeps): EventPipeline {
  const { config, stores, logger, now } = deps;
  const { events, deliveries, inProcess } = deps.queues;
  const sender = createGuardedSender({
    timeoutMs: config.webhooks.timeoutMs,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    lookup: deps.lookup,
    ca: deps.ca,
  });
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
    outbox: new OutboxRelay({ outbox: stores.outbox, events, audit: stores.audit, now, logger }),
    fanOutHandler,
    deliveryHandler,
    sender,
    inProcess,
  };
}
