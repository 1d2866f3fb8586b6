import { InvocationContext } from "@azure/functions";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../shared/platform/logger";
import { InProcessQueue } from "../../shared/platform/queue/in-process/in-process-queue";
import type { OutgoingMessage, QueueSender, ReceivedMessage } from "../../shared/platform/queue/queue";
import { retryMessageId, retryNumberOf, withScheduledRetries } from "../../shared/platform/queue/scheduled-retry";
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

describe("scheduled retries on the in-process queue", () => {
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

    await waitFor(() => queue.stats().deadLettered === 1, "the message to be dead-lettered", 5000);
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
    await waitFor(() => queue.stats().delivered === 2, "the original and its retry to complete", 5000);
    expect(calls).toBe(2);
    expect(queue.stats()).toMatchObject({ deadLettered: 0, scheduled: 0, ready: 0, inFlight: 0 });
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
    expect(scheduled[0]!.messages).toEqual([{ messageId: "e1:w1|retry:1", body: { n: 7 } }]);
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
      triggerMetadata: { messageId: "e1|retry:5", deliveryCount: 2, enqueuedTimeUtc: "2025-01-02T03:04:05Z" },
    });
    await expect(trigger({ n: 1 }, context)).rejects.toThrow(/used up its retries/);
    expect(runs).toBe(0);
    expect(lines.map((l) => l.message)).toEqual(["message handler failed; message abandoned"]);
  });
});
