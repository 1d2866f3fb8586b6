import { app } from "@azure/functions";
import { lazyServices } from "../shared/hosts/azure/lazy-services";
import { queueNames } from "../shared/platform/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/hosts/azure/service-bus-trigger";

// Every minute: one `reconcile` message per batch of workspaces (RECONCILE_BATCH_SIZE). The pass id is
// the minute and the batches follow the workspace ids, so a timer that fires twice (a second instance,
// a restart) enqueues nothing twice: duplicate detection drops it.
app.timer("reconciler", {
  schedule: "30 * * * * *",
  handler: async () => {
    const minute = new Date();
    minute.setUTCSeconds(0, 0);
    const services = await lazyServices();
    const pass = await services.reconciler.startPass(minute.toISOString());
    // One line per run, with no workspace too: the alert on a silent reconciler reads it.
    services.logger.info("reconciler pass enqueued", { passId: pass.passId, workspaces: pass.workspaceIds.length, messages: pass.messages });
  },
});

// A batch of workspaces per message, reconciled concurrently; the Functions host scales the workers out
// with the queue's length. Within a workspace the sources run concurrently; a source that fails keeps
// its watermark, and a workspace that fails is re-sent on its own.
app.serviceBusQueue("reconcile-workspace", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.reconcile,
  handler: serviceBusTriggerHandler(async () => (await lazyServices()).reconciler.handler),
});
