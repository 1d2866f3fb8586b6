import type { ServiceBusMessage, ServiceBusReceivedMessage } from "@azure/service-bus";
import Long from "long";
import { describe, expect, it } from "vitest";
import { runDlq } from "../../scripts/dlq";
import { ConfigError } from "../../shared/platform/config/config";
import {
  inProcessDeadLetters,
  resubmittedMessageId,
  serviceBusDeadLetters,
  type DeadLetterClientLike,
  type DeadLetterReceiverLike,
} from "../../shared/platform/queue/dead-letters";
import { InProcessQueue } from "../../shared/platform/queue/in-process/in-process-queue";
import { withScheduledRetries } from "../../shared/platform/queue/scheduled-retry";
import { silentLogger } from "../../shared/platform/logger";
import { waitFor } from "../support/wait-for";

// No broker runs here: the Service Bus adapter is checked against a fake of the SDK's receiver and
// sender, which keeps a dead-letter sub-queue per queue with peek-lock semantics.

interface Stored {
  message: ServiceBusReceivedMessage;
  locked: boolean;
}

class FakeNamespace implements DeadLetterClientLike {
  readonly deadLetters = new Map<string, Stored[]>();
  readonly sent = new Map<string, ServiceBusMessage[]>();
  readonly log: string[] = [];
  private sequence = 100;

  deadLetter(queue: string, messageId: string, body: unknown, deliveryCount = 10): string {
    const sequenceNumber = String(this.sequence++);
    const message = {
      messageId,
      body,
      contentType: "application/json",
      deliveryCount,
      sequenceNumber: Long.fromString(sequenceNumber),
      enqueuedTimeUtc: new Date("2025-06-01T12:00:00Z"),
      deadLetterReason: "MaxDeliveryCountExceeded",
      deadLetterErrorDescription: "Message could not be consumed after 10 delivery attempts.",
    } as unknown as ServiceBusReceivedMessage;
    this.stored(queue).push({ message, locked: false });
    return sequenceNumber;
  }

  stored(queue: string): Stored[] {
    if (!this.deadLetters.has(queue)) this.deadLetters.set(queue, []);
    return this.deadLetters.get(queue)!;
  }

  createReceiver(queue: string, options: { subQueueType: "deadLetter"; receiveMode: "peekLock" }): DeadLetterReceiverLike {
    expect(options).toEqual({ subQueueType: "deadLetter", receiveMode: "peekLock" });
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the receiver's methods below have a `this` of their own
    const fake = this;
    const find = (m: ServiceBusReceivedMessage) => fake.stored(queue).find((s) => s.message === m);
    return {
      async peekMessages(max, { fromSequenceNumber }) {
        fake.log.push(`peek ${queue}`);
        const page = fake.stored(queue).filter((s) => s.message.sequenceNumber!.greaterThanOrEqual(fromSequenceNumber)).slice(0, max);
        return page.map((s) => s.message);
      },
      async receiveMessages(max) {
        fake.log.push(`receive ${queue}`);
        const free = fake.stored(queue).filter((s) => !s.locked).slice(0, max);
        for (const s of free) s.locked = true;
        return free.map((s) => s.message);
      },
      async completeMessage(m) {
        fake.log.push(`complete ${queue} ${m.messageId}`);
        const list = fake.stored(queue);
        list.splice(list.indexOf(find(m)!), 1);
      },
      async abandonMessage(m) {
        fake.log.push(`abandon ${queue} ${m.messageId}`);
        find(m)!.locked = false;
      },
      async close() {
        for (const s of fake.stored(queue)) s.locked = false;
      },
    };
  }

  createSender(queue: string) {
    return {
      sendMessages: async (message: ServiceBusMessage) => {
        this.log.push(`send ${queue} ${message.messageId}`);
        if (!this.sent.has(queue)) this.sent.set(queue, []);
        this.sent.get(queue)!.push(message);
      },
      close: async () => {},
    };
  }
}

async function run(argv: string[], fake: FakeNamespace) {
  const lines: string[] = [];
  const code = await runDlq(argv, {}, (l) => lines.push(l), { deadLetters: serviceBusDeadLetters(fake) });
  return { code, lines, out: lines.join("\n") };
}

