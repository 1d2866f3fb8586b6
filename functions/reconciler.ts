import { app } from "@azure/functions";
import { lazyServices } from "../shared/hosts/azure/lazy-services";
import { queueNames } from "../shared/platform/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/hosts/azure/service-bus-trigger";

// Every minute: one `reconcile` message per workspace. The pass id is the minute, so a timer that
// fires twice (a second instance, a restart) enqueues nothing twice: duplicate detection drops it.
app.timer("reconciler", {
  schedule: "30 * * * * *",
  handler: async () => {
    const minute = new Date();
    minute.setUTCSeconds(0, 0);
    const services = await lazyServices();
    const pass = await services.reconciler.startPass(minute.toISOString());
    // One line per run, with no workspace too: the alert on a silent reconciler reads it.
    services.logger.info("reconciler pass enqueued", { passId: pass.passId, workspaces: pass.workspaceIds.length });
  },
});

// One workspace per message; the Functions host scales the workers out with the queue's length.
// Within a workspace the sources run concurrently; a source that fails keeps its watermark.
app.serviceBusQueue("reconcile-workspace", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.reconcile,
  handler: serviceBusTriggerHandler(async () => (await lazyServices()).reconciler.handler),
});
