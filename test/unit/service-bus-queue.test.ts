import { InvocationContext, type ServiceBusQueueFunctionOptions } from "@azure/functions";
import {
  ServiceBusError,
  type ServiceBusClient,
  type ServiceBusMessage,
  type ServiceBusMessageBatch,
} from "@azure/service-bus";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError } from "../../shared/platform/config/config";
import { ApiError } from "../../shared/platform/errors/api-error";
import type { ReceivedMessage } from "../../shared/platform/queue/queue";
import { queueNames } from "../../shared/platform/queue/queue-names";
import {
  ServiceBusQueueSender,
  createServiceBusClient,
  createServiceBusQueueSender,
  serviceBusClientOnFirstUse,
  type ServiceBusSenderLike,
} from "../../shared/platform/queue/service-bus/service-bus-queue";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../../shared/hosts/azure/service-bus-trigger";

// No broker runs here: the sender is checked against a fake of the SDK's own interface, and the
// trigger adapter against the @azure/functions InvocationContext, which works outside the host.

interface Body {
  id: string;
  payload?: string;
}

/** Counts a message as its JSON body plus a fixed envelope, enough to make batches fill up. */
class FakeBatch implements ServiceBusMessageBatch {
  static readonly envelopeBytes = 50;
  readonly messages: ServiceBusMessage[] = [];
  sizeInBytes = 0;
  constructor(readonly maxSizeInBytes: number) {}
  get count(): number {
    return this.messages.length;
  }
  tryAddMessage(message: Parameters<ServiceBusMessageBatch["tryAddMessage"]>[0]): boolean {
    const size = Buffer.byteLength(JSON.stringify(message.body)) + FakeBatch.envelopeBytes;
    if (this.sizeInBytes + size > this.maxSizeInBytes) return false;
    this.sizeInBytes += size;
    this.messages.push(message as ServiceBusMessage);
    return true;
  }
}

class FakeSender implements ServiceBusSenderLike {
  readonly entityPath = "deliveries";
  /** What the adapter did, in order. */
  readonly calls: string[] = [];
  readonly sent: ServiceBusMessage[][] = [];
  readonly scheduled: { messages: ServiceBusMessage[]; at: Date }[] = [];
  failWith?: unknown;

  constructor(private readonly maxBatchBytes = 1024 * 1024) {}

  async createMessageBatch(): Promise<ServiceBusMessageBatch> {
    this.calls.push("createMessageBatch");
    return new FakeBatch(this.maxBatchBytes);
  }

  async sendMessages(messages: Parameters<ServiceBusSenderLike["sendMessages"]>[0]): Promise<void> {
    this.calls.push("sendMessages");
    if (this.failWith) throw this.failWith;
    if (!(messages instanceof FakeBatch)) throw new Error("the adapter should send the batches it created");
    this.sent.push([...messages.messages]);
  }

  async scheduleMessages(messages: Parameters<ServiceBusSenderLike["scheduleMessages"]>[0], at: Date) {
    this.calls.push("scheduleMessages");
    if (this.failWith) throw this.failWith;
    this.scheduled.push({ messages: [messages].flat() as ServiceBusMessage[], at });
    return [];
  }
}

/** A body whose message takes exactly `bytes` in a FakeBatch. */
function sized(id: string, bytes: number): { messageId: string; body: Body } {
  const overhead = Buffer.byteLength(JSON.stringify({ id, payload: "" })) + FakeBatch.envelopeBytes;
  return { messageId: id, body: { id, payload: "x".repeat(bytes - overhead) } };
}

