import { ServiceBusClient, isServiceBusError } from "@azure/service-bus";
import { afterEach, describe, expect, it } from "vitest";
import { serviceBusTriggerHandler } from "../../shared/hosts/azure/service-bus-trigger";
import { ApiError } from "../../shared/platform/errors/api-error";
import { serviceBusDeadLetters } from "../../shared/platform/queue/dead-letters";
import type { ReceivedMessage } from "../../shared/platform/queue/queue";
import { createServiceBusClient, createServiceBusQueueSender } from "../../shared/platform/queue/service-bus/service-bus-queue";
import { hostServiceBusTrigger, type HostedTrigger } from "../support/service-bus-host";
import { startServiceBusStandIn, type StandInQueueOptions } from "../support/service-bus-stand-in";
import { waitFor } from "../support/wait-for";

// What the queue contract does not show: how the adapter and the SDK use the broker (batches within
// the link's size, scheduling on $management, lock renewal, claims) and how its refusals reach the
// caller. The real @azure/service-bus client over AMQP to the stand-in.

interface Body {
  n: number;
  pad?: string;
}

/** How long a test waits for an outcome before it fails naming it. */
const WAIT = 10_000;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function namespace(queues: Record<string, StandInQueueOptions> = { events: {} }) {
  const bus = await startServiceBusStandIn({ queues });
  open.push(bus);
  const client = createServiceBusClient({ connectionString: bus.connectionString });
  open.push(client);
  return { bus, client };
}

function host(...args: Parameters<typeof hostServiceBusTrigger>): HostedTrigger {
  const hosted = hostServiceBusTrigger(...args);
  open.push(hosted);
  return hosted;
}

