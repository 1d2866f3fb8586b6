import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { HealthProbe } from "../../shared/api/meta/health";
import { InProcessQueue } from "../../shared/platform/queue/in-process/in-process-queue";
import { ServiceBusQueueSender, type ServiceBusSenderLike } from "../../shared/platform/queue/service-bus/service-bus-queue";
import { ServiceBusError } from "@azure/service-bus";

describe("health probe", () => {
  it("reports every check with its duration and an overall ok", async () => {
    const probe = new HealthProbe({ store: async () => {}, queue: async () => {} });
    const report = await probe.report();
    expect(report.status).toBe("ok");
    expect(Object.keys(report.checks)).toEqual(["store", "queue"]);
    expect(report.checks.store).toMatchObject({ status: "ok", durationMs: expect.any(Number) });
    expect(report.checks.store!.code).toBeUndefined();
  });

  it("names a failed check by its contract code, never by the upstream's text", async () => {
    const probe = new HealthProbe({
      store: async () => {
        throw new ApiError("UPSTREAM_ERROR", "The store is unavailable.", { cause: new Error("AccountKey=secret; 10.0.0.4 refused") });
      },
      queue: async () => {
        throw new Error("raw failure with internal detail");
      },
    });
    const report = await probe.report();
    expect(report.status).toBe("failed");
    expect(report.checks).toMatchObject({ store: { status: "failed", code: "UPSTREAM_ERROR" }, queue: { status: "failed", code: "INTERNAL_ERROR" } });
    expect(JSON.stringify(report)).not.toMatch(/secret|10\.0\.0\.4|internal detail/);
  });

  it("gives up on a check that hangs and still answers within its timeout", async () => {
    const probe = new HealthProbe({ store: () => new Promise(() => {}), queue: async () => {} }, { timeoutMs: 50 });
    const started = performance.now();
    const report = await probe.report();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(report.checks.store).toMatchObject({ status: "failed", code: "TIMEOUT" });
    expect(report.checks.queue!.status).toBe("ok");
  });

  it("reuses a report for the cache period and shares a run in progress, then checks again", async () => {
    let runs = 0;
    let now = 0;
    const probe = new HealthProbe({ store: async () => void runs++ }, { cacheMs: 5000, clock: () => now });
    const [a, b] = await Promise.all([probe.report(), probe.report()]);
    expect(a).toBe(b);
    now = 4999;
    await probe.report();
    expect(runs).toBe(1);
    now = 5000;
    await probe.report();
    expect(runs).toBe(2);
  });
});

describe("queue ping", () => {
  it("in-process: resolves while open and fails once the queue is closed", async () => {
    const queue = new InProcessQueue<{ n: number }>({ name: "events" });
    await expect(queue.ping()).resolves.toBeUndefined();
    await queue.close();
    await expect(queue.ping()).rejects.toThrow(/closed/);
  });

  it("Service Bus: opens the sender's link by building an empty batch, sends nothing, and maps a failure", async () => {
    const calls: string[] = [];
    let failure: unknown;
    const sender = {
      entityPath: "events",
      async createMessageBatch() {
        calls.push("createMessageBatch");
        if (failure) throw failure;
        return {} as never;
      },
      async sendMessages() {
        calls.push("sendMessages");
      },
      async scheduleMessages() {
        calls.push("scheduleMessages");
        return [];
      },
    } as unknown as ServiceBusSenderLike;
    const queue = new ServiceBusQueueSender(sender);
    await queue.ping();
    expect(calls).toEqual(["createMessageBatch"]);
    failure = new ServiceBusError("no claim", "UnauthorizedAccess");
    await expect(queue.ping()).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
  });
});
