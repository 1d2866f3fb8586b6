import { afterEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "../../shared/platform/logger";
import { readFileSync } from "node:fs";
import path from "node:path";
import { DUPLICATE_DETECTION_WINDOW_MS, InProcessQueue, type InProcessQueueOptions } from "../../shared/platform/queue/in-process/in-process-queue";
import type { ReceivedMessage } from "../../shared/platform/queue/queue";

// No assertion here depends on how fast the machine is: waits go through idle() with generous
// timeouts, exact times go through fake timers, and a hung handler is a promise nobody resolves.

interface Body {
  n: number;
  tags?: string[];
}

const open: InProcessQueue<Body>[] = [];

function queue(options: Partial<InProcessQueueOptions> = {}): InProcessQueue<Body> {
  const q = new InProcessQueue<Body>({ name: "test", ...options });
  open.push(q);
  return q;
}

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  // Settle whatever a test left hanging, so no handler outlives its test.
  for (const release of hanging.splice(0)) release();
  await Promise.all(open.splice(0).map((q) => q.close()));
});

const hanging: (() => void)[] = [];

function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  hanging.push(resolve);
  return { promise, resolve, reject };
}

function recordingLogger() {
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void entries.push({ level, message, fields });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, entries };
}

/** Lets pending callbacks and microtasks run; enough for a settled handler to be booked. */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

const msg = (id: string, n = 0) => ({ messageId: id, body: { n } });
const idle = { timeoutMs: 10_000 };