describe("Service Bus queue sender", () => {
  it("names the queue after the sender's entity", () => {
    expect(new ServiceBusQueueSender<Body>(new FakeSender()).queueName).toBe("deliveries");
  });

  it("sends JSON messages with their message id, as one batch when they fit", async () => {
    const fake = new FakeSender();
    const queue = new ServiceBusQueueSender<Body>(fake);
    const body = { id: "e1", payload: "hello" };
    await queue.send([
      { messageId: "e1:w1", body },
      { messageId: "e1:w2", body: { id: "e1" } },
    ]);
    expect(fake.calls).toEqual(["createMessageBatch", "sendMessages"]);
    expect(fake.sent).toEqual([
      [
        { messageId: "e1:w1", body: { id: "e1", payload: "hello" }, contentType: "application/json" },
        { messageId: "e1:w2", body: { id: "e1" }, contentType: "application/json" },
      ],
    ]);
    expect(fake.sent[0]![0]!.scheduledEnqueueTimeUtc).toBeUndefined();
  });

  it("sends a message's properties as application properties", async () => {
    const fake = new FakeSender();
    await new ServiceBusQueueSender<Body>(fake).schedule([{ messageId: "e1|retry:1", body: { id: "e1" }, properties: { retryDueAt: "2025-06-01T12:00:30.000Z" } }], new Date("2025-06-01T12:00:30Z"));
    expect(fake.scheduled[0]!.messages[0]).toMatchObject({ messageId: "e1|retry:1", applicationProperties: { retryDueAt: "2025-06-01T12:00:30.000Z" } });
  });

  it("splits a large send into batches, in order, and builds them all before sending any", async () => {
    const fake = new FakeSender(1000);
    const queue = new ServiceBusQueueSender<Body>(fake);
    const messages = Array.from({ length: 7 }, (_, i) => sized(`m${i}`, 300)); // three fit in 1000 bytes
    await queue.send(messages);
    expect(fake.sent.map((batch) => batch.map((m) => m.messageId))).toEqual([
      ["m0", "m1", "m2"],
      ["m3", "m4", "m5"],
      ["m6"],
    ]);
    expect(fake.calls).toEqual([
      "createMessageBatch",
      "createMessageBatch",
      "createMessageBatch",
      "sendMessages",
      "sendMessages",
      "sendMessages",
    ]);
  });

  it("refuses a message larger than an empty batch before sending anything", async () => {
    const fake = new FakeSender(1000);
    const queue = new ServiceBusQueueSender<Body>(fake);
    const error = await queue.send([sized("ok", 300), sized("huge", 1001)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "INTERNAL_ERROR", message: expect.stringContaining("huge") });
    expect(fake.calls).not.toContain("sendMessages");
  });

  it("does nothing for an empty send or schedule", async () => {
    const fake = new FakeSender();
    const queue = new ServiceBusQueueSender<Body>(fake);
    await queue.send([]);
    await queue.schedule([], new Date());
    expect(fake.calls).toEqual([]);
  });

  it("schedules messages for their enqueue time, split like batches", async () => {
    const fake = new FakeSender(1000);
    const queue = new ServiceBusQueueSender<Body>(fake);
    const at = new Date("2025-06-01T12:00:30Z");
    await queue.schedule([sized("r1", 400), sized("r2", 400), sized("r3", 400)], at);
    expect(fake.calls.filter((c) => c !== "createMessageBatch")).toEqual(["scheduleMessages", "scheduleMessages"]);
    expect(fake.scheduled.map((s) => [s.at, s.messages.map((m) => m.messageId)])).toEqual([
      [at, ["r1", "r2"]],
      [at, ["r3"]],
    ]);
    const first = fake.scheduled[0]!.messages[0]!;
    expect(first).toMatchObject({ messageId: "r1", contentType: "application/json", scheduledEnqueueTimeUtc: at });
    expect(first.body).toEqual(sized("r1", 400).body);
    expect(fake.sent).toEqual([]);
  });

  it.each([
    ["ServiceBusy", "RATE_LIMITED", 429],
    ["ServiceTimeout", "TIMEOUT", 504],
    ["UnauthorizedAccess", "UPSTREAM_ERROR", 502],
    ["MessagingEntityNotFound", "UPSTREAM_ERROR", 502],
    ["ServiceCommunicationProblem", "UPSTREAM_ERROR", 502],
    ["QuotaExceeded", "UPSTREAM_ERROR", 502],
  ] as const)("maps a %s failure on send and on schedule to %s, keeping the SDK error as cause", async (sdkCode, code, status) => {
    for (const operation of ["send", "schedule"] as const) {
      const fake = new FakeSender();
      const cause = new ServiceBusError(`broker said ${sdkCode}`, sdkCode);
      fake.failWith = cause;
      const queue = new ServiceBusQueueSender<Body>(fake);
      const messages = [{ messageId: "m", body: { id: "m" } }];
      const error = await (operation === "send" ? queue.send(messages) : queue.schedule(messages, new Date())).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code, status, cause });
    }
  });

  it("asks a throttled caller to retry after 10 seconds", async () => {
    const fake = new FakeSender();
    fake.failWith = new ServiceBusError("busy", "ServiceBusy");
    const error = await new ServiceBusQueueSender<Body>(fake).send([{ messageId: "m", body: { id: "m" } }]).catch((e: unknown) => e);
    expect((error as ApiError).headers).toEqual({ "Retry-After": "10" });
  });

  it("maps a failure outside the SDK's error type (closed sender, credential) to UPSTREAM_ERROR, and leaves a TypeError (a defect) alone", async () => {
    const fake = new FakeSender();
    const closed = new Error("The sender has been closed and can no longer be used.");
    fake.failWith = closed;
    const queue = new ServiceBusQueueSender<Body>(fake);
    const messages = [{ messageId: "m", body: { id: "m" } }];
    await expect(queue.send(messages)).rejects.toMatchObject({ code: "UPSTREAM_ERROR", cause: closed });

    const defect = new TypeError("Missing parameter \"messages\"");
    fake.failWith = defect;
    await expect(queue.send(messages)).rejects.toBe(defect);
  });

  it("maps a failure to create a batch the same way", async () => {
    const fake = new FakeSender();
    vi.spyOn(fake, "createMessageBatch").mockRejectedValue(new ServiceBusError("timed out", "ServiceTimeout"));
    await expect(new ServiceBusQueueSender<Body>(fake).send([{ messageId: "m", body: { id: "m" } }])).rejects.toMatchObject({
      code: "TIMEOUT",
    });
  });
});

