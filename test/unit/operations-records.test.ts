/**
 * The log records the alerts and the operations workbook are built on, written as the functions run:
 * one line per run of each timer the silence alerts watch, whatever the run found, and one per timer or
 * queue invocation with its outcome. test/integration/monitoring-queries.test.ts holds the queries to their
 * names; this holds the code to writing them.
 */
import * as azure from "@azure/functions";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { invocationLogLevel, logInvocation } from "../../shared/hosts/azure/invocation-log";
import { getServices } from "../../shared/hosts/composition";
import { eventRecord } from "../../shared/platform/events/event-record";
import type { Logger } from "../../shared/platform/logger";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import { functionRegistrations } from "../support/function-registrations";

let timers: Map<string, azure.TimerFunctionOptions>;

beforeAll(async () => {
  timers = new Map((await functionRegistrations()).timers.map((t) => [t.name, t.options]));
});

const timerInfo = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: "", next: "", lastUpdated: "" } } as azure.Timer;
const run = (name: string) => timers.get(name)!.handler(timerInfo, new azure.InvocationContext({ functionName: name }));

describe("the timers the silence alerts watch", () => {
  it("the outbox sweep writes one `outbox swept` line per run, with what it found waiting and carried out", async () => {
    const services = getServices();
    const info = vi.spyOn(services.logger, "info").mockImplementation(() => {});
    try {
      await run("outbox-sweep");
      const occurredAt = new Date().toISOString();
      await services.stores.outbox.append([eventRecord("incident.status.changed.v1", { scope: outboxScope.workspace("ws-ops"), accountId: "acct-ops", occurredAt }, {} as never)]);
      await run("outbox-sweep");
      const swept = info.mock.calls.filter(([message]) => message === "outbox swept").map(([, fields]) => fields);
      expect(swept).toEqual([
        { waiting: 0, carriedOut: 0 },
        { waiting: 1, carriedOut: 1 },
      ]);
    } finally {
      info.mockRestore();
    }
  });

  it("the reconciler writes one `reconciler pass enqueued` line per run, with no workspace too", async () => {
    const services = getServices();
    const info = vi.spyOn(services.logger, "info").mockImplementation(() => {});
    try {
      const workspaces = (await services.stores.workspaces.listAll()).length;
      await run("reconciler");
      await run("reconciler");
      const passes = info.mock.calls.filter(([message]) => message === "reconciler pass enqueued").map(([, fields]) => fields);
      expect(passes).toHaveLength(2);
      const messages = Math.ceil(workspaces / services.config.reconcileBatchSize);
      for (const pass of passes) expect(pass).toEqual({ passId: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/), workspaces, messages });
    } finally {
      info.mockRestore();
    }
  });
});

describe("function invocations", () => {
  const recorder = () => {
    const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const logger = Object.fromEntries(
      (["debug", "info", "warn", "error"] as const).map((level) => [level, (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields })]),
    ) as unknown as Logger;
    return { lines, logger };
  };
  const context = (functionName: string, type: string, error?: unknown) =>
    new azure.PostInvocationContext({
      invocationContext: new azure.InvocationContext({ functionName, options: { trigger: { type, name: "trigger" }, extraInputs: [], extraOutputs: [] } }),
      inputs: [],
      result: undefined,
      error,
      hookData: {},
    });

  it("a timer or queue invocation writes its outcome; one that threw, at warn, with the error", () => {
    const { lines, logger } = recorder();
    logInvocation(logger, context("reconciler", "timerTrigger"));
    logInvocation(logger, context("reconcile-workspace", "serviceBusTrigger", new Error("store unavailable")));
    expect(lines).toEqual([
      { level: "info", message: "function invocation", fields: { functionName: "reconciler", trigger: "timerTrigger", outcome: "succeeded" } },
      { level: "warn", message: "function invocation", fields: { functionName: "reconcile-workspace", trigger: "serviceBusTrigger", outcome: "failed", error: "store unavailable" } },
    ]);
  });

  it("an HTTP invocation writes nothing: its request line says how it went", () => {
    const { lines, logger } = recorder();
    logInvocation(logger, context("service-accounts", "httpTrigger", new Error("boom")));
    expect(lines).toEqual([]);
  });

  it("keeps to LOG_LEVEL, info when it is unset", () => {
    expect(invocationLogLevel({})).toBe("info");
    expect(invocationLogLevel({ LOG_LEVEL: "warn" })).toBe("warn");
    expect(invocationLogLevel({ LOG_LEVEL: "verbose" })).toBe("info");
  });
});
