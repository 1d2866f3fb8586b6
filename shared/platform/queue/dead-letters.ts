import type { ServiceBusMessage, ServiceBusReceivedMessage } from "@azure/service-bus";
import type Long from "long";
import type { InProcessQueue } from "./in-process/in-process-queue";
import { suffixedMessageId } from "./scheduled-retry";
import { translateServiceBusError } from "./service-bus/service-bus-errors";

/** A dead-lettered message as an operator sees it. */
export interface DeadLetterSummary {
  queue: string;
  /** Its number in the queue's dead-letter sub-queue: what `show` and `resubmit` take. */
  sequenceNumber: string;
  messageId: string;
  /** Why it was dead-lettered (Service Bus: `MaxDeliveryCountExceeded`, ...) and the broker's explanation. */
  reason: string;
  description: string | null;
  deliveryCount: number;
  enqueuedAt: string | null;
}

export interface DeadLetterDetail extends DeadLetterSummary {
  body: unknown;
}

export interface ResubmitResult {
  /** Dead letters put back on their queue, each under a new message id (the old one may still be remembered by duplicate detection). */
  resubmitted: { sequenceNumber: string; messageId: string }[];
  /** Requested numbers that were not in the dead-letter queue. */
  missing: string[];
}

/**
 * The dead-letter sub-queues of the service's queues: list, inspect, and resubmit messages that
 * used up their deliveries, so that none is lost silently (`npm run dlq`).
 */
export interface DeadLetterQueues {
  list(queue: string, max: number): Promise<DeadLetterSummary[]>;
  show(queue: string, sequenceNumber: string): Promise<DeadLetterDetail | undefined>;
  /** `"all"` resubmits every dead letter of the queue. */
  resubmit(queue: string, sequenceNumbers: readonly string[] | "all"): Promise<ResubmitResult>;
}

/** The id a resubmitted message gets: its original id and where it came from, so a repeated resubmit of the same dead letter is one message. */
export function resubmittedMessageId(messageId: string, sequenceNumber: string): string {
  return suffixedMessageId(messageId, `|resubmit:${sequenceNumber}`);
}

// --- in-process ------------------------------------------------------------------------------------

/** The local host's queues (and tests): the same operations on the in-process queues' dead letters. */
export function inProcessDeadLetters(queues: readonly InProcessQueue<unknown>[]): DeadLetterQueues {
  const byName = new Map(queues.map((q) => [q.queueName, q]));
  const queueOf = (name: string) => {
    const queue = byName.get(name);
    if (!queue) throw new Error(`No queue named "${name}".`);
    return queue;
  };
  const detail = (queue: string, d: ReturnType<InProcessQueue<unknown>["deadLetters"]>[number]): DeadLetterDetail => ({
    queue,
    sequenceNumber: String(d.sequenceNumber),
    messageId: d.message.messageId,
    reason: "MaxDeliveryCountExceeded",
    description: d.reason,
    deliveryCount: d.message.deliveryCount,
    enqueuedAt: d.message.enqueuedAt.toISOString(),
    body: d.message.body,
  });
  return {
    async list(queue, max) {
      return queueOf(queue)
        .deadLetters()
        .slice(0, max)
        .map((d) => withoutBody(detail(queue, d)));
    },
    async show(queue, sequenceNumber) {
      const found = queueOf(queue)
        .deadLetters()
        .find((d) => String(d.sequenceNumber) === sequenceNumber);
      return found && detail(queue, found);
    },
    async resubmit(queue, sequenceNumbers) {
      const q = queueOf(queue);
      const wanted = sequenceNumbers === "all" ? q.deadLetters().map((d) => d.sequenceNumber) : sequenceNumbers.map(Number);
      const taken = q.removeDeadLetters(wanted);
      const messages = taken.map((d) => ({ messageId: resubmittedMessageId(d.message.messageId, String(d.sequenceNumber)), body: d.message.body }));
      await q.send(messages);
      const found = new Set(taken.map((d) => String(d.sequenceNumber)));
      return {
        resubmitted: taken.map((d, i) => ({ sequenceNumber: String(d.sequenceNumber), messageId: messages[i]!.messageId })),
        missing: sequenceNumbers === "all" ? [] : sequenceNumbers.filter((n) => !found.has(n)),
      };
    },
  };
}

// --- Service Bus -----------------------------------------------------------------------------------

/** The parts of a dead-letter receiver this adapter uses: what a test fake implements. */
export interface DeadLetterReceiverLike {
  peekMessages(maxMessageCount: number, options: { fromSequenceNumber: Long }): Promise<ServiceBusReceivedMessage[]>;
  receiveMessages(maxMessageCount: number, options: { maxWaitTimeInMs: number }): Promise<ServiceBusReceivedMessage[]>;
  completeMessage(message: ServiceBusReceivedMessage): Promise<void>;
  abandonMessage(message: ServiceBusReceivedMessage): Promise<void>;
  close(): Promise<void>;
}

