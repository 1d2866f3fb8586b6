import type { app as functionsApp, LogLevel as FunctionsLogLevel } from "@azure/functions";
import type { Telemetry } from "../telemetry";

/** OpenTelemetry severity numbers (TRACE, DEBUG, INFO, WARN, ERROR, FATAL) of the Functions log levels. */
const severity: Record<FunctionsLogLevel, number> = { trace: 1, debug: 5, information: 9, warning: 13, error: 17, critical: 21, none: 0 };

/**
 * Joins the app's telemetry to the Functions host's (`"telemetryMode": "OpenTelemetry"` in
 * host.json): the host is told that the worker sends its own telemetry (so it sends no copy of the
 * worker's logs), each invocation's handler runs in the trace the host started for it (its W3C trace
 * context), and the Functions runtime's log lines (`context.log`) become log records.
 *
 * This is what `@azure/functions-opentelemetry-instrumentation` does, done directly where the app
 * holds `@azure/functions`: that package does it from a `require` hook of its own copy of the
 * OpenTelemetry instrumentation package (with `semver` and the module hooks), an older release than
 * the app's, which cost every cold start about 10 ms to load (docs/decisions.md, Performance).
 * Call it once, while the app is loaded (`app.setup` is refused after the worker asked for the app's
 * capabilities), after `startTelemetry` registered the propagator and the context manager.
 */
export function joinFunctionsHost(app: typeof functionsApp, telemetry: Telemetry): void {
  // Loaded here, not imported: where telemetry is off, nothing of OpenTelemetry loads.
  const { context, propagation } = require("@opentelemetry/api") as typeof import("@opentelemetry/api");
  app.setup({ capabilities: { WorkerOpenTelemetryEnabled: true } });
  app.hook.log((log) => telemetry.emit({ body: log.message, severityNumber: severity[log.level] ?? 0, severityText: log.level }));
  app.hook.preInvocation((invocation) => {
    const trace = invocation.invocationContext.traceContext;
    if (!trace) return;
    const parent = propagation.extract(context.active(), { traceparent: trace.traceParent, tracestate: trace.traceState });
    invocation.functionHandler = context.bind(parent, invocation.functionHandler);
  });
}
