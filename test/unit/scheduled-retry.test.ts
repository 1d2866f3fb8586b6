import { InvocationContext } from "@azure/functions";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../shared/platform/logger";
import { InProcessQueue } from "../../shared/platform/queue/in-process/in-process-queue";
import type { OutgoingMessage, QueueSender, ReceivedMessage } from "../../shared/platform/queue/queue";
import { ladderOf, retryMessageId, retryNumberOf, withScheduledRetries } from "../../shared/platform/queue/scheduled-retry";
import { serviceBusTriggerHandler } from "../../shared/hosts/azure/service-bus-trigger";
import { waitFor } from "../support/wait-for";

interface Body {
  n: number;
}

function recordingLogger() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields: Record<string, unknown> = {}) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

describe("retry message ids", () => {
  it("carry the retry number after the original id, and parse back", () => {
    expect(retryNumberOf("e1:w1")).toBe(0);
    expect(retryMessageId("e1:w1", 1)).toBe("e1:w1|retry:1");
    expect(retryMessageId("e1:w1|retry:1", 2)).toBe("e1:w1|retry:2");
    expect(retryNumberOf("e1:w1|retry:2")).toBe(2);
  });

  it("stay within Service Bus's 128 characters and stable across retries when the original is long", () => {
    const long = "x".repeat(125);
    const first = retryMessageId(long, 1);
    expect(first.length).toBeLessThanOrEqual(128);
    expect(retryMessageId(first, 2)).toBe(first.replace(/\|retry:1$/, "|retry:2"));
    expect(retryMessageId(long, 1)).toBe(first);
    expect(retryMessageId("y".repeat(125), 1)).not.toBe(first);
  });
});

// A wait ends as soon as its outcome is there; its bound (waitFor's default) is only how long a
// failure takes to report.
describe("scheduled retries on the in-process queue", { timeout: 90_000 }, () => {
  it("tries a failing message again after each delay, not at once, then dead-letters it without more tries", async () => {
    const delays = [40, 80];
    const queue = new InProcessQueue<Body>({ name: "events", maxDeliveryCount: 4 });
    const { logger, lines } = recordingLogger();
    const tries: { at: number; message: ReceivedMessage<Body> }[] = [];
    const started = performance.now();
    queue.subscribe(
      withScheduledRetries(
        async (message) => {
          tries.push({ at: performance.now() - started, message });
          throw new Error("Cosmos throttled the request");
        },
        { queue, logger, delaysMs: delays },
      ),
    );
    await queue.send([{ messageId: "e1", body: { n: 1 } }]);

    await waitFor(() => queue.stats().deadLettered === 1, "the message to be dead-lettered");
    expect(tries.map((t) => t.message.messageId)).toEqual(["e1", "e1|retry:1", "e1|retry:2"]);
    // Each try waited for its delay (the in-process queue does not run a scheduled message early).
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(delays[0]! - 5);
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(delays[1]! - 5);
    const [dead] = queue.deadLetters();
    expect(dead!.message).toMatchObject({ messageId: "e1|retry:2", body: { n: 1 }, deliveryCount: 4 });
    expect(lines.filter((l) => l.message === "message handler failed; retry scheduled").map((l) => l.fields)).toEqual([
      expect.objectContaining({ queue: "events", messageId: "e1", nextRetry: 1, error: "Cosmos throttled the request" }),
      expect.objectContaining({ queue: "events", messageId: "e1|retry:1", nextRetry: 2 }),
    ]);
    expect(lines.some((l) => l.level === "error" && l.fields.messageId === "e1|retry:2")).toBe(true);
    await queue.close();
  });

  it("completes a message whose retry succeeds: nothing dead-lettered, nothing left", async () => {
    const queue = new InProcessQueue<Body>({ name: "deliveries" });
    let calls = 0;
    queue.subscribe(
      withScheduledRetries(
        async () => {
          if (++calls === 1) throw new Error("transient");
        },
        { queue, logger: recordingLogger().logger, delaysMs: [20] },
      ),
    );
    await queue.send([{ messageId: "d1", body: { n: 1 } }]);
    await waitFor(() => queue.stats().delivered === 2, "the original and its retry to complete");
    expect(calls).toBe(2);
    expect(queue.stats()).toMatchObject({ deadLettered: 0, scheduled: 0, ready: 0, inFlight: 0 });
    await queue.close();
  });

  it("starts the retries over for a dead letter sent back as it is (same id and properties, hours later)", async () => {
    let offset = 0;
    const now = () => new Date(Date.now() + offset);
    const queue = new InProcessQueue<Body>({ name: "events", maxDeliveryCount: 2, duplicateDetectionWindowMs: 60_000, now });
    const tries: string[] = [];
    queue.subscribe(
      withScheduledRetries(
        async (message) => {
          tries.push(message.messageId);
          throw new Error("store down");
        },
        { queue, logger: recordingLogger().logger, now, delaysMs: [20] },
      ),
    );
    await queue.send([{ messageId: "e1", body: { n: 1 } }]);
    await waitFor(() => queue.stats().deadLettered === 1, "the message to be dead-lettered");
    expect(tries).toEqual(["e1", "e1|retry:1"]);

    // Two hours later an operator sends the dead letter back as it is, as the portal's Service Bus
    // Explorer does: it gets its tries again, under ids of its own, and is dead-lettered after them.
    offset = 2 * 3_600_000;
    const [dead] = queue.removeDeadLetters([1]);
    await queue.send([{ messageId: dead!.message.messageId, body: dead!.message.body, properties: dead!.message.properties as Record<string, string> }]);
    await waitFor(() => queue.stats().deadLettered === 1, "the copy to be dead-lettered in turn");
    const resent = tries.slice(2);
    expect(resent).toEqual(["e1|retry:1", expect.stringMatching(/^e1\|resent:\d{8}T\d{6}\.\d{3}Z\|retry:1$/)]);
    expect(queue.deadLetters()[0]!.message.messageId).toBe(resent[1]);
    await queue.close();
  });

  it("abandons (the queue's own redelivery) when the retry cannot be scheduled", async () => {
    const failingSchedule: QueueSender<Body> = {
      queueName: "events",
      send: async () => {},
      schedule: async () => {
        throw new Error("queue unavailable");
      },
    };
    const { logger, lines } = recordingLogger();
    const handler = withScheduledRetries<Body>(
      async () => {
        throw new Error("store down");
      },
      { queue: failingSchedule, logger },
    );
    await expect(handler({ messageId: "m", body: { n: 1 }, deliveryCount: 1, enqueuedAt: new Date() })).rejects.toThrow("store down");
    expect(lines[0]).toMatchObject({ message: expect.stringContaining("could not be scheduled"), fields: { scheduleError: "queue unavailable" } });
  });
});

