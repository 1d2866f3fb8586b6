import type { app as functionsApp, LogHookContext, PreInvocationContext } from "@azure/functions";
import { context, propagation, trace } from "@opentelemetry/api";
import type { LogRecord } from "@opentelemetry/api-logs";
import { describe, expect, it, vi } from "vitest";
import { NodeTracerProvider, type SpanExporter } from "@opentelemetry/sdk-trace-node";
import { joinFunctionsHost } from "../../shared/hosts/azure/functions-host-telemetry";
import { activeTelemetry, deferredExporter, startTelemetry, telemetryLogger, type Telemetry } from "../../shared/hosts/telemetry";
import { createServices } from "../../shared/hosts/composition";
import { loadConfig } from "../../shared/platform/config/config";

describe("telemetry logger", () => {
  it("emits the message as the record's body and every field as an attribute, not as text", () => {
    const records: LogRecord[] = [];
    const logger = telemetryLogger((r) => records.push(r), "info");
    const at = new Date("2025-06-01T12:00:00Z");
    logger.warn("webhook auto-disabled", {
      requestId: "req-1",
      eventId: "evt-1",
      webhookId: "wh-1",
      incidentId: "INC-7",
      incidents: 5,
      paused: false,
      at,
      summary: { created: 2 },
      ids: ["a", "b"],
      error: new Error("boom"),
      nothing: null,
      missing: undefined,
    });
    expect(records).toEqual([
      {
        body: "webhook auto-disabled",
        severityNumber: 13,
        severityText: "WARN",
        attributes: {
          requestId: "req-1",
          eventId: "evt-1",
          webhookId: "wh-1",
          incidentId: "INC-7",
          incidents: 5,
          paused: false,
          at: "2025-06-01T12:00:00.000Z",
          summary: '{"created":2}',
          ids: ["a", "b"],
          error: "boom",
        },
      },
    ]);
  });

  it("keeps to its level and maps each level to its OpenTelemetry severity", () => {
    const records: LogRecord[] = [];
    const logger = telemetryLogger((r) => records.push(r), "info");
    logger.debug("hidden");
    logger.info("i");
    logger.error("e");
    expect(records.map((r) => [r.body, r.severityNumber, r.severityText])).toEqual([
      ["i", 9, "INFO"],
      ["e", 17, "ERROR"],
    ]);
  });
});

describe("telemetry outside Azure", () => {
  it("does not start without an Application Insights connection string, and the services log JSON lines to stdout", () => {
    expect(startTelemetry({})).toBeUndefined();
    expect(activeTelemetry()).toBeUndefined();
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
    try {
      createServices(loadConfig({})).logger.info("request", { requestId: "req-1" });
    } finally {
      write.mockRestore();
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", message: "request", requestId: "req-1" });
  });
});

describe("exporters created on their first export", () => {
  function fakeExporter() {
    return { export: vi.fn((_items: unknown, done: Parameters<SpanExporter["export"]>[1]) => done({ code: 0 })), shutdown: vi.fn(async () => {}), forceFlush: vi.fn(async () => {}) };
  }

  it("creates the exporter on the first export, once, and hands it every batch", () => {
    const real = fakeExporter();
    const create = vi.fn(() => real);
    const exporter = deferredExporter<SpanExporter>(create);
    expect(create).not.toHaveBeenCalled();
    const results: unknown[] = [];
    exporter.export([], (r) => results.push(r));
    exporter.export([], (r) => results.push(r));
    expect(create).toHaveBeenCalledTimes(1);
    expect(real.export).toHaveBeenCalledTimes(2);
    expect(results).toEqual([{ code: 0 }, { code: 0 }]);
  });

  it("flushes and shuts down without creating an exporter that never exported, and through it once it has", async () => {
    const real = fakeExporter();
    const create = vi.fn(() => real);
    const exporter = deferredExporter<SpanExporter>(create);
    await exporter.forceFlush!();
    await exporter.shutdown();
    expect(create).not.toHaveBeenCalled();
    exporter.export([], () => {});
    await exporter.forceFlush!();
    await exporter.shutdown();
    expect(real.forceFlush).toHaveBeenCalledTimes(1);
    expect(real.shutdown).toHaveBeenCalledTimes(1);
  });

  it("fails the export when the exporter cannot be created, and tries again on the next", () => {
    const create = vi.fn(() => {
      throw new Error("no exporter");
    });
    const exporter = deferredExporter<SpanExporter>(create);
    const results: { code: number; error?: Error }[] = [];
    exporter.export([], (r) => results.push(r));
    exporter.export([], (r) => results.push(r));
    expect(results.map((r) => [r.code, r.error?.message])).toEqual([
      [1, "no exporter"],
      [1, "no exporter"],
    ]);
    expect(create).toHaveBeenCalledTimes(2);
  });
});

describe("telemetry joined to the Functions host", () => {
  /** The part of `app` that joinFunctionsHost uses, recording what it is given. */
  function fakeApp() {
    const setups: unknown[] = [];
    const logHooks: ((log: LogHookContext) => void)[] = [];
    const preInvocationHooks: ((invocation: PreInvocationContext) => void)[] = [];
    const app = {
      setup: (options: unknown) => setups.push(options),
      hook: { log: (hook: (log: LogHookContext) => void) => logHooks.push(hook), preInvocation: (hook: (invocation: PreInvocationContext) => void) => preInvocationHooks.push(hook) },
    };
    return { app: app as unknown as typeof functionsApp, setups, logHooks, preInvocationHooks };
  }
  const records: LogRecord[] = [];
  const telemetry: Telemetry = { logger: () => telemetryLogger(() => {}, "info"), emit: (record) => records.push(record), flush: async () => {} };

  it("tells the host that the worker sends its own telemetry, and sends the runtime's log lines as log records of their level", () => {
    const { app, setups, logHooks } = fakeApp();
    joinFunctionsHost(app, telemetry);
    expect(setups).toEqual([{ capabilities: { WorkerOpenTelemetryEnabled: true } }]);
    records.length = 0;
    logHooks[0]!({ level: "information", message: "Executing 'Functions.reconciler'", category: "system" } as LogHookContext);
    logHooks[0]!({ level: "critical", message: "worker failed", category: "system" } as LogHookContext);
    expect(records).toEqual([
      { body: "Executing 'Functions.reconciler'", severityNumber: 9, severityText: "information" },
      { body: "worker failed", severityNumber: 21, severityText: "critical" },
    ]);
  });

  it("runs each invocation's handler in the trace the host started for it; without one, as it is", async () => {
    // The propagator and the context manager that startTelemetry registers in Azure.
    const provider = new NodeTracerProvider();
    provider.register();
    try {
      const { app, preInvocationHooks } = fakeApp();
      joinFunctionsHost(app, telemetry);
      const traceId = "0af7651916cd43dd8448eb211c80319c";
      const handler = async () => trace.getSpanContext(context.active())?.traceId;
      const traced = { invocationContext: { traceContext: { traceParent: `00-${traceId}-b7ad6b7169203331-01`, traceState: "" } }, functionHandler: handler } as unknown as PreInvocationContext;
      preInvocationHooks[0]!(traced);
      expect(await (traced.functionHandler as unknown as typeof handler)()).toBe(traceId);
      const untraced = { invocationContext: {}, functionHandler: handler } as unknown as PreInvocationContext;
      preInvocationHooks[0]!(untraced);
      expect(untraced.functionHandler).toBe(handler);
      expect(await handler()).toBeUndefined();
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    }
  });
});
