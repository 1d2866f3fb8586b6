import { afterEach, describe, expect, it } from "vitest";
import { runDlq } from "../../scripts/dlq";
import { serviceBusTriggerHandler } from "../../shared/hosts/azure/service-bus-trigger";
import { silentLogger } from "../../shared/platform/logger";
import type { MessageHandler, ReceivedMessage } from "../../shared/platform/queue/queue";
import { queueNames } from "../../shared/platform/queue/queue-names";
import { withScheduledRetries } from "../../shared/platform/queue/scheduled-retry";
import { createServiceBusClient, createServiceBusQueueSender } from "../../shared/platform/queue/service-bus/service-bus-queue";
import { hostServiceBusTrigger } from "../support/service-bus-host";
import { startServiceBusStandIn, type ServiceBusStandIn, type StandInQueueOptions } from "../support/service-bus-stand-in";
import { waitFor } from "../support/wait-for";

// Scheduled retries and `npm run dlq` against a namespace: the trigger's retry ladder over the
// production sender, and the dlq command as an operator runs it (its own client, from the connection
// string in SERVICEBUS), with the real @azure/service-bus client over AMQP to the stand-in.

interface Body {
  n: number;
}

/** How long a test waits for an outcome before it fails naming it. */
const WAIT = 10_000;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/**
 * A namespace with the service's queues, `events` as configured, and the events trigger hosted with
 * `handler`. The broker and the retries read `clock` (the process's time plus `clock.offset`).
 */
async function eventsTrigger(events: StandInQueueOptions, handler: MessageHandler<Body>, delaysMs?: number[], clock = { offset: 0 }) {
  const queues = Object.fromEntries(Object.values(queueNames).map((name) => [name, name === queueNames.events ? events : {}]));
  const now = () => Date.now() + clock.offset;
  const bus = await startServiceBusStandIn({ queues, now });
  open.push(bus);
  const client = createServiceBusClient({ connectionString: bus.connectionString });
  open.push(client);
  const retries = createServiceBusQueueSender<Body>(client, queueNames.events);
  const run = delaysMs ? withScheduledRetries(handler, { queue: retries, logger: silentLogger, delaysMs, now: () => new Date(now()) }) : handler;
  open.push(hostServiceBusTrigger(client, queueNames.events, serviceBusTriggerHandler<Body>(() => run)));
  return { bus, client, retries };
}

/** `npm run dlq -- <argv>` with the namespace's connection string, as the command reads it. */
async function dlq(bus: ServiceBusStandIn, ...argv: string[]) {
  const lines: string[] = [];
  const code = await runDlq(argv, { SERVICEBUS: bus.connectionString }, (line) => lines.push(line));
  return { code, lines };
}

