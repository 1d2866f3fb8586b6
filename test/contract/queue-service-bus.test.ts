import { serviceBusTriggerHandler } from "../../shared/hosts/azure/service-bus-trigger";
import { serviceBusDeadLetters } from "../../shared/platform/queue/dead-letters";
import { createServiceBusQueueSender, serviceBusClientOnFirstUse } from "../../shared/platform/queue/service-bus/service-bus-queue";
import { hostServiceBusTrigger, type HostedTrigger } from "../support/service-bus-host";
import { startServiceBusStandIn } from "../support/service-bus-stand-in";
import { describeQueueContract, type Body } from "./queue-contract";

// The production adapter and the real @azure/service-bus client, over AMQP to the stand-in; the
// Functions host's part (receive, call the trigger, complete or abandon) is played with the SDK's
// receiver. The host's lock renewal is off here, so that a lock expires as in the other adapters;
// the renewal has its own test in service-bus-wire.test.ts.
describeQueueContract("Service Bus", async ({ maxDeliveryCount, lockDurationMs, maxConcurrentCalls }) => {
  const bus = await startServiceBusStandIn({ queues: { events: { maxDeliveryCount, lockDurationMs } } });
  const client = serviceBusClientOnFirstUse({ connectionString: bus.connectionString });
  const queue = createServiceBusQueueSender<Body>(client, "events");
  let host: HostedTrigger | undefined;
  return {
    queue,
    subscribe: (handler) => {
      host = hostServiceBusTrigger(client(), "events", serviceBusTriggerHandler<Body>(() => handler), { maxConcurrentCalls, maxAutoLockRenewalDurationInMs: 0 });
    },
    pending: async () => {
      const { active, scheduled, locked } = bus.stats("events");
      return active + scheduled + locked;
    },
    deadLetters: serviceBusDeadLetters(client()),
    teardown: async () => {
      await host?.close();
      await client().close();
      await bus.close();
    },
  };
});
