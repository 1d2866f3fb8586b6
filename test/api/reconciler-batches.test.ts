import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { OutgoingMessage } from "../../shared/platform/queue/queue";
import type { ReconcileMessage } from "../../shared/domain/reconciler/reconciler-port";
import { ReconcileRunner } from "../../shared/domain/reconciler/reconcile-runner";
import { startTestHost, type TestHost } from "../support/test-host";
import type { Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

/*
 * A pass carries its workspaces in batches (RECONCILE_BATCH_SIZE), one `reconcile` message each;
 * the store operations per workspace are those of one workspace per message; a workspace that fails
 * is re-sent on its own, once, and the rest of its batch is not repeated.
 */
const BATCH = 3;
let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);

let host: TestHost;
let runner: ReconcileRunner;
let workspaceIds: string[];
beforeAll(async () => {
  host = await startTestHost({ now, env: { DEMO_WORKSPACES: "7", RECONCILE_BATCH_SIZE: String(BATCH), RECONCILE_RETRY_DELAY_MS: "0", SIMULATED_INCIDENTS_PER_WORKSPACE: "10" } });
  runner = host.services.reconciler as ReconcileRunner;
  workspaceIds = (await host.services.stores.workspaces.listAll()).map((w) => w.id);
  // The baseline pass, then passes until every window is past its overlap: what follows changes nothing.
  for (let i = 0; i < 3; i++) {
    await pass();
    clock += 100_000;
  }
});
afterAll(async () => {
  await host?.close();
});

async function pass(): Promise<Json> {
  return ((await (await host.local("POST", "/reconcile")).json()) as Json).data;
}

/** What the pass sent and scheduled on the `reconcile` queue, and the reconciler documents it read per workspace. */
async function observedPass(): Promise<{ summary: Json; sent: ReconcileMessage[][]; scheduled: OutgoingMessage<ReconcileMessage>[]; reads: Map<string, number>; workspaceReads: number; writes: number }> {
  const stores = host.services.stores;
  const send = vi.spyOn(runner.queue, "send");
  const schedule = vi.spyOn(runner.queue, "schedule");
  const get = vi.spyOn(stores.reconciler, "get");
  const workspaceGet = vi.spyOn(stores.workspaces, "get");
  const writes = [vi.spyOn(stores.reconciler, "create"), vi.spyOn(stores.reconciler, "replace"), vi.spyOn(stores.incidents, "commit")];
  try {
    const summary = await pass();
    const reads = new Map<string, number>();
    for (const [id] of get.mock.calls) reads.set(id, (reads.get(id) ?? 0) + 1);
    return {
      summary,
      sent: send.mock.calls.map(([messages]) => messages.map((m) => m.body)),
      scheduled: schedule.mock.calls.flatMap(([messages]) => [...messages]),
      reads,
      workspaceReads: workspaceGet.mock.calls.length,
      writes: writes.reduce((n, spy) => n + spy.mock.calls.length, 0),
    };
  } finally {
    for (const spy of [send, schedule, get, workspaceGet, ...writes]) spy.mockRestore();
    clock += 60_000;
  }
}

describe("reconciler batches", () => {
  it("a nothing-changed pass over N workspaces sends ceil(N / batch) messages, each workspace in one, with one workspace and one reconciler-document read each", async () => {
    const n = workspaceIds.length;
    expect(n).toBeGreaterThan(BATCH * 2); // at least three batches, the last one short
    const { summary, sent, scheduled, reads, workspaceReads, writes } = await observedPass();
    const batches = sent.flat();
    expect(batches).toHaveLength(Math.ceil(n / BATCH));
    expect(batches.every((b) => b.workspaceIds.length <= BATCH && !b.retry)).toBe(true);
    expect(batches.flatMap((b) => b.workspaceIds).sort()).toEqual([...workspaceIds].sort());
    expect(scheduled).toEqual([]);
    expect(summary).toMatchObject({ workspaces: n, messages: Math.ceil(n / BATCH), failed: 0, watermarkWrites: 0, vendorCalls: 2 * n, lagMs: 0 });
    expect([...reads.values()]).toEqual(workspaceIds.map(() => 1));
    expect(workspaceReads).toBe(n);
    expect(writes).toBe(0);
  });

  it("a workspace whose share fails is re-sent on its own and reconciled again; the rest of its batch is not", async () => {
    const n = workspaceIds.length;
    const failing = [...workspaceIds].sort()[1]!; // in the first batch, beside two that succeed
    const get = host.services.stores.reconciler.get.bind(host.services.stores.reconciler);
    let failures = 1;
    const flaky = vi.spyOn(host.services.stores.reconciler, "get").mockImplementation(async (id) => {
      if (id === failing && failures-- > 0) throw new Error("store unavailable");
      return get(id);
    });
    try {
      const { summary, scheduled, reads } = await observedPass();
      expect(scheduled.map((m) => m.body)).toEqual([expect.objectContaining({ workspaceIds: [failing], retry: true })]);
      expect(summary).toMatchObject({ workspaces: n, messages: Math.ceil(n / BATCH) + 1, failed: 0 });
      expect(Object.fromEntries(reads)).toEqual(Object.fromEntries(workspaceIds.map((id) => [id, id === failing ? 2 : 1])));
    } finally {
      flaky.mockRestore();
    }
  });

  it("a workspace whose retry fails too is left to the next pass, not re-sent again", async () => {
    const n = workspaceIds.length;
    const failing = [...workspaceIds].sort()[n - 1]!;
    const get = host.services.stores.reconciler.get.bind(host.services.stores.reconciler);
    const broken = vi.spyOn(host.services.stores.reconciler, "get").mockImplementation(async (id) => {
      if (id === failing) throw new Error("store unavailable");
      return get(id);
    });
    try {
      const { summary, scheduled, reads } = await observedPass();
      expect(scheduled).toHaveLength(1);
      expect(summary).toMatchObject({ workspaces: n, messages: Math.ceil(n / BATCH) + 1, failed: 1 });
      expect(reads.get(failing)).toBe(2);
    } finally {
      broken.mockRestore();
    }
    const next = (await observedPass()).summary;
    expect(next).toMatchObject({ workspaces: n, failed: 0, messages: Math.ceil(n / BATCH) });
  });

  it("a timer that fires twice for one pass enqueues each batch once: the batches and their ids follow the workspace ids", async () => {
    const send = vi.spyOn(runner.queue, "send");
    try {
      const passId = "2026-11-20T13:00:00.000Z";
      await runner.startPass(passId);
      await runner.startPass(passId);
      const [first, second] = send.mock.calls.map(([messages]) => messages.map((m) => m.messageId));
      expect(second).toEqual(first);
      expect(new Set(first).size).toBe(Math.ceil(workspaceIds.length / BATCH));
    } finally {
      send.mockRestore();
    }
  });
});
