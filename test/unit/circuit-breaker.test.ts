import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ApiError } from "../../shared/platform/errors/api-error";
import {
  CLOSED,
  CircuitBreakers,
  WORKSPACE_BREAKER,
  decideBreaker,
  isCircuitOpen,
  type BreakerState,
} from "../../shared/platform/upstream/circuit-breaker";
import type { Logger } from "../../shared/platform/logger";

const failed = (code: "UPSTREAM_ERROR" | "TIMEOUT" | "RATE_LIMITED" = "UPSTREAM_ERROR", retryAfterMs?: number) =>
  ({ kind: "failure", failure: { code, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) } }) as const;

describe("decideBreaker", () => {
  const step = (state: BreakerState, event: Parameters<typeof decideBreaker>[1], now = 0) => decideBreaker(state, event, now, WORKSPACE_BREAKER);

  it("opens on the second failure in a row for 30 s, and a success between resets the count", () => {
    const one = step(CLOSED, failed()).state;
    expect(one).toEqual({ state: "closed", failures: 1 });
    expect(step(step(one, { kind: "success" }).state, failed()).state).toEqual({ state: "closed", failures: 1 });
    const two = step(one, failed(), 1_000);
    expect(two.change).toBe("opened");
    expect(two.state).toMatchObject({ state: "open", until: 31_000, opens: 1 });
    expect(step(two.state, { kind: "admit" }, 30_999).admitted).toBe(false);
  });

  it("opens at once on a failure carrying Retry-After, for at least that long", () => {
    const open = step(CLOSED, failed("RATE_LIMITED", 90_000), 0);
    expect(open.state).toMatchObject({ state: "open", until: 90_000, last: { code: "RATE_LIMITED" } });
    // A short Retry-After does not shorten the cool-down.
    expect(step(CLOSED, failed("RATE_LIMITED", 5_000), 0).state).toMatchObject({ until: 30_000 });
  });

  it("lets one trial through when the cool-down is over; a success closes, a failure reopens for twice as long", () => {
    const open = step(step(CLOSED, failed()).state, failed(), 0).state;
    const trial = step(open, { kind: "admit" }, 30_000);
    expect(trial).toMatchObject({ admitted: true, state: { state: "half-open" } });
    expect(step(trial.state, { kind: "admit" }, 30_001).admitted).toBe(false);
    expect(step(trial.state, { kind: "success" }, 30_500)).toEqual({ state: CLOSED, change: "closed" });
    const reopened = step(trial.state, failed("TIMEOUT"), 40_000);
    expect(reopened).toMatchObject({ change: "opened", state: { state: "open", until: 100_000, opens: 2, last: { code: "TIMEOUT" } } });
  });

  it("caps the doubling cool-down at 5 minutes", () => {
    let state: BreakerState = { state: "half-open", opens: 12, last: { code: "UPSTREAM_ERROR" }, failures: 30 };
    state = step(state, failed(), 0).state;
    expect(state).toMatchObject({ state: "open", until: 300_000 });
  });

  it("a trial that told nothing (the caller went away) frees the way for the next", () => {
    const halfOpen: BreakerState = { state: "half-open", opens: 1, last: { code: "UPSTREAM_ERROR" }, failures: 2 };
    const freed = step(halfOpen, { kind: "abandoned" }, 50_000).state;
    expect(step(freed, { kind: "admit" }, 50_000).admitted).toBe(true);
  });

  it("bounds the calls to an upstream that always fails: at most 3 in any minute, whatever the callers' pace", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 400 }), (gaps) => {
        let state: BreakerState = CLOSED;
        let now = 0;
        const calls: number[] = [];
        for (const gap of gaps) {
          now += gap;
          const admit = step(state, { kind: "admit" }, now);
          state = admit.state;
          if (!admit.admitted) continue;
          calls.push(now);
          state = step(state, failed(), now).state;
        }
        for (let i = 0; i + 3 < calls.length; i++) expect(calls[i + 3]! - calls[i]!).toBeGreaterThanOrEqual(60_000);
      }),
    );
  });
});

function recordingLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  return { logger, lines };
}

