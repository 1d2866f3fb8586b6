import type { InvocationContext } from "@azure/functions";
import type { Logger } from "../../platform/logger";
import type { MessageHandler, QueueSender, ReceivedMessage } from "../../platform/queue/queue";
import { withScheduledRetries } from "../../platform/queue/scheduled-retry";

/**
 * The app setting (prefix) every Service Bus trigger connects with: `SERVICEBUS` holds a connection
 * string, or `SERVICEBUS__fullyQualifiedNamespace` names the namespace for managed identity.
 */
export const SERVICE_BUS_CONNECTION = "SERVICEBUS";

export type ServiceBusTriggerFunction = (message: unknown, context: InvocationContext) => Promise<void>;

/** What a trigger runs: the queue's handler, and where a failed message is scheduled to be tried again. */
export interface TriggerTarget<T> {
  handler: MessageHandler<T>;
  /** The trigger's own queue. Given, a failure is retried later (`withScheduledRetries`), not abandoned. */
  retries?: QueueSender<T>;
  /** Where failures are logged, as fields; without it, the invocation's log. */
  logger?: Logger;
}

/**
 * Adapts a queue handler to an `app.serviceBusQueue` trigger (cardinality one). Resolving lets the
 * host complete the message; throwing lets it abandon the message, so Service Bus redelivers it and
 * dead-letters it after the queue's `maxDeliveryCount`, exactly as the in-process queue does. With
 * `retries`, a failure is first scheduled again after a delay (`withScheduledRetries`).
 * The target is obtained on each invocation, not at import, so that building the services (and a
 * configuration error) happens inside an invocation rather than crashing the host at start.
 *
 * @example
 * app.serviceBusQueue("deliveries", {
 *   connection: SERVICE_BUS_CONNECTION,
 *   queueName: queueNames.deliveries,
 *   handler: serviceBusTriggerHandler(async () => {
 *     const { events, logger } = await lazyServices();
 *     return { handler: events.deliveryHandler, retries: events.deliveries, logger };
 *   }),
 * });
 */
export function serviceBusTriggerHandler<T>(
  getTarget: () => MessageHandler<T> | TriggerTarget<T> | Promise<MessageHandler<T> | TriggerTarget<T>>,
): ServiceBusTriggerFunction {
  return async (message: unknown, context: InvocationContext): Promise<void> => {
    const received = toReceivedMessage<T>(message, context);
    const target = await getTarget();
    const { handler, retries, logger } = typeof target === "function" ? { handler: target, retries: undefined, logger: undefined } : target;
    const run = retries ? withScheduledRetries(handler, { queue: retries, logger: logger ?? invocationLogger(context) }) : handler;
    try {
      await run(received);
    } catch (error) {
      const fields = { messageId: received.messageId, deliveryCount: received.deliveryCount, error: error instanceof Error ? error.message : String(error) };
      if (logger) logger.warn("message handler failed; message abandoned", fields);
      else context.warn(JSON.stringify({ message: "message handler failed; message abandoned", ...fields }));
      throw error;
    }
  };
}

/** The invocation's own log, one JSON object per line. */
function invocationLogger(context: InvocationContext): Logger {
  const line = (message: string, fields?: Record<string, unknown>) => JSON.stringify({ message, ...fields });
  return {
    debug: (m, f) => context.debug(line(m, f)),
    info: (m, f) => context.info(line(m, f)),
    warn: (m, f) => context.warn(line(m, f)),
    error: (m, f) => context.error(line(m, f)),
  };
}

/**
 * The trigger's message, from the binding data of the Service Bus extension. The Node worker turns
 * its keys into camelCase (`MessageId` → `messageId`, `DeliveryCount`, `EnqueuedTimeUtc`,
 * `ApplicationProperties`, and the first letter of each property's name).
 */
export function toReceivedMessage<T>(message: unknown, context: InvocationContext): ReceivedMessage<T> {
  const metadata = context.triggerMetadata ?? {};
  const messageId = metadata.messageId;
  // Without its id a message cannot be processed idempotently; refusing it sends it, in the end, to
  // the dead-letter queue where someone can look at it.
  if (typeof messageId !== "string" || messageId === "") throw new Error("Service Bus trigger metadata has no messageId.");
  const deliveryCount = toCount(metadata.deliveryCount);
  const enqueuedAt = toDate(metadata.enqueuedTimeUtc);
  if (deliveryCount === undefined || enqueuedAt === undefined) {
    context.warn(JSON.stringify({ message: "incomplete Service Bus trigger metadata", messageId, deliveryCount: metadata.deliveryCount, enqueuedTimeUtc: metadata.enqueuedTimeUtc }));
  }
  const properties = metadata.applicationProperties;
  return {
    messageId,
    body: toBody(message) as T,
    deliveryCount: deliveryCount ?? 1,
    enqueuedAt: enqueuedAt ?? new Date(),
    ...(typeof properties === "object" && properties !== null && !Array.isArray(properties) ? { properties: properties as Record<string, unknown> } : {}),
  };
}

/**
 * A JSON message arrives parsed (the worker parses string data that is JSON). Should the host ever
 * pass the raw bytes or text instead, they are parsed here, so the handler sees the same object.
 */
function toBody(message: unknown): unknown {
  const text = Buffer.isBuffer(message) || message instanceof Uint8Array ? Buffer.from(message).toString("utf8") : message;
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toCount(value: unknown): number | undefined {
  // A 64-bit integer may come through as a number, a numeric string or a Long-like object.
  const n =
    typeof value === "number" ? value
    : typeof value === "string" ? Number(value)
    : typeof value === "object" && value !== null && "toNumber" in value && typeof value.toNumber === "function" ? Number(value.toNumber())
    : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function toDate(value: unknown): Date | undefined {
  let date: Date | undefined;
  if (value instanceof Date) date = new Date(value);
  else if (typeof value === "number") date = new Date(value);
  else if (typeof value === "string") {
    // .NET may serialise a UTC DateTime without its zone designator; it is UTC all the same.
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) || !/T\d{2}:\d{2}/.test(value) ? value : `${value}Z`;
    date = new Date(zoned);
  }
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}
