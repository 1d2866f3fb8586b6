import { app } from "@azure/functions";
import { queueNames } from "../shared/platform/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/hosts/azure/service-bus-trigger";
import { lazyServices } from "../shared/hosts/azure/lazy-services";

// Resolving completes the message. A thrown handler (the store or the queue failing) is tried again
// later, scheduled on the same queue, and dead-lettered once its retries are used up; failed webhook
// attempts are retried by the delivery worker itself, also as scheduled messages.
app.serviceBusQueue("webhook-delivery", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.deliveries,
  handler: serviceBusTriggerHandler(async () => {
    const { events, logger } = await lazyServices();
    return { handler: events.deliveryHandler, retries: events.deliveries, logger };
  }),
});
