import { createHash } from "node:crypto";
import { ExpiringKeys } from "../../expiring-keys";
import { silentLogger, type Logger } from "../../logger";
import type { MessageHandler, OutgoingMessage, QueueSender, ReceivedMessage } from "../queue";
import { MAX_DELIVERY_COUNT } from "../queue-names";

export interface InProcessQueueOptions {
  name: string;
  /** Deliveries before a message is dead-lettered (Service Bus `MaxDeliveryCount`). Default 10. */
  maxDeliveryCount?: number;
  /**
   * How long a handler may run before it counts as a crashed worker and its message is redelivered.
   * Default 60 s. (In Azure the host renews the lock of a live handler, up to
   * `maxAutoLockRenewalDuration`; here there is no renewal, so this is the time after which a handler
   * is given up on.)
   */
  lockDurationMs?: number;
  /** Service Bus `DuplicateDetectionHistoryTimeWindow`. Default `DUPLICATE_DETECTION_WINDOW_MS`. */
  duplicateDetectionWindowMs?: number;
  /** Handlers running at once (the Functions host's `maxConcurrentCalls`). Default 16. */
  maxConcurrentCalls?: number;
  now?: () => Date;
  logger?: Logger;
}

export interface DeadLetter<T> {
  /** Its number in the dead-letter sub-queue (Service Bus numbers a dead-letter queue on its own). */
  sequenceNumber: number;
  message: ReceivedMessage<T>;
  /** The last failure: the handler's error message, or the expired lock. */
  reason: string;
  deadLetteredAt: Date;
}

export interface InProcessQueueStats {
  ready: number;
  inFlight: number;
  scheduled: number;
  deadLettered: number;
  /** Messages completed (their handler resolved) since the queue was created. */
  delivered: number;
}

interface Entry<T> {
  readonly messageId: string;
  /** The queue's own copy; every delivery hands out a fresh copy of it. */
  readonly body: T;
  readonly properties?: Readonly<Record<string, string | number | boolean>>;
  /** Order of arrival on the queue (Service Bus `SequenceNumber`), kept across redeliveries. */
  sequence: number;
  enqueuedAt: Date;
  /** Deliveries so far. */
  deliveryCount: number;
}

interface Lock<T> {
  readonly entry: Entry<T>;
  timer?: NodeJS.Timeout;
}

interface Scheduled<T> {
  readonly entry: Entry<T>;
  readonly enqueueAt: Date;
  timer?: NodeJS.Timeout;
  /** Armed again after its timer fired early (see `arm`). */
  rearmed?: boolean;
}

/** setTimeout fires at once for delays above 2^31-1 ms (~24.8 days); longer delays are re-armed in steps. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;
/** How early a timer may fire by the wall clock: Node's timers round to their own millisecond clock. */
const TIMER_EARLY_MS = 2;
/** Service Bus limits a message id to 128 characters; holding to it here keeps local runs honest. */
const MAX_MESSAGE_ID_LENGTH = 128;
/**
 * How long an accepted message id is remembered: the `duplicateDetectionHistoryTimeWindow` every
 * Service Bus queue is given (PT10M, infra/modules/service-bus.bicep), so a resend is dropped here
 * exactly when it would be there.
 */
export const DUPLICATE_DETECTION_WINDOW_MS = 10 * 60_000;
/**
 * Ids accepted within the same 10 s share one set, forgotten together once the window has passed for
 * the last of them: an id is remembered for the window and at most 10 s longer (a resend is never let
 * through early). One map entry per id, with its own expiry, cost ~120 bytes an id under load (V8's
 * ordered hash tables keep the slots of deleted entries until they grow again, and the window deletes
 * all the time); a set that is only ever added to, then dropped whole, ~60 with the digest.
 */
const DUPLICATE_DETECTION_BUCKET_MS = 10_000;

