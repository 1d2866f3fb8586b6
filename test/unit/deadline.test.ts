import { describe, expect, it } from "vitest";
import { commitWithin, Deadline, defaultReserveMs } from "../../shared/platform/concurrency/deadline";
import { callerOf, InFlightLimit, shedError } from "../../shared/platform/http/admission";
import { SESSION_COOKIE } from "../../shared/platform/auth/portal-session";
import { isApiError } from "../../shared/platform/errors/api-error";

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("Deadline", () => {
  it("aborts its signal and settles `reached` when the budget runs out, with a TIMEOUT reason", async () => {
    const deadline = new Deadline(30);
    expect(deadline.signal.aborted).toBe(false);
    await deadline.reached;
    expect(deadline.expired).toBe(true);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toMatchObject({ code: "TIMEOUT", status: 504, commit: "none" });
  });

  it("expires each deadline at its own time on one shared timer: a shorter one made later first, a finished one never", async () => {
    const long = new Deadline(400);
    const finished = new Deadline(60);
    const short = new Deadline(40);
    finished.finish();
    await short.reached;
    expect([short.expired, long.expired]).toEqual([true, false]);
    expect(performance.now()).toBeGreaterThanOrEqual(short.endsAt);
    await long.reached;
    expect(long.expired).toBe(true);
    expect(performance.now()).toBeGreaterThanOrEqual(long.endsAt);
    expect(finished.expired).toBe(false);
  });

  it("aborts its signal when the caller goes away, without expiring", () => {
    const client = new AbortController();
    const deadline = new Deadline(10_000, undefined, client.signal);
    client.abort();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(false);
    deadline.finish();
  });

  it("refuses the first write once expired, and says nothing was changed", async () => {
    const deadline = new Deadline(10_000);
    deadline.expire();
    let wrote = false;
    const error = await rejection(deadline.commit(async () => (wrote = true)));
    expect(wrote).toBe(false);
    expect(isApiError(error) && error.code === "TIMEOUT" && error.commit).toBe("none");
  });

  it("refuses to start a write with less than its reserve left, and expires at once", async () => {
    const deadline = new Deadline(10_000, 20_000);
    const error = await rejection(deadline.commit(async () => "written"));
    expect(isApiError(error) && error.commit).toBe("none");
    expect(deadline.expired).toBe(true);
  });

  it("lets the rest of a change follow its first write past the deadline, and reports each state", async () => {
    const deadline = new Deadline(10_000, 0);
    expect(deadline.commitState).toBe("none");
    let release!: () => void;
    const first = deadline.commit(() => new Promise<string>((resolve) => (release = () => resolve("vendor"))));
    expect(deadline.commitState).toBe("in-progress");
    deadline.expire();
    expect(deadline.timeoutError().commit).toBe("in-progress");
    release();
    expect(await first).toBe("vendor");
    expect(deadline.commitState).toBe("committed");
    // The state that records the vendor's change still commits: the change is not left half-made.
    expect(await deadline.commit(async () => "state")).toBe("state");
    // The answer given at the deadline keeps what was true then.
    expect(deadline.timeoutError().commit).toBe("in-progress");
  });

  it("gives a write the caller's signal only: the deadline passing does not abort it", async () => {
    const client = new AbortController();
    const deadline = new Deadline(10_000, 0, client.signal);
    const seen = await deadline.commit(async (signal) => signal);
    expect(seen).toBe(client.signal);
    deadline.finish();
  });

  it("commitWithin runs a write as it is without a deadline, and through the deadline with one", async () => {
    expect(await commitWithin(undefined, async () => "plain")).toBe("plain");
    const deadline = new Deadline(10_000);
    deadline.expire();
    let started = false;
    const error = await rejection(commitWithin(deadline, async () => void (started = true)));
    expect([isApiError(error) && error.code, started]).toEqual(["TIMEOUT", false]);
  });

  it("reserves a quarter of a short budget for a write, at most 2 s", () => {
    expect(defaultReserveMs(1_000)).toBe(250);
    expect(defaultReserveMs(20_000)).toBe(2_000);
  });
});

describe("InFlightLimit", () => {
  it("admits up to its bound, then refuses until a place is given back", () => {
    const limit = new InFlightLimit(2);
    expect([limit.tryEnter("a"), limit.tryEnter("b"), limit.tryEnter("c")]).toEqual([true, true, false]);
    expect(limit.inFlight).toBe(2);
    limit.leave("a");
    expect(limit.tryEnter("c")).toBe(true);
  });

  it("keeps the last quarter of its places for callers below their fair share", () => {
    const limit = new InFlightLimit(8);
    expect(limit.reserved).toBe(2);
    // One busy caller takes the unreserved six, then is refused while the reserve is free (its share:
    // 8 / (1 caller + the newcomer) = 4).
    expect(Array.from({ length: 7 }, () => limit.tryEnter("busy"))).toEqual([true, true, true, true, true, true, false]);
    // Another caller (its share: 8 / 3) takes the reserve, a second request included.
    expect([limit.tryEnter("poller"), limit.tryEnter("poller")]).toEqual([true, true]);
    expect(limit.tryEnter("person")).toBe(false);
    expect(limit.inFlight).toBe(8);
    // A place given back within the reserve goes to a caller below its share (person: 8 / 4), not the busy one.
    limit.leave("poller");
    expect(limit.tryEnter("busy")).toBe(false);
    expect(limit.tryEnter("person")).toBe(true);
    // The busy caller's requests ending free the way: below the reserve it is admitted again.
    for (let i = 0; i < 3; i++) limit.leave("busy");
    expect(limit.inFlight).toBe(5);
    expect(limit.tryEnter("busy")).toBe(true);
    expect(limit.tryEnter("busy")).toBe(false);
    // Giving back a place never held changes nothing.
    limit.leave("nobody");
    expect(limit.inFlight).toBe(6);
  });

  it("a bound of one has no reserve", () => {
    const limit = new InFlightLimit(1);
    expect(limit.reserved).toBe(0);
    expect([limit.tryEnter("a"), limit.tryEnter("b")]).toEqual([true, false]);
  });

  it("knows the caller a request names before it is authenticated: the credentials it presents, its portal session, or none", () => {
    const request = (headers: Record<string, string>) => ({ header: (name: string) => headers[name] });
    const basic = `Basic ${Buffer.from("8f0e2a4c-1b3d-4e5f-9a7b-6c5d4e3f2a1b:secret").toString("base64")}`;
    expect(callerOf(request({ authorization: basic, cookie: `${SESSION_COOKIE}=sealed.value` }))).toBe(basic);
    expect(callerOf(request({ cookie: `theme=dark; ${SESSION_COOKIE}=sealed.value` }))).toBe("sealed.value");
    expect(callerOf(request({ cookie: "theme=dark" }))).toBe("");
    expect(callerOf(request({}))).toBe("");
  });

  it("sheds with a 429 RATE_LIMITED problem that says when to come back", () => {
    const error = shedError(new InFlightLimit(100));
    expect(error).toMatchObject({ code: "RATE_LIMITED", status: 429, headers: { "Retry-After": "1" } });
  });
});
