import { app } from "@azure/functions";
import { queueNames } from "../shared/queue/queue-names";
import { SERVICE_BUS_CONNECTION, serviceBusTriggerHandler } from "../shared/queue/service-bus-trigger";
import { getServices } from "../shared/composition";
import { createRunExecutor, type RunExecutor } from "../shared/gamebooks/run-executor";

let executor: RunExecutor | undefined;

// One message carries out one playbook of a run, and the record of its outcome commits the message
// for the next. Throwing abandons the message: Service Bus redelivers it and the executor resumes the
// playbook under the same step id, so nothing runs twice. On the last delivery a playbook that still
// fails is recorded Failed, so the run ends; only a message that cannot even record that is dead-lettered.
app.serviceBusQueue("gamebook-executor", {
  connection: SERVICE_BUS_CONNECTION,
  queueName: queueNames.gamebookRuns,
  handler: serviceBusTriggerHandler(() => (executor ??= createRunExecutor({ services: getServices() })).handle),
});
