import { describe, expect, it } from "vitest";
import type { SendErrorKind, SendOutcome } from "../../shared/platform/delivery/guarded-sender";
import { decideRetry } from "../../shared/platform/delivery/retry-policy";

const first = new Date("2026-09-01T10:00:00.000Z");
const at = (ms: number) => new Date(first.getTime() + ms);

function response(status: number, headers: Record<string, string> = {}): SendOutcome {
  return { kind: "response", status, headers, durationMs: 5, snippet: "", responseBytesRead: 0, truncated: false };
}

function failure(error: SendErrorKind): SendOutcome {
  return { kind: "error", error, message: error, durationMs: 5 };
}

describe("decideRetry", () => {
  it.each([200, 201, 202, 204, 299])("counts %i as delivered", (status) => {
    expect(decideRetry({ outcome: response(status), attempt: 1, firstAttemptAt: first, now: first })).toEqual({ action: "succeeded" });
  });

  it.each([408, 429, 500, 502, 503, 504])("retries status %i after the fixed backoff", (status) => {
    expect(decideRetry({ outcome: response(status), attempt: 1, firstAttemptAt: first, now: at(100) })).toEqual({
      action: "retry",
      at: at(30_100),
    });
  });

  it.each(["connection", "timeout"] as const)("retries a %s error after the fixed backoff", (error) => {
    expect(decideRetry({ outcome: failure(error), attempt: 2, firstAttemptAt: first, now: at(31_000) })).toEqual({
      action: "retry",
      at: at(61_000),
    });
  });

  it.each([301, 302, 303, 307, 308, 304, 400, 401, 403, 404, 405, 409, 410, 413, 422, 501, 505, 511, 100, 600])(
    "fails status %i as permanent",
    (status) => {
      expect(decideRetry({ outcome: response(status), attempt: 1, firstAttemptAt: first, now: first })).toEqual({
        action: "fail",
        reason: "permanent",
      });
    },
  );

  it.each(["blocked-address", "invalid-url", "tls"] as const)("fails a %s error as permanent", (error) => {
    expect(decideRetry({ outcome: failure(error), attempt: 1, firstAttemptAt: first, now: first })).toEqual({
      action: "fail",
      reason: "permanent",
    });
  });

  it("reports a permanent failure as permanent even on the last attempt", () => {
    expect(decideRetry({ outcome: response(404), attempt: 10, firstAttemptAt: first, now: first })).toEqual({
      action: "fail",
      reason: "permanent",
    });
  });

  it("honours a Retry-After in seconds when it is longer than the backoff", () => {
    const outcome = response(429, { "retry-after": "90" });
    expect(decideRetry({ outcome, attempt: 1, firstAttemptAt: first, now: first })).toEqual({ action: "retry", at: at(90_000) });
  });

  it("keeps the backoff when Retry-After in seconds is shorter", () => {
    const outcome = response(503, { "retry-after": "5" });
    expect(decideRetry({ outcome, attempt: 1, firstAttemptAt: first, now: first })).toEqual({ action: "retry", at: at(30_000) });
  });

  it("honours a Retry-After HTTP-date when it is later than the backoff", () => {
    const outcome = response(503, { "retry-after": at(120_000).toUTCString() });
    expect(decideRetry({ outcome, attempt: 1, firstAttemptAt: first, now: first })).toEqual({ action: "retry", at: at(120_000) });
  });

  it("keeps the backoff when the Retry-After HTTP-date is sooner or already past", () => {
    for (const date of [at(10_000), new Date(first.getTime() - 60_000)]) {
      const outcome = response(503, { "retry-after": date.toUTCString() });
      expect(decideRetry({ outcome, attempt: 1, firstAttemptAt: first, now: first })).toEqual({ action: "retry", at: at(30_000) });
    }
  });

  it("ignores an unreadable Retry-After and reads the header name in any case", () => {
    expect(decideRetry({ outcome: response(503, { "retry-after": "soon" }), attempt: 1, firstAttemptAt: first, now: first })).toEqual({
      action: "retry",
      at: at(30_000),
    });
    expect(decideRetry({ outcome: response(503, { "Retry-After": "60" }), attempt: 1, firstAttemptAt: first, now: first })).toEqual({
      action: "retry",
      at: at(60_000),
    });
  });

  it("clamps a long Retry-After to the end of the window", () => {
    const outcome = response(429, { "retry-after": "3600" });
    expect(decideRetry({ outcome, attempt: 2, firstAttemptAt: first, now: at(60_000) })).toEqual({ action: "retry", at: at(300_000) });
  });

  it("pulls a backoff that would land past the window back to the window's end", () => {
    expect(decideRetry({ outcome: response(500), attempt: 8, firstAttemptAt: first, now: at(280_000) })).toEqual({
      action: "retry",
      at: at(300_000),
    });
  });

  it("schedules a retry that lands exactly on the window's end", () => {
    expect(decideRetry({ outcome: response(500), attempt: 8, firstAttemptAt: first, now: at(270_000) })).toEqual({
      action: "retry",
      at: at(300_000),
    });
  });

  it("fails as exhausted once the window has ended", () => {
    for (const now of [at(300_000), at(301_000), at(900_000)]) {
      expect(decideRetry({ outcome: failure("timeout"), attempt: 9, firstAttemptAt: first, now })).toEqual({
        action: "fail",
        reason: "exhausted",
      });
    }
  });

  it("allows at most maxAttempts attempts in total", () => {
    const outcome = response(503);
    expect(decideRetry({ outcome, attempt: 9, firstAttemptAt: first, now: at(60_000), backoffMs: 1_000 })).toEqual({
      action: "retry",
      at: at(61_000),
    });
    expect(decideRetry({ outcome, attempt: 10, firstAttemptAt: first, now: at(60_000), backoffMs: 1_000 })).toEqual({
      action: "fail",
      reason: "exhausted",
    });
    expect(decideRetry({ outcome, attempt: 3, firstAttemptAt: first, now: at(60_000), maxAttempts: 3 })).toEqual({
      action: "fail",
      reason: "exhausted",
    });
  });

  it("takes its backoff and window from the options", () => {
    const outcome = failure("connection");
    expect(decideRetry({ outcome, attempt: 1, firstAttemptAt: first, now: first, backoffMs: 2_000, windowMs: 10_000 })).toEqual({
      action: "retry",
      at: at(2_000),
    });
    expect(decideRetry({ outcome, attempt: 4, firstAttemptAt: first, now: at(9_000), backoffMs: 2_000, windowMs: 10_000 })).toEqual({
      action: "retry",
      at: at(10_000),
    });
  });

  it("with the defaults, a receiver that keeps failing gets exactly 10 attempts within 5 minutes", () => {
    // 10 attempts 30 s apart span 270 s; the budget is used up by count, just inside the window.
    const attempts: Date[] = [first];
    for (;;) {
      const decision = decideRetry({ outcome: response(503), attempt: attempts.length, firstAttemptAt: first, now: attempts.at(-1)! });
      if (decision.action !== "retry") {
        expect(decision).toEqual({ action: "fail", reason: "exhausted" });
        break;
      }
      attempts.push(decision.at);
    }
    expect(attempts).toHaveLength(10);
    expect(attempts.at(-1)!.getTime() - first.getTime()).toBeLessThanOrEqual(300_000);
  });

  it("with the defaults and slow timeouts, the window ends the budget before the count does", () => {
    // Each attempt takes 30 s to time out, so attempts start 60 s apart: 0, 60, 120, 180, 240, then
    // the window's end at 300; the one after would be past the window.
    const starts: number[] = [0];
    for (;;) {
      const now = at(starts.at(-1)! + 30_000);
      const decision = decideRetry({ outcome: failure("timeout"), attempt: starts.length, firstAttemptAt: first, now });
      if (decision.action !== "retry") {
        expect(decision).toEqual({ action: "fail", reason: "exhausted" });
        break;
      }
      starts.push(decision.at.getTime() - first.getTime());
    }
    expect(starts).toEqual([0, 60_000, 120_000, 180_000, 240_000, 300_000]);
  });
});