describe("Service Bus trigger with scheduled retries", () => {
  it("schedules the failed message on its queue after the first delay and completes the delivery", async () => {
    const scheduled: { messages: readonly OutgoingMessage<Body>[]; at: Date }[] = [];
    const retries: QueueSender<Body> = {
      queueName: "deliveries",
      send: async () => {},
      schedule: async (messages, at) => void scheduled.push({ messages, at }),
    };
    const { logger, lines } = recordingLogger();
    const before = Date.now();
    const trigger = serviceBusTriggerHandler<Body>(() => ({
      handler: async () => {
        throw new Error("store down");
      },
      retries,
      logger,
    }));
    const context = new InvocationContext({
      functionName: "webhook-delivery",
      triggerMetadata: { messageId: "e1:w1", deliveryCount: 1, enqueuedTimeUtc: "2025-01-02T03:04:05Z" },
    });
    await expect(trigger({ n: 7 }, context)).resolves.toBeUndefined();
    expect(scheduled).toHaveLength(1);
    // The retry carries when it is due: what tells it from a copy re-sent later.
    expect(scheduled[0]!.messages).toEqual([{ messageId: "e1:w1|retry:1", body: { n: 7 }, properties: { retryDueAt: scheduled[0]!.at.toISOString() } }]);
    expect(scheduled[0]!.at.getTime() - before).toBeGreaterThanOrEqual(10_000);
    expect(lines.map((l) => l.message)).toEqual(["message handler failed; retry scheduled"]);
  });

  it("throws a message that used up its retries at once on its redelivery, without running the handler", async () => {
    let runs = 0;
    const { logger, lines } = recordingLogger();
    const trigger = serviceBusTriggerHandler<Body>(() => ({
      handler: async () => void runs++,
      retries: { queueName: "events", send: async () => {}, schedule: async () => {} },
      logger,
    }));
    const context = new InvocationContext({
      functionName: "event-fan-out",
      triggerMetadata: {
        messageId: "e1|retry:5",
        deliveryCount: 2,
        // Enqueued when it was due: the fifth retry itself.
        enqueuedTimeUtc: "2025-01-02T03:04:05.2Z",
        applicationProperties: { retryDueAt: "2025-01-02T03:04:05.000Z" },
      },
    });
    await expect(trigger({ n: 1 }, context)).rejects.toThrow(/used up its retries/);
    expect(runs).toBe(0);
    expect(lines.map((l) => l.message)).toEqual(["message handler failed; message abandoned"]);
  });

  it("starts the retries over for a copy of the last retry re-sent from the portal: same id, same properties, enqueued later", async () => {
    const scheduled: OutgoingMessage<Body>[] = [];
    let runs = 0;
    const trigger = serviceBusTriggerHandler<Body>(() => ({
      handler: async () => {
        runs++;
        throw new Error("store down");
      },
      retries: { queueName: "events", send: async () => {}, schedule: async (messages) => void scheduled.push(...messages) },
      logger: recordingLogger().logger,
    }));
    const copy = {
      messageId: "e1|retry:5",
      enqueuedTimeUtc: "2025-01-02T05:00:00.000Z",
      applicationProperties: { retryDueAt: "2025-01-02T03:04:05.000Z", deadLetterReason: "MaxDeliveryCountExceeded" },
    };
    // Its first delivery runs the handler, and the failure is scheduled as the first retry of a new ladder.
    await trigger({ n: 1 }, new InvocationContext({ functionName: "event-fan-out", triggerMetadata: { ...copy, deliveryCount: 1 } }));
    expect(runs).toBe(1);
    expect(scheduled.map((m) => m.messageId)).toEqual(["e1|resent:20250102T050000.000Z|retry:1"]);
    expect(scheduled[0]!.properties).toMatchObject({ retryDueAt: expect.any(String), deadLetterReason: "MaxDeliveryCountExceeded" });
    expect(scheduled[0]!.properties!.retryDueAt).not.toBe("2025-01-02T03:04:05.000Z");
  });
});

