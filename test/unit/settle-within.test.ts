import { afterEach, describe, expect, it } from "vitest";
import { settleWithin } from "../../shared/platform/concurrency/settle-within";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A promise settled from outside, to hold an item's work exactly as long as a test wants. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
afterEach(() => {
  unhandled.length = 0;
});

describe("settleWithin", () => {
  it("answers each item's outcome in the items' order, whatever order they finish in", async () => {
    const delays = [30, 5, 20, 0, 10];
    const outcomes = await settleWithin(delays, 5, { totalMs: 1_000 }, async (ms) => {
      await sleep(ms);
      return ms * 2;
    });
    expect(outcomes).toEqual(delays.map((ms) => ({ status: "fulfilled", value: ms * 2 })));
  });

  it("keeps at most `limit` items in flight, and starts the next as one ends", async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const outcomes = await settleWithin(Array.from({ length: 12 }, (_, i) => i), 3, { totalMs: 1_000 }, async (i) => {
      started.push(i);
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(5 + (i % 4) * 3);
      inFlight--;
      return i;
    });
    expect(most).toBe(3);
    expect(started).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(outcomes.every((o) => o.status === "fulfilled")).toBe(true);
  });

  it("does not stop the others when one fails: the failure is that item's outcome", async () => {
    const boom = new Error("item 1 failed");
    const outcomes = await settleWithin([0, 1, 2, 3], 1, { totalMs: 1_000 }, async (i) => {
      if (i === 1) throw boom;
      return `item ${i}`;
    });
    expect(outcomes).toEqual([
      { status: "fulfilled", value: "item 0" },
      { status: "rejected", reason: boom },
      { status: "fulfilled", value: "item 2" },
      { status: "fulfilled", value: "item 3" },
    ]);
  });

  it("answers by the budget: an item still running is late, one not yet started is unstarted and is never started", async () => {
    const hang = deferred<string>();
    const started: number[] = [];
    const begun = Date.now();
    const outcomes = await settleWithin([0, 1, 2, 3], 2, { totalMs: 60 }, async (i) => {
      started.push(i);
      if (i === 1) return hang.promise;
      if (i === 2) await sleep(1_000);
      return `item ${i}`;
    });
    const tookMs = Date.now() - begun;
    // Item 0 done at once, its worker took item 2 (slow); item 1 hangs; item 3 had no free worker.
    expect(outcomes).toEqual([{ status: "fulfilled", value: "item 0" }, { status: "late" }, { status: "late" }, { status: "unstarted" }]);
    expect(tookMs).toBeGreaterThanOrEqual(55);
    expect(tookMs).toBeLessThan(500);
    // A late item finishing afterwards changes nothing, and the unstarted one is not started then either.
    hang.resolve("too late");
    await sleep(20);
    expect(outcomes[1]).toEqual({ status: "late" });
    expect(started).toEqual([0, 1, 2]);
  });

  it("leaves nothing unobserved: a late item that fails after the budget raises no unhandled rejection", async () => {
    const late = deferred<string>();
    const outcomes = await settleWithin(["slow", "quick"], 2, { totalMs: 30 }, (item) => (item === "slow" ? late.promise : Promise.resolve(item)));
    expect(outcomes).toEqual([{ status: "late" }, { status: "fulfilled", value: "quick" }]);
    late.reject(new Error("failed after the budget"));
    // Two turns of the event loop: an unhandled rejection would have been reported by then.
    await sleep(10);
    await sleep(10);
    expect(unhandled).toEqual([]);
    expect(outcomes[0]).toEqual({ status: "late" });
  });

  it("answers at once for no items, and passes the signal to each item's work", async () => {
    expect(await settleWithin([], 4, { totalMs: 1_000 }, async () => 1)).toEqual([]);
    const controller = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    await settleWithin([1, 2], 2, { totalMs: 1_000 }, async (_, signal) => void seen.push(signal), controller.signal);
    expect(seen).toEqual([controller.signal, controller.signal]);
  });

  it("with a budget per item, starts every item and marks late only the one that overran its own time", async () => {
    const slow = deferred<string>();
    const outcomes = await settleWithin(["a", "slow", "b", "c"], 1, { eachMs: 40 }, (item) => (item === "slow" ? slow.promise : Promise.resolve(item)));
    expect(outcomes).toEqual([{ status: "fulfilled", value: "a" }, { status: "late" }, { status: "fulfilled", value: "b" }, { status: "fulfilled", value: "c" }]);
    // Settling after its time changes nothing, and is observed (no unhandled rejection).
    slow.reject(new Error("too late"));
    await sleep(10);
    expect(unhandled).toEqual([]);
    expect(outcomes[1]).toEqual({ status: "late" });
  });
});
