import { describe, expect, it } from "vitest";
import { parseRetryAfter, retryAfterSeconds } from "../../shared/platform/upstream/retry-after";

describe("Retry-After, read one way for receivers and upstream systems alike", () => {
  const now = new Date("2026-09-01T10:00:00.000Z");

  it("reads delta-seconds", () => {
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 30 ", now)).toBe(30_000);
    expect(parseRetryAfter(" 007 ", now)).toBe(7_000);
  });

  it("reads the three HTTP-date forms relative to now, and a past date as 0", () => {
    expect(parseRetryAfter("Tue, 01 Sep 2026 10:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Tuesday, 01-Sep-26 10:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Tue Sep  1 10:01:00 2026", now)).toBeTypeOf("number");
    expect(parseRetryAfter("Mon, 31 Aug 2026 10:00:00 GMT", now)).toBe(0);
  });

  it("gives undefined for absent or unreadable values, ISO timestamps included", () => {
    for (const value of [undefined, null, "", "  ", "-5", "-1", "1.5", "soon", "12abc", "Xyz, 99 Foo 2026", "2026-09-01T10:01:00Z", "hello 2026", "9999999999"]) {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    }
  });

  it("gives whole seconds, rounded up, for relaying to our own callers", () => {
    expect(retryAfterSeconds("120", now)).toBe(120);
    expect(retryAfterSeconds("Tue, 01 Sep 2026 10:01:00 GMT", now)).toBe(60);
    expect(retryAfterSeconds("Mon, 31 Aug 2026 10:00:00 GMT", now)).toBe(0);
    expect(retryAfterSeconds("soon", now)).toBeUndefined();
  });
});
