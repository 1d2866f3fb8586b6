import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeadLetterQueues } from "../../shared/platform/queue/dead-letters";
import type { MessageHandler, QueueSender, ReceivedMessage } from "../../shared/platform/queue/queue";
import { waitFor } from "../support/wait-for";

export interface Body {
  n: number;
  tags?: string[];
  nested?: { when: string; ok: boolean; none: null };
  pad?: string;
}

/** What a fixture's queue is configured with (Service Bus: the queue's properties and the host's). */
export interface QueueFixtureOptions {
  maxDeliveryCount: number;
  lockDurationMs: number;
  /** Handlers running at once. */
  maxConcurrentCalls: number;
}

export interface QueueFixture {
  /** The adapter's sender, on a queue named `events`: the port under test. */
  queue: QueueSender<Body>;
  /** Starts delivering the queue's messages to `handler`, as the queue's host does. */
  subscribe(handler: MessageHandler<Body>): void;
  /** Messages the queue still holds: ready, being handled, or scheduled. */
  pending(): Promise<number>;
  /** The queue's dead letters, through the operator's adapter (`npm run dlq`). */
  deadLetters: DeadLetterQueues;
  teardown(): Promise<void>;
}

/** How long a test waits for an outcome before it fails naming it. */
const WAIT = 10_000;
const DEFAULTS: QueueFixtureOptions = { maxDeliveryCount: 10, lockDurationMs: 30_000, maxConcurrentCalls: 4 };

/**
 * What every queue adapter, with its host, must do: the promises of the queue port
 * (shared/platform/queue/queue.ts), pinned once and run against the in-process queue and against
 * Service Bus (the real SDK over the AMQP stand-in, with the Functions trigger adapter).
 *
 * Waits are for outcomes, never for a fixed time, and times are only compared one way (a scheduled
 * message is never handled before its time), so that a slow machine cannot fail them.
 */
