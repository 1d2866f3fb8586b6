import type { LogRecord } from "@opentelemetry/api-logs";
import type { LogRecordExporter } from "@opentelemetry/sdk-logs";
import type { SpanExporter } from "@opentelemetry/sdk-trace-node";
import type { Logger, LogLevel } from "../platform/logger";

/**
 * OpenTelemetry in the Functions worker, sending to Application Insights: request and dependency
 * spans (Cosmos DB and Service Bus through the Azure SDK instrumentation, webhook targets and vendor
 * bridges through the HTTP and undici instrumentations) and the service's logs, whose fields become
 * custom dimensions. The Functions host does its half with `"telemetryMode": "OpenTelemetry"` in
 * host.json; `joinFunctionsHost` (functions-host-telemetry.ts) joins the two (trace context into each
 * invocation, `context.log` as log records, no duplicate copy from the host).
 *
 * Started only where `APPLICATIONINSIGHTS_CONNECTION_STRING` is set (Azure): the SDK is required here,
 * on start, so local runs and tests never load it. What must be in place before the first request —
 * the providers that record its spans and logs, the instrumentations that patch modules before they
 * load — starts at once; Azure Monitor's exporters, the heaviest part, load on their first export, a
 * second after the first span (`deferredExporter`). Application Insights takes Entra ID-authenticated
 * telemetry only (local auth is off), so the exporters sign in as the identity that
 * `APPLICATIONINSIGHTS_AUTHENTICATION_STRING` names, as the host does.
 */
export interface Telemetry {
  /** The service's logger in Azure: one log record per line, fields as attributes. */
  logger(level: LogLevel): Logger;
  /** Emits a log record as it is: the Functions runtime's own lines (`joinFunctionsHost`). */
  emit(record: LogRecord): void;
  /** Sends what is buffered (the app is shutting down); never rejects. */
  flush(): Promise<void>;
}

let active: Telemetry | undefined;

/** The running telemetry, if `startTelemetry` started it. */
export function activeTelemetry(): Telemetry | undefined {
  return active;
}

/**
 * Starts telemetry once per process when the environment names an Application Insights resource.
 * The caller (functions/telemetry.ts, where the Functions runtime belongs) then joins it to the
 * Functions host (`joinFunctionsHost`).
 */
export function startTelemetry(env: NodeJS.ProcessEnv = process.env): Telemetry | undefined {
  if (active) return active;
  const connectionString = env.APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (!connectionString) return undefined;

  const { createAzureSdkInstrumentation } = require("@azure/opentelemetry-instrumentation-azure-sdk") as typeof import("@azure/opentelemetry-instrumentation-azure-sdk");
  const { registerInstrumentations } = require("@opentelemetry/instrumentation") as typeof import("@opentelemetry/instrumentation");
  const { HttpInstrumentation } = require("@opentelemetry/instrumentation-http") as typeof import("@opentelemetry/instrumentation-http");
  const { UndiciInstrumentation } = require("@opentelemetry/instrumentation-undici") as typeof import("@opentelemetry/instrumentation-undici");
  const { resourceFromAttributes } = require("@opentelemetry/resources") as typeof import("@opentelemetry/resources");
  const { BatchLogRecordProcessor, LoggerProvider } = require("@opentelemetry/sdk-logs") as typeof import("@opentelemetry/sdk-logs");
  const { BatchSpanProcessor, NodeTracerProvider } = require("@opentelemetry/sdk-trace-node") as typeof import("@opentelemetry/sdk-trace-node");

  // Both exporters with one credential, created on the first export of either.
  let exporterOptions: { connectionString: string; credential: ReturnType<typeof entraCredential> } | undefined;
  const options = () => (exporterOptions ??= { connectionString, credential: entraCredential(env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING) });
  const exporters = () => require("@azure/monitor-opentelemetry-exporter") as typeof import("@azure/monitor-opentelemetry-exporter");
  // The app's name is the role name Application Insights groups by (its application map).
  const resource = resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? env.WEBSITE_SITE_NAME ?? "secops-management-api" });
  // Batches leave every second; on a shutdown the host's appTerminate hook flushes the rest.
  const batch = { scheduledDelayMillis: 1000 };
  const traceExporter = deferredExporter<SpanExporter>(() => new (exporters().AzureMonitorTraceExporter)(options()));
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(traceExporter, batch)] });
  tracerProvider.register();
  const logExporter = deferredExporter<LogRecordExporter>(() => new (exporters().AzureMonitorLogExporter)(options()));
  const loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor(logExporter, batch)] });
  registerInstrumentations({
    tracerProvider,
    loggerProvider,
    instrumentations: [createAzureSdkInstrumentation(), new HttpInstrumentation(), new UndiciInstrumentation()],
  });

  const otelLogger = loggerProvider.getLogger("secops-management-api");
  active = {
    logger: (level) => telemetryLogger((record) => otelLogger.emit(record), level),
    emit: (record) => otelLogger.emit(record),
    // A failed export is the exporter's to retry or drop; a shutdown must not fail on it.
    flush: async () => {
      await Promise.allSettled([tracerProvider.forceFlush(), loggerProvider.forceFlush()]);
    },
  };
  return active;
}

