import { InvocationContext } from "@azure/functions";
import type { ServiceBusClient, ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import type { ServiceBusTriggerFunction } from "../../shared/hosts/azure/service-bus-trigger";

export interface HostedTrigger {
  /** What the receiver reported: a settlement refused (a lost lock), a link error, a failed renewal. */
  errors: Error[];
  close(): Promise<void>;
}

export interface HostOptions {
  /** The host's `maxConcurrentCalls`. Default 4. */
  maxConcurrentCalls?: number;
  /** The host's `maxAutoLockRenewalDuration`; 0 renews nothing. Default 5 minutes, the host's. */
  maxAutoLockRenewalDurationInMs?: number;
}

/**
 * What the Functions host does for an `app.serviceBusQueue` trigger, done with the SDK for JavaScript:
 * it receives under peek-lock, renewing the lock while the function runs, calls the function with the
 * body and the trigger metadata, and completes the message when the function resolves or abandons it
 * when it throws. The metadata is what the host's binding data gives a Node function: the delivery
 * count as the .NET SDK counts it (the wire's count plus one, so 1 on the first delivery), the enqueue
 * time, the sequence number and the application properties.
 *
 * @example
 * const host = hostServiceBusTrigger(client, "events", serviceBusTriggerHandler(() => handler));
 * await host.close();
 */
export function hostServiceBusTrigger(client: ServiceBusClient, queueName: string, trigger: ServiceBusTriggerFunction, options: HostOptions = {}): HostedTrigger {
  const errors: Error[] = [];
  const receiver: ServiceBusReceiver = client.createReceiver(queueName, {
    receiveMode: "peekLock",
    maxAutoLockRenewalDurationInMs: options.maxAutoLockRenewalDurationInMs ?? 5 * 60_000,
  });
  const subscription = receiver.subscribe(
    {
      processMessage: (message) => trigger(message.body, invocationContextOf(queueName, message)),
      processError: async ({ error }) => void errors.push(error),
    },
    { maxConcurrentCalls: options.maxConcurrentCalls ?? 4, autoCompleteMessages: true },
  );
  return {
    errors,
    async close() {
      await subscription.close();
      await receiver.close();
    },
  };
}

/** The invocation the host would make for this message; its log goes nowhere. */
export function invocationContextOf(functionName: string, message: ServiceBusReceivedMessage): InvocationContext {
  return new InvocationContext({
    functionName,
    triggerMetadata: {
      messageId: message.messageId,
      deliveryCount: (message.deliveryCount ?? 0) + 1,
      enqueuedTimeUtc: message.enqueuedTimeUtc?.toISOString(),
      sequenceNumber: message.sequenceNumber?.toNumber(),
      applicationProperties: message.applicationProperties ?? {},
    },
    logHandler: () => undefined,
  });
}
