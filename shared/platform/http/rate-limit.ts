export interface RateLimitOptions {
  /** Bucket size: the burst a caller may send at once. */
  capacity: number;
  /** Tokens added per second: the sustained rate. */
  refillPerSecond: number;
  now?: () => number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one request is allowed; 0 when allowed. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Buckets idle long enough to be full again are dropped once the map grows past this. */
const PRUNE_THRESHOLD = 10_000;

/**
 * Token bucket per key, in this instance's memory. Each Functions instance limits on its own, so the
 * effective limit across a scaled-out app is a multiple of it (documented in docs/operating.md, Configuration).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;

  constructor(private readonly options: RateLimitOptions) {
    this.now = options.now ?? Date.now;
  }

  take(key: string): RateLimitDecision {
    const { capacity, refillPerSecond } = this.options;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * refillPerSecond);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= PRUNE_THRESHOLD) this.prune(now);
      this.buckets.set(key, bucket);
    }
    return {
      allowed,
      limit: capacity,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((capacity - bucket.tokens) / refillPerSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerSecond)),
    };
  }

  private prune(now: number): void {
    const fullAfterMs = (this.options.capacity / this.options.refillPerSecond) * 1000;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= fullAfterMs) this.buckets.delete(key);
    }
  }
}

export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return setRateLimitHeaders({}, d);
}

/** Adds the RateLimit headers (and Retry-After when refused) to a response's headers. */
export function setRateLimitHeaders(headers: Record<string, string>, d: RateLimitDecision): Record<string, string> {
  headers["RateLimit-Limit"] = String(d.limit);
  headers["RateLimit-Remaining"] = String(d.remaining);
  headers["RateLimit-Reset"] = String(d.resetSeconds);
  if (!d.allowed) headers["Retry-After"] = String(d.retryAfterSeconds);
  return headers;
}