/**
 * The embedded queue: one process, in memory, with the Service Bus semantics the code relies on, so
 * that what works on it works on Service Bus: at-least-once delivery under peek-lock, redelivery on
 * abandon and on an expired lock, dead-lettering after `maxDeliveryCount`, scheduled messages,
 * duplicate detection by message id, and bounded concurrency. Nothing survives the process: messages
 * still queued or scheduled at exit are lost (a local run, not a durable broker).
 *
 * @example
 * const deliveries = new InProcessQueue<DeliveryMessage>({ name: "deliveries", logger });
 * deliveries.subscribe(async (message) => deliver(message.body));
 * await deliveries.send([{ messageId: `${eventId}:${webhookId}`, body }]);
 */
export class InProcessQueue<T> implements QueueSender<T> {
  readonly queueName: string;
  private readonly maxDeliveryCount: number;
  private readonly lockDurationMs: number;
  private readonly maxConcurrentCalls: number;
  private readonly now: () => Date;
  private readonly logger: Logger;

  private handler?: MessageHandler<T>;
  /** Ready messages, ordered by sequence. */
  private readonly ready: Entry<T>[] = [];
  private readonly locks = new Set<Lock<T>>();
  private readonly scheduled = new Set<Scheduled<T>>();
  private readonly dead: DeadLetter<T>[] = [];
  private nextDeadSequence = 1;
  /**
   * What duplicate detection remembers, as Service Bus does: the ids accepted within the window, not
   * the messages, each as its digest (`idDigest`, 16 bytes whatever the id's length; a delivery id as
   * built is a string of pieces, ~200 bytes), in sets of `DUPLICATE_DETECTION_BUCKET_MS`, oldest first.
   */
  private readonly acceptedIds: ExpiringKeys<Set<string>>;
  /** The set ids accepted now join, and when it stops taking them. */
  private acceptingIds?: { ids: Set<string>; until: number };
  private readonly duplicateDetectionWindowMs: number;
  /** Re-checked after every change of state (idle() and close() wait through them). */
  private readonly watchers = new Set<() => void>();
  private nextSequence = 1;
  private completed = 0;
  private closed = false;

  constructor(options: InProcessQueueOptions) {
    this.queueName = options.name;
    this.maxDeliveryCount = positiveInt("maxDeliveryCount", options.maxDeliveryCount ?? MAX_DELIVERY_COUNT);
    this.lockDurationMs = positiveInt("lockDurationMs", options.lockDurationMs ?? 60_000);
    this.duplicateDetectionWindowMs = positiveInt("duplicateDetectionWindowMs", options.duplicateDetectionWindowMs ?? DUPLICATE_DETECTION_WINDOW_MS);
    this.maxConcurrentCalls = positiveInt("maxConcurrentCalls", options.maxConcurrentCalls ?? 16);
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger ?? silentLogger;
    this.acceptedIds = new ExpiringKeys({ now: () => this.now().getTime() });
  }

  async send(messages: readonly OutgoingMessage<T>[]): Promise<void> {
    this.assertOpen();
    for (const entry of this.accept(messages)) this.enqueue(entry);
    this.dispatch();
  }

  /** Service Bus scheduled messages: accepted now (duplicate detection applies now), visible at `enqueueAt`. */
  async schedule(messages: readonly OutgoingMessage<T>[], enqueueAt: Date): Promise<void> {
    this.assertOpen();
    if (Number.isNaN(enqueueAt.getTime())) throw new TypeError("enqueueAt must be a valid date");
    for (const entry of this.accept(messages)) {
      const item: Scheduled<T> = { entry, enqueueAt };
      this.scheduled.add(item);
      this.arm(item);
    }
    this.dispatch();
  }

  /** Fails once the queue is closed, as a send would. */
  async ping(): Promise<void> {
    this.assertOpen();
  }

  /** Starts delivery. One handler per queue, as one trigger function per Service Bus queue. */
  subscribe(handler: MessageHandler<T>): void {
    this.assertOpen();
    if (this.handler) throw new Error(`queue "${this.queueName}" already has a handler`);
    this.handler = handler;
    this.dispatch();
  }

