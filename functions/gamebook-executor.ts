import { app } from "@azure/functions";
import { queueNames } from "../shared/platform/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/hosts/azure/service-bus-trigger";
import { lazyServices } from "../shared/hosts/azure/lazy-services";
import type { RunExecutor } from "../shared/domain/gamebooks/run-executor";

let executor: RunExecutor | undefined;

// One message carries out one playbook of a run, and the record of its outcome commits the message
// for the next. Throwing abandons the message: Service Bus redelivers it and the executor resumes the
// playbook under the same step id, so nothing runs twice. On the last delivery a playbook that still
// fails is recorded Failed, so the run ends; only a message that cannot even record that is dead-lettered.
// The executor and the services load on the first message, not at import (every cold start imports
// this module).
app.serviceBusQueue("gamebook-executor", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.gamebookRuns,
  handler: serviceBusTriggerHandler(async () => {
    if (!executor) {
      const { createRunExecutor } = await import("../shared/domain/gamebooks/run-executor.js");
      executor = createRunExecutor({ services: await lazyServices() });
    }
    return executor.handle;
  }),
});