describe("in-process queue: delivery", () => {
  it("delivers each message once, in order, and completes it when the handler resolves", async () => {
    const q = queue();
    const seen: ReceivedMessage<Body>[] = [];
    await q.send([msg("a", 1), msg("b", 2)]);
    expect(q.stats()).toMatchObject({ ready: 2, inFlight: 0, delivered: 0 });

    // Messages sent before the handler wait for it.
    q.subscribe(async (m) => void seen.push(m));
    await q.send([msg("c", 3)]);
    await q.idle(idle);

    expect(seen.map((m) => [m.messageId, m.body.n, m.deliveryCount])).toEqual([
      ["a", 1, 1],
      ["b", 2, 1],
      ["c", 3, 1],
    ]);
    expect(seen.every((m) => m.enqueuedAt instanceof Date)).toBe(true);
    expect(q.stats()).toEqual({ ready: 0, inFlight: 0, scheduled: 0, deadLettered: 0, delivered: 3 });
  });

  it("never runs the handler inside send()", async () => {
    const q = queue();
    const handler = vi.fn(async () => {});
    q.subscribe(handler);
    const sending = q.send([msg("a")]);
    expect(handler).not.toHaveBeenCalled();
    await sending;
    await q.idle(idle);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("a handler that throws abandons the message: it is redelivered at once with deliveryCount + 1, ahead of later messages", async () => {
    const { logger, entries } = recordingLogger();
    const q = queue({ maxConcurrentCalls: 1, logger });
    const seen: string[] = [];
    q.subscribe(async (m) => {
      seen.push(`${m.messageId}#${m.deliveryCount}`);
      if (m.messageId === "a" && m.deliveryCount === 1) throw new Error("vendor down");
    });
    await q.send([msg("a"), msg("b"), msg("c")]);
    await q.idle(idle);

    expect(seen).toEqual(["a#1", "a#2", "b#1", "c#1"]);
    expect(q.stats()).toMatchObject({ delivered: 3, deadLettered: 0 });
    const warning = entries.find((e) => e.level === "warn" && e.fields?.error === "vendor down");
    expect(warning?.fields).toMatchObject({ messageId: "a", deliveryCount: 1 });
  });

  it("a handler that throws synchronously or rejects with a non-Error is abandoned the same way", async () => {
    const q = queue();
    const counts: number[] = [];
    q.subscribe(((m: ReceivedMessage<Body>) => {
      counts.push(m.deliveryCount);
      if (m.deliveryCount === 1) throw "not an Error";
      return Promise.resolve();
    }) as (m: ReceivedMessage<Body>) => Promise<void>);
    await q.send([msg("a")]);
    await q.idle(idle);
    expect(counts).toEqual([1, 2]);
    expect(q.stats().delivered).toBe(1);
  });

  it("dead-letters a message after maxDeliveryCount deliveries, keeping it, its count and the last error", async () => {
    let clock = Date.parse("2025-01-02T03:04:05Z");
    const q = queue({ maxDeliveryCount: 3, now: () => new Date(clock) });
    const handler = vi.fn(async (m: ReceivedMessage<Body>) => {
      clock += 1000;
      throw new Error(`attempt ${m.deliveryCount} failed`);
    });
    q.subscribe(handler);
    await q.send([{ messageId: "poison", body: { n: 7, tags: ["x"] } }]);
    await q.idle(idle);

    expect(handler).toHaveBeenCalledTimes(3);
    const [dead, ...rest] = q.deadLetters();
    expect(rest).toEqual([]);
    expect(dead).toEqual({
      sequenceNumber: 1,
      message: { messageId: "poison", body: { n: 7, tags: ["x"] }, deliveryCount: 3, enqueuedAt: new Date("2025-01-02T03:04:05Z") },
      reason: "attempt 3 failed",
      deadLetteredAt: new Date(clock),
    });
    expect(q.stats()).toEqual({ ready: 0, inFlight: 0, scheduled: 0, deadLettered: 1, delivered: 0 });
  });

  it("dead-letters after 10 deliveries by default, as a Service Bus queue's MaxDeliveryCount", async () => {
    const q = queue();
    const handler = vi.fn(async () => {
      throw new Error("always");
    });
    q.subscribe(handler);
    await q.send([msg("a")]);
    await q.idle(idle);
    expect(handler).toHaveBeenCalledTimes(10);
    expect(q.deadLetters()[0]?.message.deliveryCount).toBe(10);
  });
});

describe("in-process queue: peek-lock", () => {
  it("redelivers a message whose handler hangs past the lock; the late completion neither completes it twice nor crashes", async () => {
    const { logger, entries } = recordingLogger();
    const q = queue({ lockDurationMs: 50, logger });
    const first = { a: deferred(), b: deferred() };
    const seen: string[] = [];
    q.subscribe(async (m) => {
      seen.push(`${m.messageId}#${m.deliveryCount}`);
      // The first delivery of each message hangs, like a worker that crashed mid-way.
      if (m.deliveryCount === 1) return first[m.messageId as "a" | "b"].promise;
    });
    await q.send([msg("a"), msg("b")]);
    await q.idle(idle);

    expect(seen.sort()).toEqual(["a#1", "a#2", "b#1", "b#2"]);
    expect(q.stats()).toMatchObject({ delivered: 2, inFlight: 0, deadLettered: 0 });
    expect(entries.filter((e) => e.message.includes("lock expired")).map((e) => e.fields?.messageId).sort()).toEqual(["a", "b"]);

    // The hung workers come back: one finishes, one fails. Neither changes anything, and the failure
    // does not become an unhandled rejection (vitest fails the run on one).
    first.a.resolve();
    first.b.reject(new Error("late failure"));
    await turns();
    expect(q.stats()).toEqual({ ready: 0, inFlight: 0, scheduled: 0, deadLettered: 0, delivered: 2 });
    expect(entries.some((e) => e.message.includes("completed after its lock expired") && e.fields?.messageId === "a")).toBe(true);
    expect(entries.some((e) => e.message.includes("failed after its lock expired") && e.fields?.messageId === "b")).toBe(true);
  });

  it("a message being handled is invisible to other handlers", async () => {
    const q = queue({ maxConcurrentCalls: 8 });
    const gate = deferred();
    const seen: string[] = [];
    q.subscribe(async (m) => {
      seen.push(m.messageId);
      await gate.promise;
    });
    await q.send([msg("a")]);
    await turns();
    expect(q.stats()).toMatchObject({ inFlight: 1, ready: 0 });
    await turns();
    expect(seen).toEqual(["a"]);
    gate.resolve();
    await q.idle(idle);
    expect(seen).toEqual(["a"]);
  });

  it("a handler that hangs on the last delivery is dead-lettered with the expired lock as reason", async () => {
    const q = queue({ lockDurationMs: 30, maxDeliveryCount: 2 });
    q.subscribe(() => deferred().promise);
    await q.send([msg("a")]);
    await q.idle(idle);
    const [dead] = q.deadLetters();
    expect(dead?.message.deliveryCount).toBe(2);
    expect(dead?.reason).toBe("lock expired after 30 ms");
  });
});

describe("in-process queue: scheduled messages", () => {
  it("keeps a scheduled message invisible until its time, then delivers it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: Date.parse("2025-03-01T00:00:00Z") });
    const q = queue();
    const seen: ReceivedMessage<Body>[] = [];
    q.subscribe(async (m) => void seen.push(m));
    const at = new Date("2025-03-01T00:01:00Z");
    await q.schedule([msg("later")], at);
    expect(q.stats()).toMatchObject({ scheduled: 1, ready: 0 });

    await vi.advanceTimersByTimeAsync(59_999);
    expect(seen).toEqual([]);
    // Scheduled messages are not waited for unless asked.
    await q.idle(idle);

    await vi.advanceTimersByTimeAsync(1);
    await q.idle(idle);
    expect(seen.map((m) => [m.messageId, m.deliveryCount, m.enqueuedAt.toISOString()])).toEqual([["later", 1, "2025-03-01T00:01:00.000Z"]]);
    expect(q.stats()).toMatchObject({ scheduled: 0, delivered: 1 });
  });

  it("never hands a scheduled message out before its time by the queue's clock, though the timer fires a millisecond early by it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: Date.parse("2025-03-01T00:00:00Z") });
    // The wall clock a millisecond behind the timers' clock once the message is scheduled, as Node's may be.
    let behind = 0;
    const q = queue({ now: () => new Date(Date.now() - behind) });
    const seen: ReceivedMessage<Body>[] = [];
    q.subscribe(async (m) => void seen.push(m));
    const at = new Date("2025-03-01T00:01:00Z");
    await q.schedule([msg("later")], at);
    behind = 1;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await q.idle(idle);
    expect(seen.map((m) => [m.messageId, m.enqueuedAt.toISOString()])).toEqual([["later", "2025-03-01T00:01:00.000Z"]]);
  });

  it("hands a scheduled message out when its timer fires a millisecond early and the time has come by the time it is armed again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: Date.parse("2025-03-01T00:00:00Z") });
    // The queue's clock as the timer's callback reads it: a millisecond early, then (a loaded
    // machine) already past the time when the message is armed again.
    const readings: number[] = [];
    const q = queue({ now: () => new Date(readings.shift() ?? Date.now()) });
    const seen: ReceivedMessage<Body>[] = [];
    q.subscribe(async (m) => void seen.push(m));
    const at = new Date("2025-03-01T00:01:00Z");
    await q.schedule([msg("later")], at);
    readings.push(at.getTime() - 1, at.getTime() + 1);
    await vi.advanceTimersByTimeAsync(60_000);
    await q.idle(idle);
    expect(seen.map((m) => m.messageId)).toEqual(["later"]);
    expect(q.stats()).toMatchObject({ ready: 0, scheduled: 0, delivered: 1 });
  });

  it("idle() can wait for messages scheduled before a given time (real timers)", async () => {
    const q = queue();
    const handler = vi.fn(async () => {});
    q.subscribe(handler);
    const at = new Date(Date.now() + 50);
    await q.schedule([msg("soon")], at);
    await q.schedule([msg("much-later")], new Date(Date.now() + 3_600_000));
    expect(handler).not.toHaveBeenCalled();

    await q.idle({ includeScheduledBefore: new Date(at.getTime() + 1), timeoutMs: 10_000 });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(q.stats()).toMatchObject({ scheduled: 1, delivered: 1 });
  });

  it("a message scheduled in the past is delivered at once", async () => {
    const q = queue();
    const handler = vi.fn(async () => {});
    q.subscribe(handler);
    await q.schedule([msg("overdue")], new Date(Date.now() - 1000));
    await q.idle(idle);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("its timers never keep the process alive", async () => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    const q = queue();
    const gate = deferred();
    q.subscribe(() => gate.promise);
    await q.schedule([msg("in-an-hour")], new Date(Date.now() + 3_600_000));
    await q.send([msg("now")]);
    const timers = spy.mock.results.map((r) => r.value as NodeJS.Timeout);
    spy.mockRestore();
    // One schedule timer, one lock timer (the handler is holding "now").
    expect(timers.length).toBeGreaterThanOrEqual(2);
    expect(timers.filter((t) => typeof t?.hasRef === "function").every((t) => !t.hasRef())).toBe(true);
    gate.resolve();
    await q.idle(idle);
  });
});

