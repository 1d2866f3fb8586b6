import { app } from "@azure/functions";
import { joinFunctionsHost } from "../shared/hosts/azure/functions-host-telemetry";
import { invocationLogLevel, logInvocation } from "../shared/hosts/azure/invocation-log";
import { startTelemetry } from "../shared/hosts/telemetry";

// Loaded with the function files (package.json `main`), before any invocation: in Azure, where
// APPLICATIONINSIGHTS_CONNECTION_STRING is set, OpenTelemetry starts here, ahead of the Azure SDKs,
// which the services load on first use. Elsewhere nothing is loaded.
const telemetry = startTelemetry();
if (telemetry) {
  // The host is told that the worker sends its own telemetry; each invocation runs in the host's trace.
  joinFunctionsHost(app, telemetry);
  // On shutdown, send what is buffered.
  app.hook.appTerminate(() => telemetry.flush());
  // Each timer and queue invocation's outcome, as a log record of the service's own.
  const invocations = telemetry.logger(invocationLogLevel(process.env));
  app.hook.postInvocation((context) => logInvocation(invocations, context));
}