export function describeQueueContract(name: string, setup: (options: QueueFixtureOptions) => Promise<QueueFixture>): void {
  // Over a socket, a test takes up to a few seconds (a receive window, lock expiries): not the default five.
  describe(`${name} queue`, { timeout: 20_000 }, () => {
    const fixtures: QueueFixture[] = [];
    const releases: (() => void)[] = [];
    const open = async (options: Partial<QueueFixtureOptions> = {}) => {
      const fixture = await setup({ ...DEFAULTS, ...options });
      fixtures.push(fixture);
      return fixture;
    };
    /** A handler's promise that the test settles, or the teardown does. */
    const held = () => {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      releases.push(resolve);
      return { promise, resolve, reject };
    };
    const settled = async (fixture: QueueFixture) => waitFor(async () => (await fixture.pending()) === 0, "the queue to hold nothing", WAIT);

    beforeEach(() => {
      releases.length = 0;
    });
    afterEach(async () => {
      for (const release of releases.splice(0)) release();
      await Promise.all(fixtures.splice(0).map((f) => f.teardown()));
    });

    it("delivers each message once, with its id, its JSON body, deliveryCount 1 and when it was enqueued, and completes it when the handler resolves", async () => {
      const fixture = await open();
      const before = Date.now();
      const body: Body = { n: 1, tags: ["é", "🔒", ""], nested: { when: "2025-01-02T03:04:05.000Z", ok: true, none: null } };
      // Sent before anyone subscribes: the messages wait.
      await fixture.queue.send([
        { messageId: "a", body },
        { messageId: "b", body: { n: 2 } },
      ]);
      const seen: ReceivedMessage<Body>[] = [];
      fixture.subscribe(async (m) => void seen.push(m));
      await settled(fixture);

      expect(seen.map((m) => [m.messageId, m.body, m.deliveryCount]).sort()).toEqual([
        ["a", body, 1],
        ["b", { n: 2 }, 1],
      ]);
      for (const m of seen) {
        expect(m.enqueuedAt).toBeInstanceOf(Date);
        expect(m.enqueuedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      }
      expect(await fixture.deadLetters.list(fixture.queue.queueName, 10)).toEqual([]);
    });

    it("redelivers a message whose handler throws, with deliveryCount + 1", async () => {
      const fixture = await open();
      const seen: string[] = [];
      fixture.subscribe(async (m) => {
        seen.push(`${m.messageId}#${m.deliveryCount}`);
        if (m.messageId === "a" && m.deliveryCount === 1) throw new Error("vendor down");
      });
      await fixture.queue.send([
        { messageId: "a", body: { n: 1 } },
        { messageId: "b", body: { n: 2 } },
      ]);
      await settled(fixture);
      expect(seen.sort()).toEqual(["a#1", "a#2", "b#1"]);
    });

    it("dead-letters a message after maxDeliveryCount deliveries; the operator lists, shows and resubmits it under a new id", async () => {
      const fixture = await open({ maxDeliveryCount: 3 });
      const queue = fixture.queue.queueName;
      let healthy = false;
      const tries: string[] = [];
      fixture.subscribe(async (m) => {
        tries.push(`${m.messageId}#${m.deliveryCount}`);
        if (!healthy) throw new Error("store down");
      });
      const body: Body = { n: 7, tags: ["x"] };
      await fixture.queue.send([{ messageId: "poison", body }]);
      const [dead] = await waitFor(async () => {
        const letters = await fixture.deadLetters.list(queue, 10);
        return letters.length > 0 && letters;
      }, "the message to be dead-lettered", WAIT);
      expect(tries).toEqual(["poison#1", "poison#2", "poison#3"]);
      expect(dead).toMatchObject({ queue, messageId: "poison", reason: "MaxDeliveryCountExceeded", deliveryCount: 3 });
      expect(typeof dead!.description).toBe("string");
      expect(await fixture.deadLetters.show(queue, dead!.sequenceNumber)).toMatchObject({ messageId: "poison", body });
      expect(await fixture.pending()).toBe(0);

      healthy = true;
      const result = await fixture.deadLetters.resubmit(queue, [dead!.sequenceNumber]);
      expect(result).toEqual({ resubmitted: [{ sequenceNumber: dead!.sequenceNumber, messageId: `poison|resubmit:${dead!.sequenceNumber}` }], missing: [] });
      await waitFor(() => tries.includes(`poison|resubmit:${dead!.sequenceNumber}#1`), "the resubmitted message to be handled", WAIT);
      await settled(fixture);
      expect(await fixture.deadLetters.list(queue, 10)).toEqual([]);
    });

    it("keeps a scheduled message invisible until its time, then delivers it", async () => {
      const fixture = await open();
      const handled: { id: string; at: number; message: ReceivedMessage<Body> }[] = [];
      fixture.subscribe(async (m) => void handled.push({ id: m.messageId, at: Date.now(), message: m }));
      const at = new Date(Date.now() + 400);
      await fixture.queue.schedule([{ messageId: "later", body: { n: 1 } }], at);
      await fixture.queue.schedule([{ messageId: "overdue", body: { n: 2 } }], new Date(Date.now() - 60_000));
      await fixture.queue.schedule([{ messageId: "next-hour", body: { n: 3 } }], new Date(Date.now() + 3_600_000));

      await waitFor(() => handled.length === 2, "the due messages to be handled", WAIT);
      const later = handled.find((h) => h.id === "later")!;
      expect(handled.map((h) => h.id).sort()).toEqual(["later", "overdue"]);
      expect(later.at).toBeGreaterThanOrEqual(at.getTime());
      // Enqueued when it became visible, not when it was scheduled.
      expect(later.message.enqueuedAt.getTime()).toBeGreaterThanOrEqual(at.getTime() - 50);
      expect(later.message.deliveryCount).toBe(1);
      // The two handled are completed once their handlers return (over AMQP, a moment later);
      // the next hour's stays behind, and is never handed out.
      await waitFor(async () => (await fixture.pending()) === 1, "the handled messages to be completed", WAIT);
      expect(handled.map((h) => h.id).sort()).toEqual(["later", "overdue"]);
    });

    it("drops a message id it accepted before, on send and on schedule, counting a scheduled one from when it was scheduled", async () => {
      const fixture = await open();
      const seen: string[] = [];
      fixture.subscribe(async (m) => void seen.push(`${m.messageId}:${m.body.n}`));
      await fixture.queue.send([{ messageId: "a", body: { n: 1 } }]);
      await fixture.queue.schedule([{ messageId: "retry-1", body: { n: 1 } }], new Date(Date.now() + 3_600_000));
      // Resending after a failure is safe: whatever was accepted is not accepted twice.
      await fixture.queue.send([
        { messageId: "a", body: { n: 2 } },
        { messageId: "b", body: { n: 1 } },
        { messageId: "b", body: { n: 2 } },
        { messageId: "retry-1", body: { n: 2 } },
      ]);
      await fixture.queue.schedule([{ messageId: "a", body: { n: 3 } }], new Date(Date.now() - 1000));
      // Everything accepted has been handled once only the scheduled message is left.
      await waitFor(async () => (await fixture.pending()) === 1, "only the scheduled message to be left", WAIT);
      expect(seen.sort()).toEqual(["a:1", "b:1"]);
    });

    it("delivers every message of a send larger than one batch, once", async () => {
      const fixture = await open({ maxConcurrentCalls: 16 });
      const seen = new Map<string, number>();
      fixture.subscribe(async (m) => void seen.set(m.messageId, (seen.get(m.messageId) ?? 0) + 1));
      // 300 messages of about 2 KB: more than one Service Bus batch of 256 KB.
      const messages = Array.from({ length: 300 }, (_, i) => ({ messageId: `m${i}`, body: { n: i, pad: "x".repeat(2000) } }));
      await fixture.queue.send(messages);
      await waitFor(() => seen.size === 300, "every message to be handled", WAIT);
      await settled(fixture);
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
    });

    it("keeps a message being handled from other handlers, and redelivers it when its handler outlives the lock; the late completion changes nothing", async () => {
      const fixture = await open({ lockDurationMs: 500 });
      const first = held();
      const seen: string[] = [];
      fixture.subscribe(async (m) => {
        seen.push(`${m.messageId}#${m.deliveryCount}`);
        // The first delivery hangs, like a worker that stopped mid-way.
        if (m.messageId === "a" && m.deliveryCount === 1) return first.promise;
      });
      await fixture.queue.send([{ messageId: "a", body: { n: 1 } }]);
      await waitFor(() => seen.length === 1, "the first delivery", WAIT);
      await fixture.queue.send([{ messageId: "b", body: { n: 2 } }]);
      await waitFor(() => seen.includes("b#1"), "a later message to be handled while the first is held", WAIT);
      expect(seen.filter((s) => s.startsWith("a"))).toEqual(["a#1"]);

      await waitFor(() => seen.includes("a#2"), "the redelivery once the lock expired", WAIT);
      await settled(fixture);
      // The stopped worker comes back and completes: too late, the message was handled again.
      first.resolve();
      await fixture.queue.send([{ messageId: "c", body: { n: 3 } }]);
      await waitFor(() => seen.includes("c#1"), "the queue to go on", WAIT);
      await settled(fixture);
      expect(seen.sort()).toEqual(["a#1", "a#2", "b#1", "c#1"]);
      expect(await fixture.deadLetters.list(fixture.queue.queueName, 10)).toEqual([]);
    });

    it("dead-letters a message whose handler outlives the lock on its last delivery", async () => {
      const fixture = await open({ lockDurationMs: 300, maxDeliveryCount: 2 });
      fixture.subscribe(() => held().promise);
      await fixture.queue.send([{ messageId: "stuck", body: { n: 1 } }]);
      const [dead] = await waitFor(async () => {
        const letters = await fixture.deadLetters.list(fixture.queue.queueName, 10);
        return letters.length > 0 && letters;
      }, "the message to be dead-lettered", WAIT);
      expect(dead).toMatchObject({ messageId: "stuck", deliveryCount: 2, reason: "MaxDeliveryCountExceeded" });
    });

    it("answers a ping without sending anything", async () => {
      const fixture = await open();
      await fixture.queue.ping?.();
      expect(await fixture.pending()).toBe(0);
    });
  });
}