describe("in-process queue: duplicate detection", () => {
  it("remembers ids for the window every Service Bus queue is given in infra", () => {
    const bicep = readFileSync(path.join(__dirname, "../../infra/modules/service-bus.bicep"), "utf8");
    const minutes = Number(/duplicateDetectionHistoryTimeWindow: 'PT(\d+)M'/.exec(bicep)?.[1]);
    expect(DUPLICATE_DETECTION_WINDOW_MS).toBe(minutes * 60_000);
  });

  it("tells ids apart however they were built, and forgets each once its own window, and at most 10 s more, has passed", async () => {
    let clock = Date.parse("2025-01-01T00:00:00Z");
    const q = queue({ now: () => new Date(clock) });
    const seen: string[] = [];
    q.subscribe(async (m) => void seen.push(m.messageId));
    const event = "0b6f3c1e-9a1d-4f1e-8c55-3b2f7f0a9d10";
    const ids = Array.from({ length: 50 }, (_, i) => `${event}:webhook-${i}:1`);
    await q.send(ids.map((id) => msg(id)));
    clock += 5 * 60_000;
    await q.send([msg(`${event}:webhook-0:2`), ...ids.slice(0, 10).map((id) => msg(id))]);
    await q.idle(idle);
    expect(seen).toEqual([...ids, `${event}:webhook-0:2`]);

    clock += 5 * 60_000 - 1; // never forgotten before the window has passed
    await q.send([msg(ids[0]!)]);
    clock += 1 + 10_000; // the first 50 are forgotten; the one five minutes younger is not
    await q.send([msg(ids[0]!), msg(`${event}:webhook-0:2`)]);
    await q.idle(idle);
    expect(seen.slice(51)).toEqual([ids[0]]);
  });

  it("drops a message id seen within the window and accepts it again after the window", async () => {
    let clock = Date.parse("2025-01-01T00:00:00Z");
    const q = queue({ now: () => new Date(clock) });
    const seen: string[] = [];
    q.subscribe(async (m) => void seen.push(`${m.messageId}:${m.body.n}`));

    await q.send([msg("a", 1)]);
    await q.idle(idle);
    clock += 9 * 60_000; // 9 minutes later: within the default 10-minute window
    await q.send([msg("a", 2), msg("b", 1), msg("b", 2)]);
    await q.schedule([msg("a", 3)], new Date(clock));
    await q.idle(idle);
    expect(seen).toEqual(["a:1", "b:1"]);

    clock += 60_000; // 10 minutes after the first "a": ids go in sets of 10 s, so it is remembered up to 10 s longer
    await q.send([msg("a", 4)]);
    clock += 10_000;
    await q.send([msg("a", 5), msg("b", 3)]);
    await q.idle(idle);
    expect(seen).toEqual(["a:1", "b:1", "a:5"]);
  });

  it("applies to scheduled messages from the moment they are scheduled", async () => {
    const q = queue({ duplicateDetectionWindowMs: 60_000 });
    const handler = vi.fn(async () => {});
    q.subscribe(handler);
    await q.schedule([msg("retry-1")], new Date(Date.now() + 3_600_000));
    await q.send([msg("retry-1")]);
    await q.idle(idle);
    expect(handler).not.toHaveBeenCalled();
    expect(q.stats()).toMatchObject({ scheduled: 1, ready: 0 });
  });
});