describe("where a message stands on its retries", () => {
  const at = (iso: string) => new Date(iso);
  const message = (messageId: string, enqueuedAt: string, properties?: Record<string, unknown>): ReceivedMessage<Body> => ({
    messageId,
    body: { n: 1 },
    deliveryCount: 1,
    enqueuedAt: at(enqueuedAt),
    ...(properties ? { properties } : {}),
  });

  it("an original message is at 0, whatever it carries", () => {
    expect(ladderOf(message("e1", "2025-01-02T03:04:05Z"))).toEqual({ retry: 0, id: "e1" });
    expect(ladderOf(message("e1|resubmit:7", "2025-01-02T03:04:05Z", { retryDueAt: "2020-01-01T00:00:00Z" }))).toEqual({ retry: 0, id: "e1|resubmit:7" });
  });

  it("a scheduled retry, enqueued when it was due (within a minute), is that retry", () => {
    const due = { retryDueAt: "2025-01-02T03:04:05.000Z" };
    expect(ladderOf(message("e1|retry:3", "2025-01-02T03:04:05.000Z", due))).toEqual({ retry: 3, id: "e1|retry:3" });
    expect(ladderOf(message("e1|retry:3", "2025-01-02T03:05:05.000Z", due))).toEqual({ retry: 3, id: "e1|retry:3" });
  });

  it("a copy re-sent by hand starts over, with or without the properties, under an id of its own", () => {
    const late = ladderOf(message("e1|retry:5", "2025-01-02T03:05:05.001Z", { retryDueAt: "2025-01-02T03:04:05.000Z" }));
    expect(late).toEqual({ retry: 0, id: "e1|resent:20250102T030505.001Z", resent: true });
    expect(ladderOf(message("e1|retry:5", "2025-01-02T03:05:05.001Z"))).toEqual(late);
    expect(ladderOf(message("e1|retry:5", "2025-01-02T03:05:05.001Z", { retryDueAt: "not a time" }))).toEqual(late);
    expect(retryMessageId(late.id, 1)).toBe("e1|resent:20250102T030505.001Z|retry:1");
  });
});
