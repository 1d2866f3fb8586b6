import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../shared/platform/config/config";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createRunExecutor } from "../../shared/domain/gamebooks/run-executor";
import { submitRun } from "../../shared/domain/gamebooks/run-submission";
import { cancelGamebookRun } from "../../shared/domain/gamebooks/run-cancellation";
import { seedDemoData } from "../../shared/hosts/local/demo-data";
import { seedDemoGamebooks } from "../../shared/hosts/local/demo-gamebooks";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import { silentLogger } from "../../shared/platform/logger";
import { actorOf } from "../../shared/platform/actor";
import type { PlaybookActions, PlaybookStepRequest } from "../../shared/systems/playbook-automation/port";
import type { OutgoingMessage, ReceivedMessage } from "../../shared/platform/queue/queue";
import { MAX_DELIVERY_COUNT } from "../../shared/platform/queue/queue-names";
import type { Services } from "../../shared/domain/services";
import type { GamebookRunMessage, GamebookRunRecord } from "../../shared/model/gamebooks/gamebook-run";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";

/**
 * The executor's handling of one message, driven directly: the queue's own executor never sees the
 * messages (they are captured), so each test decides what is delivered and when.
 */

let services: Services;
let workspace: WorkspaceRecord;
let sent: OutgoingMessage<GamebookRunMessage>[];
let scheduled: { message: OutgoingMessage<GamebookRunMessage>; at: Date }[];
let behaviour: (request: PlaybookStepRequest) => Promise<{ status: "Succeeded" | "Failed"; errorMessage: string | null; durationMs: number }>;
const now = new Date("2026-03-02T09:00:00.000Z");

beforeEach(async () => {
  const automation: PlaybookActions = {
    enabled: true,
    execute: async (request) => ({ ...(await behaviour(request)), output: {} }),
    listPlaybooks: async () => [],
  };
  behaviour = async () => ({ status: "Succeeded", errorMessage: null, durationMs: 1500 });
  ({ services } = createLocalServices(loadConfig({}), { logger: silentLogger, playbookActions: automation, now: () => now }));
  const { data } = await seedDemoData(services);
  await seedDemoGamebooks(services, data);
  workspace = data.workspaces[0]!;
  sent = [];
  scheduled = [];
  vi.spyOn(services.events.gamebookRuns, "send").mockImplementation(async (messages) => void sent.push(...(messages as OutgoingMessage<GamebookRunMessage>[])));
  vi.spyOn(services.events.gamebookRuns, "schedule").mockImplementation(async (messages, at) => void scheduled.push(...(messages as OutgoingMessage<GamebookRunMessage>[]).map((message) => ({ message, at }))));
});
afterEach(() => vi.restoreAllMocks());

/** A dispatched run of two automation playbooks on the newest SourceA incident with an account. */
async function dispatchedRun(): Promise<GamebookRunRecord> {
  const page = await services.sources.gateway("SourceA").listIncidents({
    workspaceId: workspace.id,
    field: "createdAt",
    from: "2000-01-01T00:00:00.000Z",
    to: now.toISOString(),
    limit: 50,
  });
  const incident = page.items.find((i) => i.entities.some((e) => e.kind === "Account"))!;
  const account = incident.entities.find((e) => e.kind === "Account")!;
  const catalogue = (await services.stores.playbookCatalogues.get(workspace.id))!;
  const id = (ref: string) => catalogue.playbooks.find((p) => p.referenceId === ref)!.id;
  const principal = { serviceAccountId: "sa-1", name: "SOAR connector", accountId: workspace.accountId } as Parameters<typeof actorOf>[0];
  return submitRun(
    { ...services, actor: actorOf(principal) },
    {
      workspace,
      tracingId: "trace-1",
      request: {
        incidentId: incident.id,
        incidentTitle: incident.title,
        source: "SourceA",
        isQueued: false,
        playbooks: [
          { id: id("revoke-sessions"), sequence: 1, entityId: account.id, parameters: {} },
          { id: id("notify-owner"), sequence: 2, entityId: account.id, parameters: {} },
        ],
      },
    },
  );
}

const delivered = (message: OutgoingMessage<GamebookRunMessage>, deliveryCount = 1): ReceivedMessage<GamebookRunMessage> => ({
  messageId: message.messageId,
  body: message.body,
  deliveryCount,
  enqueuedAt: now,
});

async function current(run: GamebookRunRecord): Promise<GamebookRunRecord> {
  return (await services.stores.gamebookRuns.get(run.workspaceId, run.id))!.value;
}

