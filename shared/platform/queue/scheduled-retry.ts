import { createHash } from "node:crypto";
import type { Logger } from "../logger";
import type { MessageHandler, QueueSender, ReceivedMessage } from "./queue";

/**
 * Pauses before each new try of a message whose handler threw: a Cosmos throttle or a short outage
 * passes within the first ones, a longer outage gets about an hour in all before the message is
 * dead-lettered for an operator (`npm run dlq`).
 */
export const HANDLER_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000];

/** Service Bus limits a message id to 128 characters. */
const MAX_MESSAGE_ID_LENGTH = 128;
const RETRY_SUFFIX = /\|retry:(\d+)$/;

/** The property a scheduled retry carries: when it was due (ISO 8601), what proves it is that retry. */
export const RETRY_DUE_PROPERTY = "retryDueAt";
/**
 * How far from its due time a retry may be enqueued and still count as that retry. A queue makes a
 * scheduled message visible at its time (Service Bus within a second or so); a copy re-sent by hand
 * from the dead-letter queue is enqueued when it is re-sent, after its retry was handled, failed on
 * every delivery and was dead-lettered.
 */
const RETRY_DUE_TOLERANCE_MS = 60_000;

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
 * A dead letter put back on the queue starts the retries over, however it is put back: `npm run dlq
 * -- resubmit` gives it a new id, and a copy re-sent as it is (the Azure portal's Service Bus
 * Explorer) keeps its `|retry:<n>` id but not the due time that made it that retry (`ladderOf`).
 *
 * @example
 * const handler = withScheduledRetries(services.events.deliveryHandler, { queue: services.events.deliveries, logger });
 */
export function withScheduledRetries<T>(handler: MessageHandler<T>, options: ScheduledRetryOptions<T>): MessageHandler<T> {
  const delays = options.delaysMs ?? HANDLER_RETRY_DELAYS_MS;
  const now = options.now ?? (() => new Date());
  const { queue, logger } = options;
  return async (message) => {
    const { retry, id, resent } = ladderOf(message);
    const fields = { queue: queue.queueName, messageId: message.messageId, retry, deliveryCount: message.deliveryCount, ...(resent ? { resent } : {}) };
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
      const properties = { ...primitives(message.properties), [RETRY_DUE_PROPERTY]: at.toISOString() };
      try {
        await queue.schedule([{ messageId: retryMessageId(id, retry + 1), body: message.body, properties }], at);
      } catch (scheduleError) {
        logger.warn("message handler failed and its retry could not be scheduled; message abandoned", { ...fields, error: reason, scheduleError: describe(scheduleError) });
        throw error;
      }
      logger.warn("message handler failed; retry scheduled", { ...fields, nextRetry: retry + 1, retryAt: at.toISOString(), error: reason });
    }
  };
}

/** The retry number a message id names: 0 for an original message. */
export function retryNumberOf(messageId: string): number {
  const match = RETRY_SUFFIX.exec(messageId);
  return match ? Number(match[1]) : 0;
}

/**
 * Where a message stands on its retries: `retry` scheduled retries preceded it, and its next retry's
 * id is derived from `id`. Its id's `|retry:<n>` counts only when the message carries the time that
 * retry was due and was enqueued then, as a scheduled retry is. Otherwise it is a copy of a retry
 * re-sent by hand (`resent`): it starts over at 0, its retries under `<id>|resent:<when>` so that
 * they cannot be taken for the first ones by duplicate detection (the same copy redelivered gets the
 * same ids).
 */
export function ladderOf(message: ReceivedMessage<unknown>): { retry: number; id: string; resent?: true } {
  const retry = retryNumberOf(message.messageId);
  if (retry === 0) return { retry, id: message.messageId };
  const due = Date.parse(String(message.properties?.[RETRY_DUE_PROPERTY] ?? ""));
  if (Math.abs(message.enqueuedAt.getTime() - due) <= RETRY_DUE_TOLERANCE_MS) return { retry, id: message.messageId };
  const when = message.enqueuedAt.toISOString().replace(/[-:]/g, "");
  return { retry: 0, id: suffixedMessageId(message.messageId, `|resent:${when}`), resent: true };
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

/** The properties a retry carries on: those a queue can keep (strings, numbers, booleans). */
function primitives(properties: Readonly<Record<string, unknown>> | undefined): Record<string, string | number | boolean> {
  const kept: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(properties ?? {})) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") kept[key] = value;
  }
  return kept;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
