const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "\\d{2}:\\d{2}:\\d{2}";
/** The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate, RFC 850, asctime. */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT|${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4})$`,
);

/**
 * Milliseconds from `now` that a `Retry-After` value asks for: delta-seconds, or an HTTP-date (a date
 * in the past is 0). Undefined when absent or unreadable, so the caller keeps its own backoff. The
 * one reading of the header in the service: webhook receivers' answers and upstream systems' 429s.
 *
 * @example parseRetryAfter(response.headers.get("retry-after"), new Date()) // 120_000 for "120"
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  const text = value?.trim() ?? "";
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * The same value as whole seconds, the form our own callers are told to wait (docs/errors.md): an
 * upstream 429's `Retry-After` is relayed this way, never copied as it came.
 */
export function retryAfterSeconds(value: string | null | undefined, now: Date): number | undefined {
  const ms = parseRetryAfter(value, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
