/**
 * The queue port: what the rest of the service may assume about a queue, which is exactly what an
 * Azure Service Bus queue guarantees (peek-lock, at-least-once, duplicate detection by message id,
 * scheduled enqueue, dead-lettering after a maximum delivery count). Two adapters implement it: the
 * in-process queue (embedded default, tests) and the Service Bus queue (Azure).
 *
 * Handlers must therefore be idempotent: a message can arrive more than once, and out of order.
 */

/** A message to send. Its id is the duplicate-detection key, so it should be derived, not random. */
export interface OutgoingMessage<T> {
  messageId: string;
  /** A JSON-serialisable plain object: it crosses the wire as JSON. */
  body: T;
  /**
   * Kept beside the body (Service Bus application properties): what the queue's machinery notes about
   * a message, such as when a scheduled retry was due. Handlers read the body.
   */
  properties?: Readonly<Record<string, string | number | boolean>>;
}

export interface ReceivedMessage<T> {
  messageId: string;
  body: T;
  /** 1 on the first delivery; incremented by every abandon and every expired lock. */
  deliveryCount: number;
  /** When the message became visible on the queue (for a scheduled message: its scheduled time). */
  enqueuedAt: Date;
  /** The properties it was sent with, when it has any. A copy re-sent by hand may carry them along. */
  properties?: Readonly<Record<string, unknown>>;
}

/** Handler: resolve = complete; throw = abandon (redelivered with deliveryCount + 1; dead-lettered past the maximum). */
export type MessageHandler<T> = (message: ReceivedMessage<T>) => Promise<void>;

export interface QueueSender<T> {
  readonly queueName: string;
  /**
   * All or nothing from the caller's view: it throws on failure, and resending the same message ids
   * after a failure is safe because duplicates are dropped.
   */
  send(messages: readonly OutgoingMessage<T>[]): Promise<void>;
  /** The messages stay invisible until `enqueueAt`; the way to delay a retry, since abandon cannot. */
  schedule(messages: readonly OutgoingMessage<T>[], enqueueAt: Date): Promise<void>;
  /**
   * Resolves when the queue can take messages now, without sending any (the health check). Adapters
   * over a broker open their link to it; absent means there is nothing to reach.
   */
  ping?(): Promise<void>;
}
