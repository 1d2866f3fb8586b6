import type { ServiceBusClient, ServiceBusMessage, ServiceBusMessageBatch, ServiceBusSender } from "@azure/service-bus";
import { ConfigError } from "../../config/config";
import { ApiError } from "../../errors/api-error";
import type { OutgoingMessage, QueueSender } from "../queue";
import { translateServiceBusError } from "./service-bus-errors";

/** The part of the SDK's sender this adapter uses: what a test fake has to implement. */
export type ServiceBusSenderLike = Pick<ServiceBusSender, "entityPath" | "createMessageBatch" | "sendMessages" | "scheduleMessages">;

/** Where the namespace is and how to sign in: one of the two. */
export interface ServiceBusConnection {
  /** A namespace connection string with a SAS key: local runs against a real namespace. */
  connectionString?: string;
  /** `<namespace>.servicebus.windows.net`, signed in with DefaultAzureCredential (managed identity in Azure). */
  fullyQualifiedNamespace?: string;
}

/**
 * A Service Bus client for the namespace. The caller keeps one per process: the client owns the AMQP
 * connection, which every sender shares. Nothing connects until the first send.
 *
 * @example
 * const client = createServiceBusClient({ fullyQualifiedNamespace: "secops.servicebus.windows.net" });
 * const events = createServiceBusQueueSender<EventMessage>(client, queueNames.events);
 */
export function createServiceBusClient(connection: ServiceBusConnection): ServiceBusClient {
  checkConnection(connection);
  // Loaded here, on first use, not at import: every cold start pays for what the function modules import.
  const { ServiceBusClient } = require("@azure/service-bus") as typeof import("@azure/service-bus");
  if (connection.connectionString) return new ServiceBusClient(connection.connectionString);
  const { DefaultAzureCredential } = require("@azure/identity") as typeof import("@azure/identity");
  return new ServiceBusClient(connection.fullyQualifiedNamespace!, new DefaultAzureCredential());
}

/** The namespace's one client, or what gives it on first use (`serviceBusClientOnFirstUse`). */
export type ServiceBusClientSource = ServiceBusClient | (() => ServiceBusClient);

/**
 * The process's client, created — and the SDK loaded — when a sender first needs it (a send, a
 * schedule, the health check's ping): a request that sends nothing, such as a GET, never loads
 * `@azure/service-bus`. Every call gives the same client, so the senders still share one AMQP
 * connection. A connection that names no namespace is refused here, when the services are built.
 *
 * @example
 * const client = serviceBusClientOnFirstUse({ fullyQualifiedNamespace: "secops.servicebus.windows.net" });
 * const events = createServiceBusQueueSender<EventMessage>(client, queueNames.events); // no SDK yet
 */
export function serviceBusClientOnFirstUse(connection: ServiceBusConnection): () => ServiceBusClient {
  checkConnection(connection);
  let client: ServiceBusClient | undefined;
  return () => (client ??= createServiceBusClient(connection));
}

function checkConnection(connection: ServiceBusConnection): void {
  if (!connection.connectionString && !connection.fullyQualifiedNamespace) {
    throw new ConfigError("A Service Bus connection string or fully qualified namespace is required for the Service Bus queues.");
  }
}

/**
 * One sender (one AMQP link) per queue; keep it with the client rather than creating one per send.
 * Given the client on first use, the SDK's sender is created on the queue's first send, schedule or ping.
 */
export function createServiceBusQueueSender<T>(client: ServiceBusClientSource, queueName: string): ServiceBusQueueSender<T> {
  return new ServiceBusQueueSender<T>(typeof client === "function" ? senderOnFirstUse(client, queueName) : client.createSender(queueName));
}

