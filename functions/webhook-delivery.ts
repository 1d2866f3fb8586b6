import { app } from "@azure/functions";
import { queueNames } from "../shared/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/queue/service-bus-trigger";
import { lazyServices } from "../shared/azure/lazy-services";

// Resolving completes the message; throwing abandons it, so Service Bus redelivers it and, past the
// queue's maxDeliveryCount, dead-letters it. Retries with a delay are scheduled messages, not abandons.
app.serviceBusQueue("webhook-delivery", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.deliveries,
  handler: serviceBusTriggerHandler(async () => (await lazyServices()).events.deliveryHandler),
});
