import { createHash } from "node:crypto";
import type { Logger } from "../logger";
import type { MessageHandler, QueueSender } from "./queue";

/**
 * Pauses before each new try of a message whose handler threw: a Cosmos throttle or a short outage
 * passes within the first ones, a longer outage gets about an hour in all before the message is
 * dead-lettered for an operator (`npm run dlq`).
 */
export const HANDLER_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000];

/** Service Bus limits a message id to 128 characters. */
const MAX_MESSAGE_ID_LENGTH = 128;
const RETRY_SUFFIX = /\|retry:(\d+)$/;

export interface ScheduledRetryOptions<T> {
  /** The queue the message came from: its retry goes back onto it. */
  queue: QueueSender<T>;
  logger: Logger;
  now?: () => Date;
  delaysMs?: readonly number[];
}

/**
 * Wraps a queue handler so that a failure is tried again later instead of at once: the message is
 * scheduled again on its queue after the next delay, under a new message id (the same id would be
 * dropped by duplicate detection), and the failed delivery completes. Abandoning instead would make
 * Service Bus redeliver it at once, up to ten times within seconds, then dead-letter it.
 *
 * Once the delays are used up, the failure is thrown: the message is abandoned, and when it comes
 * back it is thrown again without running the handler, so it reaches the dead-letter queue after the
 * queue's maximum delivery count without more tries. A scheduled try that fails to be scheduled
 * falls back to the same abandon.
 *
 * @example
 * const handler = withScheduledRetries(services.events.deliveryHandler, { queue: services.events.deliveries, logger });
 */
export function withScheduledRetries<T>(handler: MessageHandler<T>, options: ScheduledRetryOptions<T>): MessageHandler<T> {
  const delays = options.delaysMs ?? HANDLER_RETRY_DELAYS_MS;
  const now = options.now ?? (() => new Date());
  const { queue, logger } = options;
  return async (message) => {
    const retry = retryNumberOf(message.messageId);
    const fields = { queue: queue.queueName, messageId: message.messageId, retry, deliveryCount: message.deliveryCount };
    const exhausted = retry >= delays.length;
    if (exhausted && message.deliveryCount > 1) {
      throw new Error(`Message ${message.messageId} used up its retries; it goes to the dead-letter queue.`);
    }
    try {
      await handler(message);
    } catch (error) {
      const reason = describe(error);
      if (exhausted) {
        logger.error("message handler failed after its retries; the message goes to the dead-letter queue", { ...fields, error: reason });
        throw error;
      }
      const at = new Date(now().getTime() + delays[retry]!);
      try {
        await queue.schedule([{ messageId: retryMessageId(message.messageId, retry + 1), body: message.body }], at);
      } catch (scheduleError) {
        logger.warn("message handler failed and its retry could not be scheduled; message abandoned", { ...fields, error: reason, scheduleError: describe(scheduleError) });
        throw error;
      }
      logger.warn("message handler failed; retry scheduled", { ...fields, nextRetry: retry + 1, retryAt: at.toISOString(), error: reason });
    }
  };
}

/** How many scheduled retries preceded this message: 0 for an original message. */
export function retryNumberOf(messageId: string): number {
  const match = RETRY_SUFFIX.exec(messageId);
  return match ? Number(match[1]) : 0;
}

/**
 * The id of the `retry`-th retry of a message: its original id (a hash of it when the suffix would
 * make it too long) and the retry number. The same failure retried twice (a lost lock) gets the
 * same id, so duplicate detection keeps one.
 */
export function retryMessageId(messageId: string, retry: number): string {
  return suffixedMessageId(messageId, `|retry:${retry}`);
}

/**
 * A message's id without its retry number, followed by `suffix`; the id is replaced by a hash of
 * itself when the result would be longer than Service Bus accepts.
 */
export function suffixedMessageId(messageId: string, suffix: string): string {
  const base = messageId.replace(RETRY_SUFFIX, "");
  const fitting = base.length + suffix.length <= MAX_MESSAGE_ID_LENGTH ? base : `sha256:${createHash("sha256").update(base).digest("hex").slice(0, 40)}`;
  return fitting + suffix;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
