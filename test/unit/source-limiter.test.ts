import { describe, expect, it } from "vitest";
import { SourceLimiter } from "../../shared/systems/vendors/limiter";

const tick = () => new Promise((r) => setImmediate(r));

/** Calls that enter the limiter and then wait until the test lets them finish, counting how many are in flight. */
function controlled(limiter: SourceLimiter) {
  const finishers: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const call = async (signal?: AbortSignal) => {
    const leave = await limiter.enter(signal);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((resolve) => finishers.push(resolve));
    inFlight--;
    leave();
  };
  return { call, finishers, stats: () => ({ inFlight, maxInFlight }) };
}

describe("source limiter", () => {
  it("keeps at most maxConcurrency calls in flight towards a vendor; the others wait their turn", async () => {
    const { call, finishers, stats } = controlled(new SourceLimiter({ maxConcurrency: 3 }));
    const results = Array.from({ length: 10 }, () => call());
    await tick();
    expect(stats().inFlight).toBe(3);
    let finished = 0;
    while (finished < 10) {
      await tick();
      finishers.shift()?.();
      finished++;
      await tick();
      // A place given back goes to the next in line, and no newcomer takes it meanwhile.
      expect(stats().inFlight).toBeLessThanOrEqual(3);
    }
    await Promise.all(results);
    expect(stats().maxInFlight).toBe(3);
  });

  it("lets a caller whose signal aborts leave the line at once, its place kept for the others", async () => {
    const { call, finishers, stats } = controlled(new SourceLimiter({ maxConcurrency: 1 }));
    const first = call();
    const gone = new AbortController();
    const abandoned = call(gone.signal);
    const third = call();
    await tick();
    gone.abort(new Error("the page stopped waiting"));
    await expect(abandoned).rejects.toThrow("the page stopped waiting");
    expect(stats().inFlight).toBe(1);
    finishers.shift()!();
    await tick();
    await tick();
    // The third, not the abandoned one, has the place.
    expect(stats().inFlight).toBe(1);
    finishers.shift()!();
    await Promise.all([first, third]);
    expect(stats().maxInFlight).toBe(1);
    await expect(new SourceLimiter({ maxConcurrency: 1 }).enter(AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });

  it("spaces call starts to maxRequestsPerSecond, waiting rather than spinning", async () => {
    let clock = 0;
    const started: number[] = [];
    // A clock that moves only when the limiter waits: the starts it asks for, exactly.
    const wait = async (ms: number) => void (clock = Math.max(clock, ms + clock));
    const limiter = new SourceLimiter({ maxConcurrency: 10, maxRequestsPerSecond: 100 }, () => clock, wait);
    for (let i = 0; i < 5; i++) {
      const leave = await limiter.enter();
      started.push(clock);
      leave();
    }
    expect(started).toEqual([0, 10, 20, 30, 40]);
  });

  it("refuses a limit that is not a positive whole number", () => {
    expect(() => new SourceLimiter({ maxConcurrency: 0 })).toThrow("maxConcurrency");
  });
});
