import { parseRetryAfter } from "../upstream/retry-after";
import type { SendOutcome } from "./guarded-sender";

export const DEFAULT_BACKOFF_MS = 30_000;
export const DEFAULT_WINDOW_MS = 300_000;
export const DEFAULT_MAX_ATTEMPTS = 10;

/** docs/contract.md §6.6.3: the statuses worth another attempt. Any other non-2xx is permanent. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

export interface RetryInput {
  outcome: SendOutcome;
  /** 1-based number of the attempt that produced `outcome`. */
  attempt: number;
  firstAttemptAt: Date;
  now: Date;
  backoffMs?: number;
  /** The budget runs from the first attempt (contract: 5 minutes). */
  windowMs?: number;
  maxAttempts?: number;
}

export type RetryDecision =
  | { action: "succeeded" }
  | { action: "retry"; at: Date }
  | { action: "fail"; reason: "permanent" | "exhausted" };

// The sender lower-cases header names; an outcome built elsewhere may not have.
function retryAfterHeader(headers: Record<string, string>): string | undefined {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === "retry-after");
  return name === undefined ? undefined : headers[name];
}

function isRetryable(outcome: SendOutcome): boolean {
  if (outcome.kind === "error") return outcome.error === "timeout" || outcome.error === "connection";
  return RETRYABLE_STATUSES.has(outcome.status);
}

/**
 * What to do after one delivery attempt (docs/contract.md §6.6.2–3): a fixed backoff, a longer `Retry-After`
 * honoured, and a budget of `maxAttempts` attempts within `windowMs` of the first, whichever ends
 * first. A retry that would land past the window is pulled back to the window's end, so the last
 * chance is still taken.
 *
 * @example
 * const decision = decideRetry({ outcome, attempt: 3, firstAttemptAt, now: new Date() });
 * if (decision.action === "retry") await queue.schedule(message, decision.at);
 */
export function decideRetry(input: RetryInput): RetryDecision {
  const {
    outcome,
    attempt,
    firstAttemptAt,
    now,
    backoffMs = DEFAULT_BACKOFF_MS,
    windowMs = DEFAULT_WINDOW_MS,
    maxAttempts = DEFAULT_MAX_ATTEMPTS,
  } = input;

  if (outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300) return { action: "succeeded" };
  // Redirects land here too: following one would send the signed event to an unvetted address.
  if (!isRetryable(outcome)) return { action: "fail", reason: "permanent" };
  if (attempt >= maxAttempts) return { action: "fail", reason: "exhausted" };

  const retryAfterMs = outcome.kind === "response" ? parseRetryAfter(retryAfterHeader(outcome.headers), now) : undefined;
  const delayMs = retryAfterMs !== undefined && retryAfterMs > backoffMs ? retryAfterMs : backoffMs;
  const at = now.getTime() + delayMs;
  const windowEnd = firstAttemptAt.getTime() + windowMs;
  if (at <= windowEnd) return { action: "retry", at: new Date(at) };
  if (windowEnd > now.getTime()) return { action: "retry", at: new Date(windowEnd) };
  return { action: "fail", reason: "exhausted" };
}