export interface DeadLetterClientLike {
  createReceiver(queue: string, options: { subQueueType: "deadLetter"; receiveMode: "peekLock" }): DeadLetterReceiverLike;
  createSender(queue: string): { sendMessages(message: ServiceBusMessage): Promise<void>; close(): Promise<void> };
}

/** Messages peeked or received per round trip. */
const PAGE = 100;
/** How long a receive waits for more dead letters before the queue counts as drained. */
const RECEIVE_WAIT_MS = 3_000;

/**
 * The Service Bus dead-letter sub-queues. Listing and showing peek (no lock, nothing changes).
 * Resubmitting receives dead letters under peek-lock: a wanted one is sent to its queue under a new
 * id and then completed (removed), others are held until the end and then abandoned (left in place).
 * A crash between the send and the completion leaves the dead letter in place and its copy sent: a
 * repeat resubmit sends the same id again, which duplicate detection drops.
 *
 * @example
 * const dlq = serviceBusDeadLetters(createServiceBusClient({ fullyQualifiedNamespace }));
 * for (const d of await dlq.list("deliveries", 50)) console.log(d.sequenceNumber, d.reason);
 */
export function serviceBusDeadLetters(client: DeadLetterClientLike): DeadLetterQueues {
  const receiverOf = (queue: string) => client.createReceiver(queue, { subQueueType: "deadLetter", receiveMode: "peekLock" });
  /**
   * Peeks from the start of the sub-queue, page by page, until `stop` says so or nothing is left.
   * Each page names where it starts: without it the SDK goes on from the last message any receiver of
   * the client peeked on that queue, so a second listing would start where the first ended.
   */
  const peek = async (queue: string, stop: (seen: ServiceBusReceivedMessage[]) => boolean) => {
    const receiver = receiverOf(queue);
    const seen: ServiceBusReceivedMessage[] = [];
    // Loaded here, as the SDK is: only a Service Bus command needs it.
    let from = (require("long") as typeof Long).ONE;
    try {
      for (;;) {
        const page = await receiver.peekMessages(PAGE, { fromSequenceNumber: from });
        seen.push(...page);
        if (page.length === 0 || stop(seen)) return seen;
        from = page[page.length - 1]!.sequenceNumber!.add(1);
      }
    } catch (error) {
      throw translateServiceBusError(error);
    } finally {
      await receiver.close().catch(() => undefined);
    }
  };
  return {
    async list(queue, max) {
      const seen = await peek(queue, (s) => s.length >= max);
      return seen.slice(0, max).map((m) => withoutBody(fromServiceBus(queue, m)));
    },
    async show(queue, sequenceNumber) {
      const seen = await peek(queue, (s) => s.some((m) => sequenceOf(m) === sequenceNumber));
      const found = seen.find((m) => sequenceOf(m) === sequenceNumber);
      return found && fromServiceBus(queue, found);
    },
    async resubmit(queue, sequenceNumbers) {
      const wanted = sequenceNumbers === "all" ? undefined : new Set(sequenceNumbers);
      const receiver = receiverOf(queue);
      const sender = client.createSender(queue);
      const held: ServiceBusReceivedMessage[] = [];
      const result: ResubmitResult = { resubmitted: [], missing: [] };
      try {
        while (wanted === undefined || result.resubmitted.length < wanted.size) {
          const batch = await receiver.receiveMessages(PAGE, { maxWaitTimeInMs: RECEIVE_WAIT_MS });
          if (batch.length === 0) break;
          for (const message of batch) {
            const sequenceNumber = sequenceOf(message);
            if (wanted && !wanted.has(sequenceNumber)) {
              held.push(message);
              continue;
            }
            const messageId = resubmittedMessageId(String(message.messageId), sequenceNumber);
            await sender.sendMessages({ messageId, body: message.body, contentType: message.contentType ?? "application/json", applicationProperties: message.applicationProperties });
            await receiver.completeMessage(message);
            result.resubmitted.push({ sequenceNumber, messageId });
          }
        }
        for (const message of held) await receiver.abandonMessage(message);
      } catch (error) {
        throw translateServiceBusError(error);
      } finally {
        await sender.close().catch(() => undefined);
        await receiver.close().catch(() => undefined);
      }
      const done = new Set(result.resubmitted.map((r) => r.sequenceNumber));
      result.missing = wanted ? [...wanted].filter((n) => !done.has(n)) : [];
      return result;
    },
  };
}

function sequenceOf(message: ServiceBusReceivedMessage): string {
  return message.sequenceNumber === undefined ? "" : message.sequenceNumber.toString();
}

function fromServiceBus(queue: string, m: ServiceBusReceivedMessage): DeadLetterDetail {
  return {
    queue,
    sequenceNumber: sequenceOf(m),
    messageId: String(m.messageId),
    reason: m.deadLetterReason ?? "",
    description: m.deadLetterErrorDescription ?? null,
    deliveryCount: m.deliveryCount ?? 0,
    enqueuedAt: m.enqueuedTimeUtc ? m.enqueuedTimeUtc.toISOString() : null,
    body: m.body,
  };
}

function withoutBody({ body: _body, ...summary }: DeadLetterDetail): DeadLetterSummary {
  return summary;
}