  /** The dead-letter sub-queue, oldest first. Copies: inspecting them changes nothing. */
  deadLetters(): readonly DeadLetter<T>[] {
    return this.dead.map(copyDeadLetter);
  }

  /** Removes these dead letters and returns them (an operator resubmitting them); unknown numbers are skipped. */
  removeDeadLetters(sequenceNumbers: readonly number[]): DeadLetter<T>[] {
    const wanted = new Set(sequenceNumbers);
    const removed = this.dead.filter((d) => wanted.has(d.sequenceNumber));
    for (const d of removed) this.dead.splice(this.dead.indexOf(d), 1);
    this.changed();
    return removed.map(copyDeadLetter);
  }

  /**
   * Resolves when nothing is ready, in flight or scheduled before `includeScheduledBefore` (by
   * default scheduled messages are not waited for). Rejects after `timeoutMs` (default 30 s) with the
   * queue's stats, so that a test that would hang fails with a reason instead.
   */
  idle(options: { includeScheduledBefore?: Date; timeoutMs?: number } = {}): Promise<void> {
    const { includeScheduledBefore: until, timeoutMs = 30_000 } = options;
    const isIdle = () =>
      this.ready.length === 0 &&
      this.locks.size === 0 &&
      (until === undefined || ![...this.scheduled].some((s) => s.enqueueAt < until));
    return this.waitFor(isIdle, timeoutMs, "idle");
  }

  stats(): InProcessQueueStats {
    return {
      ready: this.ready.length,
      inFlight: this.locks.size,
      scheduled: this.scheduled.size,
      deadLettered: this.dead.length,
      delivered: this.completed,
    };
  }

  /**
   * Stops delivery and the schedule timers, and waits for the handlers in flight (each at most until
   * its lock expires). Sending afterwards throws, as on a closed Service Bus sender.
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      for (const item of this.scheduled) clearTimeout(item.timer);
      const lost = this.ready.length + this.scheduled.size;
      if (lost > 0) this.logger.warn("queue closed with messages pending; they are discarded", { queue: this.queueName, count: lost });
      this.scheduled.clear();
      this.changed();
    }
    await this.waitFor(() => this.locks.size === 0, undefined, "closed");
  }

  // --- acceptance -------------------------------------------------------------------------------

  /**
   * Copies and accepts messages. Every body is copied before any is accepted, so a body that cannot
   * be copied fails the whole call and accepts nothing (all or nothing, like one Service Bus batch).
   */
  private accept(messages: readonly OutgoingMessage<T>[]): Entry<T>[] {
    const copies = messages.map((m) => {
      if (typeof m.messageId !== "string" || m.messageId.length === 0 || m.messageId.length > MAX_MESSAGE_ID_LENGTH) {
        throw new TypeError(`messageId must be a string of 1 to ${MAX_MESSAGE_ID_LENGTH} characters`);
      }
      // The sender keeps its object; the queue keeps its own, as if it had crossed the wire.
      return { messageId: m.messageId, body: structuredClone(m.body), ...(m.properties ? { properties: { ...m.properties } } : {}) };
    });
    const at = this.now().getTime();
    const accepted: Entry<T>[] = [];
    for (const { messageId, body, properties } of copies) {
      // Service Bus duplicate detection: a message id already accepted within the window is
      // silently dropped (the send succeeds), which makes resending after a failure safe.
      const digest = idDigest(messageId);
      if (this.accepted(digest)) {
        this.logger.debug("duplicate message dropped", { queue: this.queueName, messageId });
        continue;
      }
      this.remember(digest, at);
      accepted.push({ messageId, body, ...(properties ? { properties } : {}), sequence: 0, enqueuedAt: new Date(at), deliveryCount: 0 });
    }
    return accepted;
  }

  /** Whether an id with this digest was accepted within the window. */
  private accepted(digest: string): boolean {
    this.acceptedIds.trim();
    for (const ids of this.acceptedIds.keys()) if (ids.has(digest)) return true;
    return false;
  }

