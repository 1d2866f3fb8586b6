import { app } from "@azure/functions";
import { queueNames } from "../shared/platform/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/hosts/azure/service-bus-trigger";
import { lazyServices } from "../shared/hosts/azure/lazy-services";

// One domain event → one delivery message per webhook that gets it. A failure is tried again later
// (scheduled on the same queue), then dead-lettered; delivery message ids make a repeat harmless.
app.serviceBusQueue("event-fan-out", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.events,
  handler: serviceBusTriggerHandler(async () => {
    const { events, logger } = await lazyServices();
    return { handler: events.fanOutHandler, retries: events.events, logger };
  }),
});
