import type { ResponseExcerpt } from "../../model/webhooks/delivery-log";

/** The most of a receiver's answer a test delivery's log entry keeps: its first 2 KiB. */
export const RESPONSE_EXCERPT_BYTES = 2048;

/** What the excerpt shows in place of a credential the receiver sent back. */
export const MASKED = "[redacted]";

/**
 * C0 and C1 control characters (but tab, line feed and carriage return) and the bidirectional marks and
 * overrides: text that could drive a terminal or reorder what a page shows around it.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it names
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * The start of a receiver's answer as a test delivery's log entry keeps it: at most
 * `RESPONSE_EXCERPT_BYTES` of UTF-8, unsafe characters written as `\uXXXX`, and every secret sent
 * with the request (`secrets`: credential and signature values) masked wherever the receiver echoed
 * it back, as an echo endpoint does with the headers it got. `head` is the start of the body (the
 * sender's `snippet`), longer than the excerpt so that a secret starting within it is seen whole.
 *
 * @example
 * responseExcerpt({ head: '{"got":"Bearer t0k3n"}', bodyBytes: 22, cut: false }, ["Bearer t0k3n"]);
 * // { text: '{"got":"[redacted]"}', truncated: false }
 */
export function responseExcerpt(body: { head: string; bodyBytes: number; cut: boolean }, secrets: readonly string[]): ResponseExcerpt {
  const masked = maskedRanges(body.head, secrets);
  let text = "";
  let keptBytes = 0;
  let index = 0;
  let next = 0;
  for (const char of body.head) {
    const bytes = Buffer.byteLength(char);
    if (keptBytes + bytes > RESPONSE_EXCERPT_BYTES) break;
    while (next < masked.length && masked[next]![1] <= index) next++;
    const range = masked[next];
    if (range === undefined || index < range[0]) text += UNSAFE.test(char) ? `\\u${char.codePointAt(0)!.toString(16).padStart(4, "0")}` : char;
    else if (range[0] === index) text += MASKED;
    keptBytes += bytes;
    index += char.length;
  }
  const bounded = withinBytes(text, RESPONSE_EXCERPT_BYTES);
  return { text: bounded, truncated: body.cut || body.bodyBytes > keptBytes || bounded.length < text.length };
}

/** Where each secret occurs in `text`, overlapping occurrences merged, in order. */
function maskedRanges(text: string, secrets: readonly string[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const secret of new Set(secrets)) {
    if (secret.length === 0) continue;
    for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) ranges.push([at, at + secret.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of ranges) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** The longest start of `text` within `limit` bytes of UTF-8, never splitting a character. */
function withinBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  let out = "";
  let bytes = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > limit) break;
    out += char;
  }
  return out;
}