// Each test waits out real retry delays and receive windows: seconds, not the default five.
describe("scheduled retries and npm run dlq over AMQP", { timeout: 20_000 }, () => {
  it("a failing message is tried again on schedule, dead-lettered once its retries are used up, then listed, shown and resubmitted", async () => {
    const delays = [300, 600];
    let healthy = false;
    const tries: { at: number; message: ReceivedMessage<Body> }[] = [];
    const { bus, retries } = await eventsTrigger(
      { maxDeliveryCount: 3 },
      async (message) => {
        tries.push({ at: Date.now(), message });
        if (!healthy) throw new Error("store down");
      },
      delays,
    );
    await retries.send([{ messageId: "e1", body: { n: 1 } }]);
    await waitFor(() => bus.deadLetters(queueNames.events).length === 1, "the message to be dead-lettered", WAIT);

    // Each retry is a scheduled message under the next id, handled once its delay has passed; the
    // last one, its retries used up, is thrown on its redeliveries without running the handler.
    expect(tries.map((t) => [t.message.messageId, t.message.deliveryCount])).toEqual([
      ["e1", 1],
      ["e1|retry:1", 1],
      ["e1|retry:2", 1],
    ]);
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(delays[0]!);
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(delays[1]!);
    expect(bus.operations.filter((o) => o === "schedule-message events")).toHaveLength(2);

    const listed = await dlq(bus, "list");
    expect(listed.code).toBe(0);
    expect(listed.lines).toEqual([
      "events: 1 dead letter(s)",
      expect.stringMatching(/^ {2}#1 {2}e1\|retry:2 {2}deliveries 3 {2}enqueued \d{4}-\d\d-\d\dT.*Z {2}MaxDeliveryCountExceeded: Message could not be consumed after 3 delivery attempts\.$/),
      "deliveries: no dead letters",
      "reconcile: no dead letters",
      "gamebook-runs: no dead letters",
    ]);

    const shown = await dlq(bus, "show", "events", "1");
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.lines.join("\n"))).toMatchObject({ queue: "events", sequenceNumber: "1", messageId: "e1|retry:2", deliveryCount: 3, body: { n: 1 } });
    expect(await dlq(bus, "show", "events", "2")).toEqual({ code: 1, lines: ["events: no dead letter #2"] });

    healthy = true;
    expect(await dlq(bus, "resubmit", "events", "1")).toEqual({ code: 0, lines: ["events: resubmitted #1 as e1|resubmit:1"] });
    await waitFor(() => tries.some((t) => t.message.messageId === "e1|resubmit:1"), "the resubmitted message to be handled", WAIT);
    await waitFor(() => bus.stats(queueNames.events).locked === 0, "its completion", WAIT);
    expect(bus.stats(queueNames.events)).toEqual({ active: 0, scheduled: 0, locked: 0, deadLettered: 0 });
    expect((await dlq(bus, "list", "events")).lines).toEqual(["events: no dead letters"]);
  });

  it("a dead letter re-sent as it is, as the portal's Service Bus Explorer does, gets its retries again", async () => {
    const clock = { offset: 0 };
    const tries: string[] = [];
    const { bus, client, retries } = await eventsTrigger(
      { maxDeliveryCount: 2 },
      async (message) => {
        tries.push(message.messageId);
        throw new Error("store down");
      },
      [100],
      clock,
    );
    await retries.send([{ messageId: "e1", body: { n: 1 } }]);
    await waitFor(() => bus.deadLetters(queueNames.events).length === 1, "the message to be dead-lettered", WAIT);
    expect(tries).toEqual(["e1", "e1|retry:1"]);

    // Two hours later, a copy with the same id, body and properties, and the dead letter removed.
    clock.offset = 2 * 3_600_000;
    const deadLetters = client.createReceiver(queueNames.events, { subQueueType: "deadLetter" });
    const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    const sender = client.createSender(queueNames.events);
    await sender.sendMessages({ messageId: dead!.messageId, body: dead!.body, contentType: dead!.contentType, applicationProperties: dead!.applicationProperties });
    await deadLetters.completeMessage(dead!);
    await sender.close();
    await deadLetters.close();

    await waitFor(() => bus.deadLetters(queueNames.events).length === 1, "the copy to be dead-lettered after its own retries", WAIT);
    expect(tries.slice(2)).toEqual(["e1|retry:1", expect.stringMatching(/^e1\|resent:\d{8}T\d{6}\.\d{3}Z\|retry:1$/)]);
    expect(bus.deadLetters(queueNames.events)[0]!.messageId).toBe(tries[3]);
  });

  it("resubmitting one dead letter leaves the others in place", async () => {
    const handled: string[] = [];
    const { bus, retries } = await eventsTrigger({ maxDeliveryCount: 1 }, async (m) => {
      handled.push(m.messageId);
      if (!m.messageId.includes("|resubmit:")) throw new Error("rejected");
    });
    await retries.send([
      { messageId: "a", body: { n: 1 } },
      { messageId: "b", body: { n: 2 } },
    ]);
    await waitFor(() => bus.deadLetters(queueNames.events).length === 2, "both to be dead-lettered", WAIT);

    expect(await dlq(bus, "resubmit", "events", "2")).toEqual({ code: 0, lines: ["events: resubmitted #2 as b|resubmit:2"] });
    await waitFor(() => handled.includes("b|resubmit:2"), "the resubmitted message to be handled", WAIT);
    // "a" was received with "b", held, and abandoned: still there, its abandon counted.
    expect(bus.deadLetters(queueNames.events)).toMatchObject([{ sequenceNumber: 1, messageId: "a", state: "active", deliveryCount: 2 }]);
    const { lines } = await dlq(bus, "list", "events");
    expect(lines).toEqual(["events: 1 dead letter(s)", expect.stringMatching(/^ {2}#1 {2}a {2}deliveries 2 /)]);
  });
});
