import { describe, expect, it } from "vitest";
import { SerialRuns } from "../../shared/platform/concurrency/serial-runs";

/** A run that waits until released, recording when it started and what it saw. */
function gatedRuns() {
  const started: { key: string; saw: number }[] = [];
  const gates: (() => void)[] = [];
  let stored = 0;
  const runs = new SerialRuns(async (key: string) => {
    started.push({ key, saw: stored });
    await new Promise<void>((release) => gates.push(release));
  });
  const releaseNext = async () => {
    gates.shift()?.();
    // Let the loop settle the run's promise and start the next.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { runs, started, releaseNext, store: () => stored++ };
}

describe("SerialRuns", () => {
  it("runs one at a time per key, and the requests made during a run share one run after it", async () => {
    const { runs, started, releaseNext, store } = gatedRuns();
    store();
    const first = runs.request("t");
    store();
    const during = [runs.request("t"), runs.request("t"), runs.request("t")];
    expect(started).toEqual([{ key: "t", saw: 1 }]);

    await releaseNext();
    await first;
    // The next run started after every request made during the first, and saw what they stored.
    expect(started).toEqual([
      { key: "t", saw: 1 },
      { key: "t", saw: 2 },
    ]);
    await releaseNext();
    await Promise.all(during);
    expect(started).toHaveLength(2);
    expect(runs.active).toBe(0);
  });

  it("a request's promise settles only with a run that started after it", async () => {
    const { runs, releaseNext } = gatedRuns();
    void runs.request("t");
    let settled = false;
    const later = runs.request("t").then(() => (settled = true));
    await releaseNext();
    expect(settled).toBe(false);
    await releaseNext();
    await later;
    expect(settled).toBe(true);
  });

  it("keys run independently", async () => {
    const { runs, started, releaseNext } = gatedRuns();
    void runs.request("a");
    void runs.request("b");
    expect(started.map((s) => s.key)).toEqual(["a", "b"]);
    expect(runs.active).toBe(2);
    await releaseNext();
    await releaseNext();
    expect(runs.active).toBe(0);
  });

  it("a failed run rejects its requests, and the next run still goes ahead", async () => {
    let calls = 0;
    const runs = new SerialRuns(async () => {
      calls++;
      if (calls === 1) throw new Error("store unavailable");
    });
    const first = runs.request("t");
    const second = runs.request("t");
    await expect(first).rejects.toThrow("store unavailable");
    await expect(second).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