describe("npm run dlq against Service Bus (fake)", () => {
  it("lists every queue's dead letters with why they died, by peeking: nothing is locked or removed", async () => {
    const fake = new FakeNamespace();
    const seq = fake.deadLetter("deliveries", "e1:w1|retry:5", { webhookId: "w1" });
    const { code, lines } = await run(["list"], fake);
    expect(code).toBe(0);
    expect(lines[0]).toBe("events: no dead letters");
    expect(lines[1]).toBe("deliveries: 1 dead letter(s)");
    expect(lines[2]).toBe(
      `  #${seq}  e1:w1|retry:5  deliveries 10  enqueued 2025-06-01T12:00:00.000Z  MaxDeliveryCountExceeded: Message could not be consumed after 10 delivery attempts.`,
    );
    expect(fake.log.every((l) => l.startsWith("peek"))).toBe(true);
    expect(fake.stored("deliveries")).toHaveLength(1);
  });

  it("pages through a long dead-letter queue and stops at --max", async () => {
    const fake = new FakeNamespace();
    for (let i = 0; i < 250; i++) fake.deadLetter("events", `e${i}`, { i });
    const { lines } = await run(["list", "events", "--max", "120"], fake);
    expect(lines[0]).toBe("events: 120+ dead letter(s)");
    expect(lines).toHaveLength(121);
    expect(fake.log.filter((l) => l === "peek events")).toHaveLength(2);
  });

  it("peeks from the start of the sub-queue every time, so a second command on the same client sees every dead letter", async () => {
    const fake = new FakeNamespace();
    const deadLetters = serviceBusDeadLetters(fake);
    const [first] = ["a", "b"].map((id) => fake.deadLetter("events", id, { id }));
    expect((await deadLetters.list("events", 10)).map((d) => d.messageId)).toEqual(["a", "b"]);
    expect((await deadLetters.list("events", 10)).map((d) => d.messageId)).toEqual(["a", "b"]);
    expect(await deadLetters.show("events", first!)).toMatchObject({ messageId: "a" });
  });

  it("shows one dead letter with its body, and answers 1 for a number that is not there", async () => {
    const fake = new FakeNamespace();
    fake.deadLetter("events", "a", { n: 1 });
    const seq = fake.deadLetter("events", "b", { envelope: { id: "evt-2" } });
    const shown = await run(["show", "events", seq], fake);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ queue: "events", sequenceNumber: seq, messageId: "b", body: { envelope: { id: "evt-2" } } });
    const missing = await run(["show", "events", "999"], fake);
    expect(missing).toMatchObject({ code: 1, lines: ["events: no dead letter #999"] });
  });

  it("resubmits the chosen dead letters to their queue under a new id, removes only those, and leaves the rest", async () => {
    const fake = new FakeNamespace();
    const keep = fake.deadLetter("deliveries", "keep", { n: 0 });
    const first = fake.deadLetter("deliveries", "e1:w1|retry:5", { n: 1 });
    const { code, lines } = await run(["resubmit", "deliveries", first, "12345"], fake);
    expect(code).toBe(1); // one number was not there
    const newId = resubmittedMessageId("e1:w1|retry:5", first);
    expect(newId).toBe(`e1:w1|resubmit:${first}`);
    expect(lines).toEqual([`deliveries: resubmitted #${first} as ${newId}`, "deliveries: no dead letter #12345"]);
    expect(fake.sent.get("deliveries")).toEqual([{ messageId: newId, body: { n: 1 }, contentType: "application/json", applicationProperties: undefined }]);
    // Sent before it was removed: a crash in between leaves the dead letter, never loses it.
    expect(fake.log.indexOf(`send deliveries ${newId}`)).toBeLessThan(fake.log.indexOf("complete deliveries e1:w1|retry:5"));
    expect(fake.stored("deliveries").map((s) => s.message.messageId)).toEqual(["keep"]);
    expect(fake.log).toContain("abandon deliveries keep");
    expect(fake.stored("deliveries")[0]!.locked).toBe(false);
    expect(keep).not.toBe(first);
  });

  it("resubmits everything with --all", async () => {
    const fake = new FakeNamespace();
    for (const id of ["a", "b", "c"]) fake.deadLetter("events", id, { id });
    const { code, lines } = await run(["resubmit", "events", "--all"], fake);
    expect(code).toBe(0);
    expect(lines).toHaveLength(3);
    expect(fake.stored("events")).toEqual([]);
    expect(fake.sent.get("events")!.map((m) => m.body)).toEqual([{ id: "a" }, { id: "b" }, { id: "c" }]);
  });

  it("refuses an unknown queue, a missing number, and numbers together with --all", async () => {
    const fake = new FakeNamespace();
    await expect(run(["list", "nope"], fake)).rejects.toThrow(ConfigError);
    await expect(run(["show", "events"], fake)).rejects.toThrow(/sequence number/);
    await expect(run(["resubmit", "events", "1", "--all"], fake)).rejects.toThrow(/either/);
    await expect(run(["resubmit", "events"], fake)).rejects.toThrow(/either/);
    await expect(run(["frobnicate"], fake)).rejects.toThrow(/usage/);
  });
});

describe("npm run dlq against the in-process queue", () => {
  it("a message that used up its retries is listed, resubmitted, and then handled", async () => {
    const queue = new InProcessQueue<{ n: number }>({ name: "events", maxDeliveryCount: 2 });
    let healthy = false;
    const handled: string[] = [];
    queue.subscribe(
      withScheduledRetries(
        async (m) => {
          if (!healthy) throw new Error("store down");
          handled.push(m.messageId);
        },
        { queue, logger: silentLogger, delaysMs: [10] },
      ),
    );
    await queue.send([{ messageId: "evt-1", body: { n: 1 } }]);
    await waitFor(() => queue.stats().deadLettered === 1, "the message to be dead-lettered");

    const deadLetters = inProcessDeadLetters([queue as InProcessQueue<unknown>]);
    const lines: string[] = [];
    await runDlq(["list", "events"], {}, (l) => lines.push(l), { deadLetters });
    expect(lines).toEqual(["events: 1 dead letter(s)", expect.stringMatching(/^ {2}#1 {2}evt-1\|retry:1 {2}deliveries 2 .* MaxDeliveryCountExceeded: /)]);

    healthy = true;
    lines.length = 0;
    expect(await runDlq(["resubmit", "events", "1"], {}, (l) => lines.push(l), { deadLetters })).toBe(0);
    expect(lines).toEqual(["events: resubmitted #1 as evt-1|resubmit:1"]);
    await waitFor(() => handled.length === 1, "the resubmitted message to be handled");
    expect(handled).toEqual(["evt-1|resubmit:1"]);
    expect(queue.stats().deadLettered).toBe(0);
    await queue.close();
  });
});