describe("the gamebook executor", () => {
  it("carries out one playbook per message and commits the next playbook's message with its outcome", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    expect(sent.map((m) => m.messageId)).toEqual([`gamebook-run/${run.id}/1/1`]);
    await executor.handle(delivered(sent[0]!));
    expect((await current(run)).playbooks.map((p) => p.status)).toEqual(["Succeeded", "Pending"]);
    expect((await current(run)).status).toBe("Running");
    expect(sent.map((m) => m.body)).toEqual([
      { workspaceId: workspace.id, runId: run.id, sequence: 1, attempt: 1 },
      { workspaceId: workspace.id, runId: run.id, sequence: 2, attempt: 1 },
    ]);
    await executor.handle(delivered(sent[1]!));
    const done = await current(run);
    expect(done.status).toBe("Succeeded");
    expect(done.playbooks[1]!.executionTime).toBe("00:00:01.500");
    expect(sent).toHaveLength(2);
  });

  it("writes on the version it read, and re-reads only when another writer came between", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    const reads = vi.spyOn(services.stores.gamebookRuns, "get");
    // While the playbook runs, someone else writes the run: the outcome's first write loses the race.
    behaviour = async () => {
      const held = (await services.stores.gamebookRuns.get(run.workspaceId, run.id))!;
      await services.stores.gamebookRuns.replace({ ...held.value, tracingId: "touched-while-running" }, held.etag);
      return { status: "Succeeded", errorMessage: null, durationMs: 900 };
    };
    await executor.handle(delivered(sent[0]!));
    // The message's read, the other writer's read, and the re-read after the lost race.
    expect(reads).toHaveBeenCalledTimes(3);
    const after = await current(run);
    expect(after.playbooks.map((p) => p.status)).toEqual(["Succeeded", "Pending"]);
    expect(after.tracingId).toBe("touched-while-running");
    expect(sent).toHaveLength(2);

    reads.mockClear();
    behaviour = async () => ({ status: "Succeeded", errorMessage: null, durationMs: 900 });
    await executor.handle(delivered(sent[1]!));
    expect(reads).toHaveBeenCalledTimes(1);
    expect((await current(run)).status).toBe("Succeeded");
  });

  it("a message for a playbook that is no longer next, or a repeat of a finished one, does nothing", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    const calls = vi.fn(behaviour);
    behaviour = calls;
    await executor.handle(delivered(sent[0]!));
    const after = await current(run);
    await executor.handle(delivered(sent[0]!, 2));
    expect(await current(run)).toEqual(after);
    expect(calls).toHaveBeenCalledTimes(1);
  });

  it("a system that cannot be reached is retried later under the same step id, the playbook left Running", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services, retryDelaysMs: [1000, 5000] });
    const stepIds: string[] = [];
    behaviour = async (request) => {
      stepIds.push(request.stepId);
      throw new ApiError("TIMEOUT", "Playbook automation did not answer in time.");
    };
    await executor.handle(delivered(sent[0]!));
    expect(scheduled.map((s) => [s.message.body.attempt, s.at.getTime() - now.getTime()])).toEqual([[2, 1000]]);
    expect((await current(run)).playbooks[0]!.status).toBe("Running");

    await executor.handle(delivered(scheduled[0]!.message));
    expect(scheduled.map((s) => s.message.body.attempt)).toEqual([2, 3]);
    expect(scheduled[1]!.at.getTime() - now.getTime()).toBe(5000);
    // The last retry records the failure, and the run ends.
    await executor.handle(delivered(scheduled[1]!.message));
    const failed = await current(run);
    expect(failed.status).toBe("Failed");
    expect(failed.playbooks.map((p) => p.status)).toEqual(["Failed", "Skipped"]);
    expect(failed.playbooks[0]!.errorMessage).toBe("Gave up after 3 attempts: Playbook automation did not answer in time.");
    expect(new Set(stepIds)).toEqual(new Set([failed.playbooks[0]!.id]));
    expect(stepIds).toHaveLength(3);
  });

  it("a throttled system's Retry-After is waited for when it is longer than the pause", async () => {
    await dispatchedRun();
    const executor = createRunExecutor({ services, retryDelaysMs: [1000] });
    behaviour = async () => {
      throw new ApiError("RATE_LIMITED", "Throttled.", { headers: { "Retry-After": "90" } });
    };
    await executor.handle(delivered(sent[0]!));
    expect(scheduled[0]!.at.getTime() - now.getTime()).toBe(90_000);
  });

  it("a refusal that retrying cannot change fails the playbook at once, with the reason", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    behaviour = async () => {
      throw new ApiError("EXTENSION_NOT_ENABLED", "The playbook automation integration is not enabled for this deployment.");
    };
    await executor.handle(delivered(sent[0]!));
    const failed = await current(run);
    expect([failed.status, failed.playbooks[0]!.errorMessage]).toEqual(["Failed", "The playbook automation integration is not enabled for this deployment."]);
    expect(scheduled).toEqual([]);
  });

  it("a defect is left to the queue's redelivery, and on the last delivery the playbook is recorded Failed so that the run ends", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    behaviour = async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'tenantId')");
    };
    await expect(executor.handle(delivered(sent[0]!, 1))).rejects.toThrow(TypeError);
    await expect(executor.handle(delivered(sent[0]!, MAX_DELIVERY_COUNT - 1))).rejects.toThrow(TypeError);
    expect((await current(run)).status).toBe("Running");

    await executor.handle(delivered(sent[0]!, MAX_DELIVERY_COUNT));
    const ended = await current(run);
    expect([ended.status, ended.playbooks.map((p) => p.status)]).toEqual(["Failed", ["Failed", "Skipped"]]);
    expect(ended.playbooks[0]!.errorMessage).toBe(`The service failed internally on each of ${MAX_DELIVERY_COUNT} attempts to run this playbook.`);
    expect(ended.playbooks[0]!.errorMessage).not.toContain("tenantId");
    expect(scheduled).toEqual([]);
  });

  it("honours a cancellation: a cancelled run never starts a playbook, whichever message arrives", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    const calls = vi.fn(behaviour);
    behaviour = calls;
    const person = { ...services, actor: { origin: "portal" as const, serviceAccountId: null, name: "Li Wei", accountId: workspace.accountId } };
    const cancelled = await cancelGamebookRun(person, { workspace, runId: run.id, cancelledBy: { userId: "li", name: "Li Wei" }, reason: null });
    expect([cancelled.status, cancelled.playbooks.map((p) => p.status)]).toEqual(["Cancelled", ["Skipped", "Skipped"]]);
    // The dispatch message, delivered after the cancellation, and a stray one for the second playbook.
    await executor.handle(delivered(sent[0]!));
    await executor.handle(delivered({ messageId: "stray", body: { workspaceId: workspace.id, runId: run.id, sequence: 2, attempt: 1 } }));
    expect(calls).not.toHaveBeenCalled();
    expect((await current(run)).playbooks.map((p) => p.status)).toEqual(["Skipped", "Skipped"]);
    expect(sent).toHaveLength(1);
  });

  it("honours a cancellation while a playbook runs: its outcome is recorded when it arrives, and nothing after it starts", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    const person = { ...services, actor: { origin: "portal" as const, serviceAccountId: null, name: "Li Wei", accountId: workspace.accountId } };
    const executed: number[] = [];
    behaviour = async (request) => {
      executed.push(run.playbooks.find((p) => p.id === request.stepId)!.sequence);
      // Cancelled while the backend carries the playbook out.
      await cancelGamebookRun(person, { workspace, runId: run.id, cancelledBy: { userId: "li", name: "Li Wei" }, reason: "Wrong account." });
      return { status: "Succeeded", errorMessage: null, durationMs: 2500 };
    };
    await executor.handle(delivered(sent[0]!));
    const after = await current(run);
    expect(after.status).toBe("Cancelled");
    expect(after.playbooks.map((p) => p.status)).toEqual(["Succeeded", "Skipped"]);
    expect(after.playbooks[0]!.executionTime).toBe("00:00:02.500");
    expect(after.cancellation).toMatchObject({ by: "Li Wei", reason: "Wrong account." });
    // No message for the second playbook was committed with the outcome; delivering one anyway runs nothing.
    expect(sent).toHaveLength(1);
    await executor.handle(delivered({ messageId: "stray", body: { workspaceId: workspace.id, runId: run.id, sequence: 2, attempt: 1 } }));
    expect(executed).toEqual([1]);
  });

  it("honours a cancellation while a playbook waits to be tried again: it is not tried again, and is recorded Failed saying why", async () => {
    const run = await dispatchedRun();
    const executor = createRunExecutor({ services });
    const person = { ...services, actor: { origin: "portal" as const, serviceAccountId: null, name: "Li Wei", accountId: workspace.accountId } };
    let calls = 0;
    behaviour = async () => {
      calls++;
      throw new ApiError("TIMEOUT", "The automation backend did not answer in time.");
    };
    await executor.handle(delivered(sent[0]!));
    expect(scheduled.map((s) => s.message.body)).toEqual([{ workspaceId: workspace.id, runId: run.id, sequence: 1, attempt: 2 }]);
    await cancelGamebookRun(person, { workspace, runId: run.id, cancelledBy: { userId: "li", name: "Li Wei" }, reason: null });
    expect((await current(run)).playbooks.map((p) => p.status)).toEqual(["Running", "Skipped"]);

    behaviour = async () => {
      calls++;
      return { status: "Succeeded", errorMessage: null, durationMs: 100 };
    };
    await executor.handle(delivered(scheduled[0]!.message));
    expect(calls).toBe(1);
    const after = await current(run);
    expect([after.status, after.playbooks.map((p) => p.status)]).toEqual(["Cancelled", ["Failed", "Skipped"]]);
    expect(after.playbooks[0]!.errorMessage).toContain("cancelled while this playbook waited to be tried again");
    expect(sent).toHaveLength(1);
  });

  it("refuses a message that is not one of its own, so that it ends in the dead-letter queue", async () => {
    const executor = createRunExecutor({ services });
    await expect(executor.handle({ messageId: "x", body: { runId: 1 } as never, deliveryCount: 1, enqueuedAt: now })).rejects.toThrow(/Malformed/);
  });
});