/** The queue's sender, created from the client when it is first used; its queue name is known before. */
function senderOnFirstUse(client: () => ServiceBusClient, queueName: string): ServiceBusSenderLike {
  let sender: ServiceBusSenderLike | undefined;
  const get = () => (sender ??= client().createSender(queueName));
  return {
    entityPath: queueName,
    createMessageBatch: (options) => get().createMessageBatch(options),
    sendMessages: (messages, options) => get().sendMessages(messages, options),
    scheduleMessages: (messages, enqueueAt, options) => get().scheduleMessages(messages, enqueueAt, options),
  };
}

/**
 * The queue port on a Service Bus queue. Bodies go as JSON (`contentType: application/json`), so the
 * Functions trigger hands them to the handler already parsed.
 *
 * A send larger than one batch goes as several batches. If a later batch fails, the earlier ones
 * were sent, but the caller sees a failure and sends everything again; the queue's duplicate
 * detection (by message id, `requiresDuplicateDetection` in Bicep) drops the repeats, which is what
 * makes the send all or nothing from the caller's view.
 */
export class ServiceBusQueueSender<T> implements QueueSender<T> {
  readonly queueName: string;

  constructor(private readonly sender: ServiceBusSenderLike) {
    this.queueName = sender.entityPath;
  }

  async send(messages: readonly OutgoingMessage<T>[]): Promise<void> {
    if (messages.length === 0) return;
    try {
      // Every batch is built before the first is sent: a message too large to send fails the whole
      // call before anything has gone.
      const groups = await this.split(messages.map(toServiceBusMessage));
      for (const { batch } of groups) await this.sender.sendMessages(batch);
    } catch (error) {
      throw translateServiceBusError(error);
    }
  }

  async schedule(messages: readonly OutgoingMessage<T>[], enqueueAt: Date): Promise<void> {
    if (messages.length === 0) return;
    try {
      const scheduled = messages.map((m) => ({ ...toServiceBusMessage(m), scheduledEnqueueTimeUtc: enqueueAt }));
      // One schedule request carries its messages in one AMQP message, bounded like a batch, so the
      // same split applies.
      const groups = await this.split(scheduled);
      for (const group of groups) await this.sender.scheduleMessages(group.messages, enqueueAt);
    } catch (error) {
      throw translateServiceBusError(error);
    }
  }

  /**
   * Opens the sender's link if it is not open (creating a batch needs the link's size limit), which
   * proves the namespace is reachable and the identity may send, without sending anything.
   */
  async ping(): Promise<void> {
    try {
      await this.sender.createMessageBatch();
    } catch (error) {
      throw translateServiceBusError(error);
    }
  }

  /** Fills batches in order, starting a new one whenever the next message does not fit. */
  private async split(messages: ServiceBusMessage[]): Promise<{ batch: ServiceBusMessageBatch; messages: ServiceBusMessage[] }[]> {
    const groups: { batch: ServiceBusMessageBatch; messages: ServiceBusMessage[] }[] = [];
    let current = { batch: await this.sender.createMessageBatch(), messages: [] as ServiceBusMessage[] };
    for (const message of messages) {
      if (!current.batch.tryAddMessage(message)) {
        if (current.messages.length === 0) throw this.tooLarge(message);
        groups.push(current);
        current = { batch: await this.sender.createMessageBatch(), messages: [] };
        if (!current.batch.tryAddMessage(message)) throw this.tooLarge(message);
      }
      current.messages.push(message);
    }
    if (current.messages.length > 0) groups.push(current);
    return groups;
  }

  /** A message over the queue's size limit can never be sent: our defect, not the broker's. */
  private tooLarge(message: ServiceBusMessage): ApiError {
    return new ApiError("INTERNAL_ERROR", `Message ${String(message.messageId)} exceeds the maximum message size of queue "${this.queueName}".`);
  }
}

function toServiceBusMessage<T>(message: OutgoingMessage<T>): ServiceBusMessage {
  // The SDK serialises a non-binary body as JSON; contentType tells the receiving side so.
  const sent: ServiceBusMessage = { messageId: message.messageId, body: message.body, contentType: "application/json" };
  if (message.properties) sent.applicationProperties = { ...message.properties };
  return sent;
}
