import { describe, expect, it } from "vitest";
import type { SourceGateway, VendorIncident } from "../../shared/systems/vendors/port";
import { limitedGateway } from "../../shared/systems/vendors/limiter";

/** A gateway whose calls wait until the test lets them finish, counting how many are in flight. */
function controlledGateway() {
  const pending: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const call = () =>
    new Promise<VendorIncident>((resolve, reject) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      pending.push({
        resolve: () => (inFlight--, resolve({ id: "x" } as VendorIncident)),
        reject: (e) => (inFlight--, reject(e)),
      });
    });
  const gateway = fakeGateway(call);
  return { gateway, pending, stats: () => ({ inFlight, maxInFlight }) };
}

const tick = () => new Promise((r) => setImmediate(r));

function fakeGateway(call: () => Promise<unknown>): SourceGateway {
  const names = ["getIncident", "listIncidents", "setStatus", "setOwner", "listComments", "addComment", "deleteComment", "getEvidence", "relatedByEntity"];
  return { source: "SourceA", ...Object.fromEntries(names.map((n) => [n, call])) } as unknown as SourceGateway;
}

describe("source limiter", () => {
  it("keeps at most maxConcurrency calls in flight towards a vendor; the others wait their turn", async () => {
    const { gateway, pending, stats } = controlledGateway();
    const limited = limitedGateway(gateway, { maxConcurrency: 3 });
    const results = Array.from({ length: 10 }, () => limited.getIncident("ws", "x"));
    await tick();
    expect(stats().inFlight).toBe(3);
    while (pending.length > 0) {
      pending.shift()!.resolve();
      await tick();
      await tick();
    }
    await Promise.all(results);
    expect(stats().maxInFlight).toBe(3);
  });

  it("spaces call starts to maxRequestsPerSecond, waiting rather than spinning", async () => {
    let clock = 0;
    const started: number[] = [];
    const gateway = fakeGateway(async () => (started.push(clock), {} as VendorIncident));
    // A clock that moves only when the limiter waits: the starts it asks for, exactly.
    const wait = async (ms: number) => void (clock = Math.max(clock, ms + clock));
    const limited = limitedGateway(gateway, { maxConcurrency: 10, maxRequestsPerSecond: 100 }, () => clock, wait);
    for (let i = 0; i < 5; i++) await limited.getIncident("ws", "x");
    expect(started).toEqual([0, 10, 20, 30, 40]);
  });
});