describe("in-process queue: concurrency", () => {
  it("runs at most maxConcurrentCalls handlers at once and delivers everything", async () => {
    const q = queue({ maxConcurrentCalls: 3 });
    let running = 0;
    let peak = 0;
    const done: string[] = [];
    q.subscribe(async (m) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running -= 1;
      done.push(m.messageId);
    });
    await q.send(Array.from({ length: 20 }, (_, i) => msg(`m${i}`)));
    await q.idle(idle);
    expect(peak).toBe(3);
    expect(done.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`).sort());
  });

  it("defaults to 16 concurrent handlers", async () => {
    const q = queue();
    const gate = deferred();
    q.subscribe(() => gate.promise);
    await q.send(Array.from({ length: 40 }, (_, i) => msg(`m${i}`)));
    await turns();
    expect(q.stats()).toMatchObject({ inFlight: 16, ready: 24 });
    gate.resolve();
    await q.idle(idle);
    expect(q.stats().delivered).toBe(40);
  });
});

describe("in-process queue: copies", () => {
  it("copies the body on send, so the sender's later changes do not reach the handler", async () => {
    const q = queue();
    const seen: Body[] = [];
    const body: Body = { n: 1, tags: ["a"] };
    await q.send([{ messageId: "x", body }]);
    body.n = 2;
    body.tags!.push("b");
    q.subscribe(async (m) => void seen.push(m.body));
    await q.idle(idle);
    expect(seen).toEqual([{ n: 1, tags: ["a"] }]);
  });

  it("gives each delivery its own copy, so a handler's changes do not reach the redelivery or the dead letter", async () => {
    const q = queue({ maxDeliveryCount: 2 });
    const seen: number[] = [];
    q.subscribe(async (m) => {
      seen.push(m.body.n);
      m.body.n = 99;
      throw new Error("fail");
    });
    await q.send([msg("x", 1)]);
    await q.idle(idle);
    expect(seen).toEqual([1, 1]);
    const dead = q.deadLetters()[0]!;
    expect(dead.message.body).toEqual({ n: 1 });
    dead.message.body.n = 5;
    expect(q.deadLetters()[0]!.message.body).toEqual({ n: 1 });
  });

  it("keeps a message's properties with it, as copies", async () => {
    const q = queue();
    const seen: ReceivedMessage<Body>[] = [];
    const properties = { retryDueAt: "2025-01-02T03:04:05.000Z", attempt: 2, manual: false };
    await q.send([{ messageId: "x", body: { n: 1 }, properties }]);
    await q.send([msg("plain")]);
    q.subscribe(async (m) => void seen.push(m));
    await q.idle(idle);
    expect(seen.map((m) => m.properties)).toEqual([properties, undefined]);
    expect(seen[0]!.properties).not.toBe(properties);
  });

  it("rejects a body that cannot be copied, accepting nothing of that send", async () => {
    const q = queue();
    const bad = { messageId: "bad", body: { n: 1, f: () => 1 } as unknown as Body };
    await expect(q.send([msg("good"), bad])).rejects.toThrow();
    expect(q.stats().ready).toBe(0);
    // "good" was not accepted, so sending it again is not a duplicate.
    await q.send([msg("good")]);
    expect(q.stats().ready).toBe(1);
  });
});

describe("in-process queue: close and contract checks", () => {
  it("close() waits for handlers in flight, then stops; sending afterwards fails", async () => {
    const q = queue();
    const gate = deferred();
    q.subscribe(() => gate.promise);
    await q.send([msg("a")]);
    await turns();
    let closed = false;
    const closing = q.close().then(() => {
      closed = true;
    });
    await turns();
    expect(closed).toBe(false);
    gate.resolve();
    await closing;
    expect(q.stats()).toMatchObject({ inFlight: 0, delivered: 1 });
    await expect(q.send([msg("b")])).rejects.toThrow(/closed/);
    await expect(q.schedule([msg("c")], new Date())).rejects.toThrow(/closed/);
  });

  it("close() stops the schedule timers and leaves no timer behind", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const q = queue();
    const handler = vi.fn(async () => {});
    q.subscribe(handler);
    await q.schedule([msg("a")], new Date(Date.now() + 60_000));
    await q.send([msg("b")]);
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    await q.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(handler).toHaveBeenCalledTimes(1); // "b" only
    expect(q.stats().scheduled).toBe(0);
  });

  it("close() does not wait past the lock of a handler that never returns", async () => {
    const q = queue({ lockDurationMs: 30 });
    q.subscribe(() => deferred().promise);
    await q.send([msg("a")]);
    await turns();
    await q.close();
    expect(q.stats().inFlight).toBe(0);
  });

  it("idle() rejects with the queue's state when it does not become idle in time", async () => {
    const q = queue();
    await q.send([msg("a")]); // nobody subscribed
    await expect(q.idle({ timeoutMs: 20 })).rejects.toThrow(/not idle after 20 ms.*"ready":1/);
  });

  it("takes one handler, valid options and Service Bus-sized message ids", async () => {
    const q = queue();
    q.subscribe(async () => {});
    expect(() => q.subscribe(async () => {})).toThrow(/already has a handler/);
    expect(() => queue({ maxDeliveryCount: 0 })).toThrow(RangeError);
    expect(() => queue({ lockDurationMs: 1.5 })).toThrow(RangeError);
    await expect(q.send([msg("")])).rejects.toThrow(TypeError);
    await expect(q.send([msg("x".repeat(129))])).rejects.toThrow(TypeError);
    await expect(q.schedule([msg("a")], new Date(Number.NaN))).rejects.toThrow(TypeError);
  });
});