describe("Service Bus client factory", () => {
  const clients: ServiceBusClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it("connects with a connection string (local) without contacting the broker", () => {
    const client = createServiceBusClient({
      connectionString: "Endpoint=sb://secops-local.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=c2VjcmV0",
    });
    clients.push(client);
    expect(client.fullyQualifiedNamespace).toBe("secops-local.servicebus.windows.net");
  });

  it("connects to a namespace with DefaultAzureCredential (Azure) and creates one sender per queue", () => {
    const client = createServiceBusClient({ fullyQualifiedNamespace: "secops.servicebus.windows.net" });
    clients.push(client);
    expect(client.fullyQualifiedNamespace).toBe("secops.servicebus.windows.net");
    expect(createServiceBusQueueSender<Body>(client, queueNames.events).queueName).toBe("events");
  });

  it("refuses to start without either", () => {
    expect(() => createServiceBusClient({})).toThrow(ConfigError);
    expect(() => serviceBusClientOnFirstUse({})).toThrow(ConfigError);
  });

  it("on first use: one client for every call, created when first asked for", () => {
    const client = serviceBusClientOnFirstUse({ fullyQualifiedNamespace: "secops.servicebus.windows.net" });
    const first = client();
    clients.push(first);
    expect(first.fullyQualifiedNamespace).toBe("secops.servicebus.windows.net");
    expect(client()).toBe(first);
  });

  it("a sender over the client on first use asks for the client and its sender on its first send, once, and knows its queue before", async () => {
    const fake = new FakeSender();
    const createSender = vi.fn(() => fake);
    const client = vi.fn(() => ({ createSender }) as unknown as ServiceBusClient);
    const queue = createServiceBusQueueSender<Body>(client, queueNames.deliveries);
    expect(queue.queueName).toBe("deliveries");
    expect(client).not.toHaveBeenCalled();
    await queue.send([{ messageId: "a", body: { id: "a" } }]);
    await queue.schedule([{ messageId: "b", body: { id: "b" } }], new Date("2030-01-01T00:00:00Z"));
    await queue.ping();
    expect(client).toHaveBeenCalledTimes(1);
    expect(createSender).toHaveBeenCalledTimes(1);
    expect(createSender).toHaveBeenCalledWith("deliveries");
    expect(fake.calls).toEqual(["createMessageBatch", "sendMessages", "createMessageBatch", "scheduleMessages", "createMessageBatch"]);
  });
});