describe("CircuitBreakers", () => {
  const setup = () => {
    let clock = 1_000_000;
    const { logger, lines } = recordingLogger();
    const breakers = new CircuitBreakers({ logger, nowMs: () => clock });
    let calls = 0;
    const fail = (error: ApiError) => () => (calls++, Promise.reject(error));
    const ok = () => (calls++, Promise.resolve("ok"));
    return { breakers, lines, fail, ok, calls: () => calls, advance: (ms: number) => (clock += ms) };
  };
  const ws = (workspaceId: string) => ({ system: "SourceA", workspaceId });

  it("after two failures refuses a workspace's calls at once with the last code and Retry-After, and logs the opening", async () => {
    const { breakers, lines, fail, ok, calls, advance } = setup();
    const boom = new ApiError("UPSTREAM_ERROR", "SourceA failed (status 500).");
    await expect(breakers.call(ws("w1"), fail(boom))).rejects.toBe(boom);
    await expect(breakers.call(ws("w1"), fail(boom))).rejects.toBe(boom);
    advance(4_000);
    const refused = await breakers.call(ws("w1"), ok).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "UPSTREAM_ERROR", headers: { "Retry-After": "26" } });
    expect(isCircuitOpen(refused)).toBe(true);
    expect(calls()).toBe(2);
    expect(lines).toContainEqual(expect.objectContaining({ level: "warn", message: "circuit opened", fields: expect.objectContaining({ system: "SourceA", workspaceId: "w1", code: "UPSTREAM_ERROR" }) }));
    // Another workspace of the same source goes on.
    await expect(breakers.call(ws("w2"), ok)).resolves.toBe("ok");
    expect(breakers.report()).toMatchObject({ open: 1, breakers: [{ system: "SourceA", workspaceId: "w1", state: "open", code: "UPSTREAM_ERROR", opens: 1 }] });
  });

  it("closes after a successful trial once the cool-down is over, and logs it", async () => {
    const { breakers, lines, fail, ok, advance } = setup();
    await breakers.call(ws("w1"), fail(new ApiError("RATE_LIMITED", "429", { headers: { "Retry-After": "45" } }))).catch(() => undefined);
    await expect(breakers.call(ws("w1"), ok)).rejects.toMatchObject({ code: "RATE_LIMITED", headers: { "Retry-After": "45" } });
    advance(45_000);
    await expect(breakers.call(ws("w1"), ok)).resolves.toBe("ok");
    expect(lines.at(-1)).toMatchObject({ level: "info", message: "circuit closed", fields: { system: "SourceA", workspaceId: "w1" } });
    expect(breakers.report().open).toBe(0);
  });

  it("an answer (NOT_FOUND, a rejected change) is not a failure; a caller that went away tells nothing", async () => {
    const { breakers, fail, ok } = setup();
    for (let i = 0; i < 5; i++) await breakers.call(ws("w1"), fail(new ApiError("NOT_FOUND", "no such incident"))).catch(() => undefined);
    const gone = AbortSignal.abort();
    for (let i = 0; i < 5; i++) await breakers.call(ws("w1"), fail(new ApiError("UPSTREAM_ERROR", "aborted")), gone).catch(() => undefined);
    await expect(breakers.call(ws("w1"), ok)).resolves.toBe("ok");
  });

  it("opens the whole source after 10 failures in a row across its workspaces, and a workspace's refusal spends no trial of it", async () => {
    const { breakers, fail, ok, calls, advance } = setup();
    const down = new ApiError("TIMEOUT", "SourceA did not answer within 10000 ms.");
    for (let i = 0; i < 10; i++) await breakers.call(ws(`w${i}`), fail(down)).catch(() => undefined);
    expect(calls()).toBe(10);
    const refused = await breakers.call(ws("fresh"), ok).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "TIMEOUT" });
    expect((refused as Error).message).toMatch(/^SourceA is not being called/);
    expect(calls()).toBe(10);
    expect(breakers.report().breakers).toContainEqual(expect.objectContaining({ system: "SourceA", state: "open" }));
    expect(breakers.report().breakers.find((b) => b.workspaceId === undefined)).toBeDefined();
    advance(30_000);
    // w0's own breaker is not open (one failure), so its call is the source's trial; it succeeds and closes both.
    await expect(breakers.call(ws("w0"), ok)).resolves.toBe("ok");
    await expect(breakers.call(ws("fresh"), ok)).resolves.toBe("ok");
  });

  it("tells what it knows against a workspace without changing it: the refusal while open, the last failure until a trial succeeds", async () => {
    const { breakers, fail, ok, calls, advance } = setup();
    const boom = new ApiError("TIMEOUT", "SourceA did not answer.");
    expect(breakers.failing(ws("w1"))).toBeUndefined();
    await breakers.call(ws("w1"), fail(boom)).catch(() => undefined);
    expect(breakers.failing(ws("w1"))).toBeUndefined();
    await breakers.call(ws("w1"), fail(boom)).catch(() => undefined);
    const open = breakers.failing(ws("w1"));
    expect(open).toMatchObject({ code: "TIMEOUT", headers: { "Retry-After": "30" } });
    expect(isCircuitOpen(open)).toBe(true);
    advance(31_000);
    const due = breakers.failing(ws("w1"));
    expect(due).toMatchObject({ code: "TIMEOUT" });
    expect(isCircuitOpen(due)).toBe(false);
    // Asking used up no trial: the next call goes, and closes the breaker.
    expect(calls()).toBe(2);
    await expect(breakers.call(ws("w1"), ok)).resolves.toBe("ok");
    expect(breakers.failing(ws("w1"))).toBeUndefined();
  });

  it("tells how long the oldest unanswered call to a workspace has waited", async () => {
    const { breakers, advance } = setup();
    let finish!: () => void;
    const hanging = breakers.call(ws("w1"), () => new Promise<void>((resolve) => (finish = resolve)));
    advance(3_000);
    expect(breakers.pendingMs(ws("w1"))).toBe(3_000);
    expect(breakers.pendingMs(ws("w2"))).toBe(0);
    finish();
    await hanging;
    expect(breakers.pendingMs(ws("w1"))).toBe(0);
  });

  it("does not count as unanswered the time a call's work waits in line before it is sent", async () => {
    const { breakers, advance } = setup();
    let place!: () => void;
    let finish!: () => void;
    const call = breakers.call(ws("w1"), async (_signal, inLine) => {
      await inLine(new Promise<void>((resolve) => (place = resolve)));
      await new Promise<void>((resolve) => (finish = resolve));
    });
    advance(4_000);
    expect(breakers.pendingMs(ws("w1"))).toBe(0);
    place();
    await new Promise((r) => setImmediate(r));
    expect(breakers.pendingMs(ws("w1"))).toBe(0);
    advance(1_500);
    expect(breakers.pendingMs(ws("w1"))).toBe(1_500);
    finish();
    await call;
    expect(breakers.pendingMs(ws("w1"))).toBe(0);
  });
});