  private remember(digest: string, at: number): void {
    if (!this.acceptingIds || at >= this.acceptingIds.until) {
      const until = (Math.floor(at / DUPLICATE_DETECTION_BUCKET_MS) + 1) * DUPLICATE_DETECTION_BUCKET_MS;
      this.acceptingIds = { ids: new Set(), until };
      this.acceptedIds.keep(this.acceptingIds.ids, until + this.duplicateDetectionWindowMs);
    }
    this.acceptingIds.ids.add(digest);
  }

  private enqueue(entry: Entry<T>): void {
    entry.sequence = this.nextSequence++;
    entry.enqueuedAt = this.now();
    this.ready.push(entry);
  }

  /** A scheduled message joins the queue at its time, by a timer that never keeps the process alive. */
  private arm(item: Scheduled<T>): void {
    const delay = item.enqueueAt.getTime() - this.now().getTime();
    if (delay <= 0) {
      this.scheduled.delete(item);
      this.enqueue(item.entry);
      // Also when armed again from its own timer (it fired a millisecond early, and the time came
      // meanwhile): nothing else would hand the message out.
      this.dispatch();
      return;
    }
    item.timer = setTimeout(() => {
      if (!this.scheduled.has(item)) return;
      if (delay > MAX_TIMER_DELAY_MS) return this.arm(item);
      // Node's timers keep a monotonic millisecond clock of their own, and fire up to a millisecond
      // before the wall clock says the time has come: such a message waits out the rest, once (a clock
      // a test holds still says it is early by the whole delay, and is not waited on).
      const early = item.enqueueAt.getTime() - this.now().getTime();
      if (early > 0 && early <= TIMER_EARLY_MS && !item.rearmed) {
        item.rearmed = true;
        return this.arm(item);
      }
      this.scheduled.delete(item);
      this.enqueue(item.entry);
      this.dispatch();
    }, Math.min(delay, MAX_TIMER_DELAY_MS));
    item.timer.unref();
  }

  // --- delivery ---------------------------------------------------------------------------------

  /**
   * Hands ready messages to the handler, oldest first (Service Bus delivers by sequence number, which
   * is FIFO-ish once redeliveries and concurrency mix), while fewer than `maxConcurrentCalls` are in
   * flight (the Functions host's `maxConcurrentCalls` for a Service Bus trigger).
   */
  private dispatch(): void {
    const handler = this.handler;
    while (handler && !this.closed && this.locks.size < this.maxConcurrentCalls) {
      const entry = this.ready.shift();
      if (!entry) break;
      this.deliver(entry, handler);
    }
    this.changed();
  }

  /**
   * Peek-lock: the message is invisible to other handlers until the handler settles it or the lock
   * expires. The handler runs on a later tick, never inside send(): a sender does not run consumers.
   */
  private deliver(entry: Entry<T>, handler: MessageHandler<T>): void {
    entry.deliveryCount += 1;
    const lock: Lock<T> = { entry };
    lock.timer = setTimeout(() => this.expire(lock), this.lockDurationMs);
    lock.timer.unref();
    this.locks.add(lock);
    const message = snapshot(entry);
    Promise.resolve()
      .then(() => handler(message))
      .then(
        () => this.complete(lock),
        (error: unknown) => this.abandon(lock, error),
      )
      // Whatever a handler does, it must not become an unhandled rejection that stops the process.
      .catch((error: unknown) => this.logger.error("queue bookkeeping failed", { queue: this.queueName, error: describe(error) }));
  }

  /** Complete: the message is removed. After the lock expired it is too late (Service Bus `MessageLockLost`). */
  private complete(lock: Lock<T>): void {
    if (!this.release(lock)) {
      this.logger.warn("handler completed after its lock expired; the message was redelivered", this.fields(lock.entry));
      return;
    }
    this.completed += 1;
    this.dispatch();
  }