describe("Service Bus trigger adapter", () => {
  function context(triggerMetadata: Record<string, unknown>) {
    const logs: { level: string; args: unknown[] }[] = [];
    const ctx = new InvocationContext({
      functionName: "deliveries",
      triggerMetadata,
      logHandler: (level: string, ...args: unknown[]) => void logs.push({ level, args }),
    });
    return { ctx, logs };
  }

  it("hands the parsed body and the message's id, delivery count and enqueue time to the handler", async () => {
    const seen: ReceivedMessage<Body>[] = [];
    const trigger = serviceBusTriggerHandler<Body>(() => async (m) => void seen.push(m));
    const { ctx } = context({ messageId: "e1:w1", deliveryCount: 3, enqueuedTimeUtc: "2025-01-02T03:04:05.678Z", sequenceNumber: 7 });
    await trigger({ id: "e1", payload: "p" }, ctx);
    expect(seen).toEqual([
      { messageId: "e1:w1", body: { id: "e1", payload: "p" }, deliveryCount: 3, enqueuedAt: new Date("2025-01-02T03:04:05.678Z") },
    ]);
  });

  it("hands the message's application properties to the handler, as the worker names them", async () => {
    const seen: ReceivedMessage<Body>[] = [];
    const trigger = serviceBusTriggerHandler<Body>(() => async (m) => void seen.push(m));
    const meta = { messageId: "m", deliveryCount: 1, enqueuedTimeUtc: "2025-01-02T03:04:05Z", applicationProperties: { retryDueAt: "2025-01-02T03:04:05.000Z" } };
    await trigger({ id: "x" }, context(meta).ctx);
    expect(seen[0]!.properties).toEqual({ retryDueAt: "2025-01-02T03:04:05.000Z" });
  });

  it("parses a body that arrives as JSON text or bytes", async () => {
    const seen: unknown[] = [];
    const trigger = serviceBusTriggerHandler<Body>(() => async (m) => void seen.push(m.body));
    const meta = { messageId: "m", deliveryCount: 1, enqueuedTimeUtc: "2025-01-02T03:04:05Z" };
    await trigger('{"id":"text"}', context(meta).ctx);
    await trigger(Buffer.from('{"id":"bytes"}'), context(meta).ctx);
    expect(seen).toEqual([{ id: "text" }, { id: "bytes" }]);
  });

  it("reads a delivery count given as text and an enqueue time without a zone designator as UTC", async () => {
    const seen: ReceivedMessage<Body>[] = [];
    const trigger = serviceBusTriggerHandler<Body>(() => async (m) => void seen.push(m));
    await trigger({ id: "x" }, context({ messageId: "m", deliveryCount: "2", enqueuedTimeUtc: "2025-01-02T03:04:05.1234567" }).ctx);
    expect(seen[0]).toMatchObject({ deliveryCount: 2, enqueuedAt: new Date("2025-01-02T03:04:05.123Z") });
  });

  it("rethrows the handler's error so that the host abandons the message, and logs it", async () => {
    const failure = new Error("vendor down");
    const trigger = serviceBusTriggerHandler<Body>(() => async () => {
      throw failure;
    });
    const { ctx, logs } = context({ messageId: "m1", deliveryCount: 4, enqueuedTimeUtc: "2025-01-02T03:04:05Z" });
    await expect(trigger({ id: "x" }, ctx)).rejects.toBe(failure);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.level).toBe("warning");
    expect(JSON.parse(logs[0]!.args[0] as string)).toMatchObject({ messageId: "m1", deliveryCount: 4, error: "vendor down" });
  });

  it("refuses a message without an id (it cannot be handled idempotently) without calling the handler", async () => {
    const handler = vi.fn(async () => {});
    const trigger = serviceBusTriggerHandler<Body>(() => handler);
    await expect(trigger({ id: "x" }, context({ deliveryCount: 1 }).ctx)).rejects.toThrow(/messageId/);
    expect(handler).not.toHaveBeenCalled();
  });

  it("tolerates missing delivery metadata, with a warning", async () => {
    const seen: ReceivedMessage<Body>[] = [];
    const trigger = serviceBusTriggerHandler<Body>(() => async (m) => void seen.push(m));
    const { ctx, logs } = context({ messageId: "m" });
    await trigger({ id: "x" }, ctx);
    expect(seen[0]).toMatchObject({ messageId: "m", deliveryCount: 1 });
    expect(seen[0]!.enqueuedAt).toBeInstanceOf(Date);
    expect(logs.map((l) => l.level)).toEqual(["warning"]);
  });

  it("builds the handler on the first invocation, not when the function is registered", async () => {
    const getHandler = vi.fn(() => async () => {});
    const trigger = serviceBusTriggerHandler<Body>(getHandler);
    expect(getHandler).not.toHaveBeenCalled();
    await trigger({ id: "x" }, context({ messageId: "m", deliveryCount: 1, enqueuedTimeUtc: "2025-01-02T03:04:05Z" }).ctx);
    expect(getHandler).toHaveBeenCalledTimes(1);
  });

  it("fits app.serviceBusQueue's options", () => {
    const options: ServiceBusQueueFunctionOptions = {
      connection: SERVICE_BUS_CONNECTION,
      queueName: queueNames.deliveries,
      handler: serviceBusTriggerHandler<Body>(() => async () => {}),
    };
    expect(options.connection).toBe("SERVICEBUS");
  });
});