/**
 * An exporter that creates the real one on its first export (or flush) instead of at start. The batch
 * processors hold what the first request recorded until then — a second later, or at the host's
 * shutdown flush — so nothing is lost, and loading Azure Monitor's exporter package (about 100 ms, its
 * HTTP pipeline and its own statistics) happens after the first answer, not before it. An exporter
 * that cannot be created fails the export, which the processor drops as it drops any failed export.
 */
export function deferredExporter<E extends SpanExporter | LogRecordExporter>(create: () => E): E {
  let exporter: E | undefined;
  const deferred: SpanExporter & LogRecordExporter = {
    export(items: never[], done: Parameters<SpanExporter["export"]>[1]) {
      try {
        exporter ??= create();
      } catch (error) {
        // ExportResultCode.FAILED.
        return done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) });
      }
      (exporter.export as (items: never[], done: Parameters<SpanExporter["export"]>[1]) => void)(items, done);
    },
    // Nothing was exported, so nothing is buffered in an exporter that does not exist.
    shutdown: async () => exporter?.shutdown(),
    forceFlush: async () => exporter?.forceFlush?.(),
  };
  return deferred as E;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** OpenTelemetry severity numbers (DEBUG, INFO, WARN, ERROR). */
const severity: Record<LogLevel, number> = { debug: 5, info: 9, warn: 13, error: 17 };

/**
 * The service's Logger over an OpenTelemetry log emitter: the message is the record's body, every
 * field an attribute (Application Insights: a custom dimension) — `requestId`, `eventId`,
 * `webhookId`, `incidentId` can then be filtered on, not searched for in text.
 */
export function telemetryLogger(emit: (record: LogRecord) => void, level: LogLevel): Logger {
  const log = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (rank[at] < rank[level]) return;
    emit({ body: message, severityNumber: severity[at], severityText: at.toUpperCase(), attributes: attributesOf(fields) });
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

type AttributeValue = string | number | boolean | string[] | number[] | boolean[];

/** Attribute values are primitives or arrays of one primitive type; anything else goes as JSON text. */
function attributesOf(fields: Record<string, unknown> | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value === undefined || value === null) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
    else if (value instanceof Date) out[key] = value.toISOString();
    else if (value instanceof Error) out[key] = value.message;
    else if (Array.isArray(value) && value.every((v) => typeof v === "string")) out[key] = value as string[];
    else out[key] = JSON.stringify(value);
  }
  return out;
}

/**
 * `Authorization=AAD;ClientId=<id>` (the host's setting): the user-assigned identity with that client
 * id; `Authorization=AAD` alone: the system-assigned one. Unset: instrumentation-key ingestion.
 */
function entraCredential(authenticationString: string | undefined) {
  if (!authenticationString) return undefined;
  const parts = Object.fromEntries(
    authenticationString.split(";").map((part) => {
      const [key = "", ...value] = part.split("=");
      return [key.trim().toLowerCase(), value.join("=").trim()];
    }),
  );
  if (parts.authorization?.toUpperCase() !== "AAD") return undefined;
  const { ManagedIdentityCredential } = require("@azure/identity") as typeof import("@azure/identity");
  return parts.clientid ? new ManagedIdentityCredential({ clientId: parts.clientid }) : new ManagedIdentityCredential();
}