describe("Service Bus adapter over AMQP", { timeout: 20_000 }, () => {
  it("sends a large send as several batches, each within the link's maximum message size", async () => {
    const { bus, client } = await namespace({ events: { maxMessageSizeBytes: 64 * 1024 } });
    const queue = createServiceBusQueueSender<Body>(client, "events");
    await queue.send(Array.from({ length: 100 }, (_, i) => ({ messageId: `m${i}`, body: { n: i, pad: "x".repeat(1000) } })));

    const batches = bus.operations.filter((o) => o.startsWith("send events"));
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(batches.every((o) => o.includes("(batch)"))).toBe(true);
    const messages = bus.messages("events");
    expect(messages.map((m) => m.messageId)).toEqual(Array.from({ length: 100 }, (_, i) => `m${i}`));
    expect(messages[7]).toMatchObject({ body: { n: 7, pad: "x".repeat(1000) }, state: "active", deliveryCount: 0 });
    // The claim was put on $cbs before the link attached.
    expect(bus.operations.indexOf("put-token events")).toBeLessThan(bus.operations.indexOf("attach sender events"));
  });

  it("refuses a message larger than the link allows before sending anything", async () => {
    const { bus, client } = await namespace({ events: { maxMessageSizeBytes: 4096 } });
    const queue = createServiceBusQueueSender<Body>(client, "events");
    const error = await queue.send([{ messageId: "ok", body: { n: 1 } }, { messageId: "huge", body: { n: 2, pad: "x".repeat(5000) } }]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("huge") });
    expect(bus.messages("events")).toEqual([]);
  });

  it("schedules on the queue's $management link; the message is held until its time, and can be cancelled there", async () => {
    const { bus, client } = await namespace();
    const queue = createServiceBusQueueSender<Body>(client, "events");
    const at = new Date(Date.now() + 60_000);
    await queue.schedule([{ messageId: "r1", body: { n: 1 } }], at);

    expect(bus.operations).toContain("schedule-message events");
    expect(bus.operations.some((o) => o.startsWith("send events"))).toBe(false);
    const [scheduled] = bus.messages("events");
    expect(scheduled).toMatchObject({ messageId: "r1", state: "scheduled", scheduledFor: at, body: { n: 1 } });

    // What the SDK offers beside the adapter: a peek shows it as scheduled; cancelling removes it.
    const sender = client.createSender("events");
    const receiver = client.createReceiver("events");
    const [peeked] = await receiver.peekMessages(10);
    expect(peeked).toMatchObject({ messageId: "r1", state: "scheduled" });
    await sender.cancelScheduledMessages(peeked!.sequenceNumber!);
    expect(bus.operations).toContain("cancel-scheduled-message events");
    expect(bus.messages("events")).toEqual([]);
    await receiver.close();
    await sender.close();
  });

  it("settles by disposition on the receiving link: complete removes, abandon counts a delivery, dead-letter keeps the reason and description", async () => {
    const { bus, client } = await namespace({ events: { maxDeliveryCount: 5 } });
    await createServiceBusQueueSender<Body>(client, "events").send([1, 2, 3].map((n) => ({ messageId: `m${n}`, body: { n } })));
    const receiver = client.createReceiver("events");
    const [m1, m2, m3] = await receiver.receiveMessages(3, { maxWaitTimeInMs: 5_000 });
    expect([m1, m2, m3].map((m) => [m?.messageId, m?.deliveryCount, m?.sequenceNumber?.toNumber()])).toEqual([
      ["m1", 0, 1],
      ["m2", 0, 2],
      ["m3", 0, 3],
    ]);
    expect(m1!.lockedUntilUtc!.getTime()).toBeGreaterThan(Date.now());
    await receiver.completeMessage(m1!);
    await receiver.abandonMessage(m2!);
    await receiver.deadLetterMessage(m3!, { deadLetterReason: "SchemaMismatch", deadLetterErrorDescription: "field n is not a string" });

    expect(bus.messages("events")).toMatchObject([{ messageId: "m2", state: "active", deliveryCount: 1 }]);
    expect(bus.deadLetters("events")).toMatchObject([{ sequenceNumber: 1, messageId: "m3", reason: "SchemaMismatch", description: "field n is not a string" }]);
    const [dead] = await serviceBusDeadLetters(client).list("events", 10);
    expect(dead).toMatchObject({ sequenceNumber: "1", messageId: "m3", reason: "SchemaMismatch", description: "field n is not a string", deliveryCount: 1 });
    // A message settles once.
    await expect(receiver.completeMessage(m1!)).rejects.toThrow();
    await receiver.close();
  });

  it("receive-and-delete takes a message off the queue as it is delivered", async () => {
    const { bus, client } = await namespace();
    await createServiceBusQueueSender<Body>(client, "events").send([{ messageId: "once", body: { n: 1 } }]);
    const receiver = client.createReceiver("events", { receiveMode: "receiveAndDelete" });
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(message).toMatchObject({ messageId: "once", body: { n: 1 } });
    expect(bus.messages("events")).toEqual([]);
    await receiver.close();
  });

  it("the host renews the lock of a handler that runs longer than it, so the message is handled once", async () => {
    const { bus, client } = await namespace({ events: { lockDurationMs: 1100 } });
    const seen: ReceivedMessage<Body>[] = [];
    host(
      client,
      "events",
      serviceBusTriggerHandler<Body>(() => async (m) => {
        seen.push(m);
        await new Promise((resolve) => setTimeout(resolve, 1600));
      }),
    );
    await createServiceBusQueueSender<Body>(client, "events").send([{ messageId: "slow", body: { n: 1 } }]);
    await waitFor(() => bus.operations.some((o) => o.startsWith("complete events")), "the message to be completed", WAIT);

    expect(seen.map((m) => [m.messageId, m.deliveryCount])).toEqual([["slow", 1]]);
    expect(bus.operations.filter((o) => o === "renew-lock events").length).toBeGreaterThanOrEqual(1);
    expect(bus.operations.some((o) => o.startsWith("lock expired"))).toBe(false);
    expect(bus.stats("events")).toEqual({ active: 0, scheduled: 0, locked: 0, deadLettered: 0 });
  });

  it("a completion after the lock was lost is refused (MessageLockLost) and the message is handled again", async () => {
    const { bus, client } = await namespace({ events: { lockDurationMs: 300 } });
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    const hosted = host(
      client,
      "events",
      serviceBusTriggerHandler<Body>(() => async (m) => {
        seen.push(m.deliveryCount);
        if (m.deliveryCount === 1) await hung;
      }),
      { maxAutoLockRenewalDurationInMs: 0 },
    );
    await createServiceBusQueueSender<Body>(client, "events").send([{ messageId: "a", body: { n: 1 } }]);
    await waitFor(() => seen.includes(2), "the redelivery", WAIT);
    release();
    const [error] = await waitFor(() => hosted.errors.length > 0 && hosted.errors, "the late completion to be refused", WAIT);
    expect(isServiceBusError(error) && error.code).toBe("MessageLockLost");
    expect(bus.operations.filter((o) => o.startsWith("complete events"))).toHaveLength(1);
  });

  it("a wrong key: the claim is refused and the send fails as UPSTREAM_ERROR, with the SDK's UnauthorizedAccess as cause", async () => {
    const { bus } = await namespace();
    // The SDK retries a refused claim (a key may just have been rotated): 3 times, 30 s apart by
    // default. Here it gives up at once.
    const client = new ServiceBusClient(bus.connectionStringWithKey("d3Jvbmcga2V5"), { retryOptions: { maxRetries: 0 } });
    open.push(client);
    const error = await createServiceBusQueueSender<Body>(client, "events")
      .send([{ messageId: "a", body: { n: 1 } }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "UPSTREAM_ERROR", cause: { code: "UnauthorizedAccess" } });
    expect(bus.messages("events")).toEqual([]);
  });

  it("a queue the namespace does not have: UPSTREAM_ERROR, with the SDK's MessagingEntityNotFound as cause", async () => {
    const { client } = await namespace();
    const error = await createServiceBusQueueSender<Body>(client, "nope").ping().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UPSTREAM_ERROR", cause: { code: "MessagingEntityNotFound" } });
  });

  it("answers a ping by opening the link (a claim and an attach), sending nothing", async () => {
    const { bus, client } = await namespace();
    await createServiceBusQueueSender<Body>(client, "events").ping();
    expect(bus.operations).toEqual(["put-token events", "attach sender events"]);
  });
});
