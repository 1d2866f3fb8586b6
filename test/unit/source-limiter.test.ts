import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
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

  it("after a 429 with Retry-After, fails every call to that source at once until the time has passed", async () => {
    let clock = 1_000_000;
    const { gateway, pending } = controlledGateway();
    const limited = limitedGateway(gateway, { maxConcurrency: 8 }, () => clock);
    const first = limited.getIncident("ws", "x");
    await tick();
    pending.shift()!.reject(new ApiError("RATE_LIMITED", "SourceA is rate limiting the service (status 429).", { headers: { "Retry-After": "30" } }));
    await expect(first).rejects.toMatchObject({ code: "RATE_LIMITED" });
    clock += 10_000;
    const held = await limited.listIncidents({} as never).catch((e: ApiError) => e);
    expect(held).toMatchObject({ code: "RATE_LIMITED", headers: { "Retry-After": "20" } });
    expect(pending).toHaveLength(0); // the vendor was not called
    clock += 20_000;
    const resumed = limited.getIncident("ws", "x");
    await tick();
    expect(pending).toHaveLength(1);
    pending.shift()!.resolve();
    await expect(resumed).resolves.toMatchObject({ id: "x" });
  });

  it("honours a 5xx's Retry-After too, and ignores failures that say nothing about backing off", async () => {
    let clock = 0;
    const { gateway, pending } = controlledGateway();
    const limited = limitedGateway(gateway, { maxConcurrency: 8 }, () => clock);
    const a = limited.getIncident("ws", "x");
    await tick();
    pending.shift()!.reject(new ApiError("NOT_FOUND", "no such incident"));
    await expect(a).rejects.toMatchObject({ code: "NOT_FOUND" });
    const b = limited.getIncident("ws", "x");
    await tick();
    expect(pending).toHaveLength(1);
    pending.shift()!.reject(new ApiError("UPSTREAM_ERROR", "SourceA failed (status 503).", { headers: { "Retry-After": "5" } }));
    await expect(b).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
    await expect(limited.getIncident("ws", "x")).rejects.toMatchObject({ code: "RATE_LIMITED" });
    clock += 5_000;
    const c = limited.getIncident("ws", "x");
    await tick();
    expect(pending).toHaveLength(1);
    pending.shift()!.resolve();
    await c;
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
