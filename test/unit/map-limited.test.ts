import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { mapLimited } from "../../shared/platform/concurrency/map-limited";

describe("mapLimited", () => {
  it("answers in the items' order with at most `limit` in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapLimited([30, 5, 20, 1, 10, 2], 2, async (ms) => {
      most = Math.max(most, ++inFlight);
      await sleep(ms);
      inFlight--;
      return ms * 2;
    });
    expect(results).toEqual([60, 10, 40, 2, 20, 4]);
    expect(most).toBe(2);
  });

  it("stops at the first failure: nothing more starts, the calls in flight are aborted, the first error is thrown after they settle", async () => {
    const started: number[] = [];
    const aborted: number[] = [];
    let settled = 0;
    const run = mapLimited([0, 1, 2, 3, 4, 5], 2, async (i, signal) => {
      started.push(i);
      try {
        if (i === 1) throw new Error("item 1 failed");
        await sleep(50, undefined, { signal });
        return i;
      } catch (error) {
        if (signal.aborted && i !== 1) aborted.push(i);
        throw i === 1 ? error : new Error(`item ${i} aborted`);
      } finally {
        settled++;
      }
    });
    await expect(run).rejects.toThrow("item 1 failed");
    expect(started).toEqual([0, 1]);
    expect(aborted).toEqual([0]);
    expect(settled).toBe(2);
  });

  it("passes the caller's abort on to every call", async () => {
    const caller = new AbortController();
    const withSignal = mapLimited([1, 2], 2, (_, signal) => sleep(10_000, undefined, { signal }), caller.signal);
    caller.abort();
    await expect(withSignal).rejects.toThrow(/abort/i);
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
  });
});
