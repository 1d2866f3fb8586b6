import { app } from "@azure/functions";
import { queueNames } from "../shared/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/queue/service-bus-trigger";
import { lazyServices } from "../shared/azure/lazy-services";

// One domain event → one delivery message per webhook that gets it. Throwing abandons the event,
// which comes back and fans out again; delivery message ids make that harmless.
app.serviceBusQueue("event-fan-out", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.events,
  handler: serviceBusTriggerHandler(async () => (await lazyServices()).events.fanOutHandler),
});