  /** Abandon: the message is visible again at once, deliveryCount + 1 (abandon cannot delay it). */
  private abandon(lock: Lock<T>, error: unknown): void {
    const reason = describe(error);
    if (!this.release(lock)) {
      this.logger.warn("handler failed after its lock expired", { ...this.fields(lock.entry), error: reason });
      return;
    }
    this.logger.warn("message handler failed; message abandoned", { ...this.fields(lock.entry), error: reason });
    this.redeliverOrDeadLetter(lock.entry, reason);
  }

  /** An expired lock (a crashed or hung worker) counts as a delivery, exactly like an abandon. */
  private expire(lock: Lock<T>): void {
    if (!this.release(lock)) return;
    const reason = `lock expired after ${this.lockDurationMs} ms`;
    this.logger.warn("message lock expired; message released", { ...this.fields(lock.entry), error: reason });
    // The hung handler no longer holds a slot: its worker is presumed gone, as Service Bus presumes.
    this.redeliverOrDeadLetter(lock.entry, reason);
  }

  /** Drops the lock; false when it was already gone (settled, or expired). */
  private release(lock: Lock<T>): boolean {
    if (!this.locks.delete(lock)) return false;
    clearTimeout(lock.timer);
    return true;
  }

  /** Service Bus `MaxDeliveryCount`: once a message has had that many deliveries, it is dead-lettered. */
  private redeliverOrDeadLetter(entry: Entry<T>, reason: string): void {
    if (entry.deliveryCount >= this.maxDeliveryCount) {
      this.dead.push({ sequenceNumber: this.nextDeadSequence++, message: snapshot(entry), reason, deadLetteredAt: this.now() });
      this.logger.warn("message dead-lettered", { ...this.fields(entry), reason });
    } else {
      // It keeps its sequence number, so it goes back ahead of messages that arrived after it.
      const at = this.ready.findIndex((e) => e.sequence > entry.sequence);
      this.ready.splice(at === -1 ? this.ready.length : at, 0, entry);
    }
    this.dispatch();
  }

  // --- plumbing ---------------------------------------------------------------------------------

  private waitFor(condition: () => boolean, timeoutMs: number | undefined, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const watcher = () => {
        if (!condition()) return;
        stop();
        resolve();
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              stop();
              reject(new Error(`queue "${this.queueName}" not ${what} after ${timeoutMs} ms: ${JSON.stringify(this.stats())}`));
            }, timeoutMs);
      const stop = () => {
        clearTimeout(timer);
        this.watchers.delete(watcher);
      };
      this.watchers.add(watcher);
    });
  }

  private changed(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`queue "${this.queueName}" is closed`);
  }

  private fields(entry: Entry<T>): Record<string, unknown> {
    return { queue: this.queueName, messageId: entry.messageId, deliveryCount: entry.deliveryCount };
  }
}

/**
 * A message id as duplicate detection keeps it: its SHA-256, first 16 bytes, as a 16-character string
 * (a flat string of its own, whatever pieces the id was built from). Two ids sharing a digest would
 * need about 2^64 ids in one window.
 */
function idDigest(messageId: string): string {
  return createHash("sha256").update(messageId).digest().toString("latin1", 0, 16);
}

function snapshot<T>(entry: Entry<T>): ReceivedMessage<T> {
  const { messageId, body, deliveryCount, enqueuedAt, properties } = entry;
  return copyMessage({ messageId, body, deliveryCount, enqueuedAt, ...(properties ? { properties } : {}) });
}

function copyDeadLetter<T>(d: DeadLetter<T>): DeadLetter<T> {
  return { sequenceNumber: d.sequenceNumber, message: copyMessage(d.message), reason: d.reason, deadLetteredAt: new Date(d.deadLetteredAt) };
}

/** Each delivery gets its own copy, so a handler that mutates its message cannot change a redelivery. */
function copyMessage<T>(message: ReceivedMessage<T>): ReceivedMessage<T> {
  const copy = { ...message, body: structuredClone(message.body), enqueuedAt: new Date(message.enqueuedAt) };
  if (message.properties) copy.properties = { ...message.properties };
  return copy;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
