import type { LogRecord } from "@opentelemetry/api-logs";
import { describe, expect, it, vi } from "vitest";
import type { SpanExporter } from "@opentelemetry/sdk-trace-node";
import { activeTelemetry, deferredExporter, startTelemetry, telemetryLogger } from "../../shared/hosts/azure/telemetry";
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
