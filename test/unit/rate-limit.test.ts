import { describe, expect, it } from "vitest";
import { RateLimiter, rateLimitHeaders } from "../../shared/platform/http/rate-limit";

describe("token bucket", () => {
  it("allows a burst, refuses the next, and refills at the sustained rate", () => {
    let now = 0;
    const limiter = new RateLimiter({ capacity: 3, refillPerSecond: 2, now: () => now });
    expect([1, 2, 3].map(() => limiter.take("k").allowed)).toEqual([true, true, true]);
    const refused = limiter.take("k");
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1, limit: 3 });
    expect(rateLimitHeaders(refused)["Retry-After"]).toBe("1");
    now = 500; // half a second refills one token
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("k").allowed).toBe(false);
    now = 10_000;
    const full = limiter.take("k");
    expect(full).toMatchObject({ allowed: true, remaining: 2 });
    expect(full.resetSeconds).toBe(1);
  });

  it("keeps keys apart", () => {
    const limiter = new RateLimiter({ capacity: 1, refillPerSecond: 0.001, now: () => 0 });
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(false);
    expect(limiter.take("b").allowed).toBe(true);
  });
});
