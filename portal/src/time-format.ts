/**
 * Times as the portal writes them, in English like the rest of its text, and without `Intl`: the
 * first `Intl` formatter a page makes has the browser load its locale data, tens of milliseconds of
 * main-thread work on a phone before the first table can render (and every page shows times). The
 * words are those of `Intl.RelativeTimeFormat("en", { numeric: "auto" })` and the exact time that of
 * `Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle })`, in the reader's time zone.
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

type Unit = "second" | "minute" | "hour" | "day";

/** What `numeric: "auto"` says for -1, 0 and 1 of a unit. */
const WORDS: Record<Unit, Record<string, string>> = {
  second: { "0": "now" },
  minute: { "0": "this minute" },
  hour: { "0": "this hour" },
  day: { "-1": "yesterday", "0": "today", "1": "tomorrow" },
};

/** `1234567` as `1,234,567`. */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `value` of `unit` from now: "in 3 hours", "5 minutes ago", "yesterday". */
export function relativeWords(value: number, unit: Unit): string {
  const word = WORDS[unit][String(value === 0 ? 0 : value)];
  if (word) return word;
  const count = Math.abs(value);
  const units = `${grouped(count)} ${unit}${count === 1 ? "" : "s"}`;
  return value > 0 ? `in ${units}` : `${units} ago`;
}

/** How far `at` is from `now`, in the largest unit that fits: "in 3 hours", "2 days ago". */
export function relativeTime(at: Date, now: number = Date.now()): string {
  const seconds = Math.round((at.getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relativeWords(seconds, "second");
  if (abs < 3600) return relativeWords(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return relativeWords(Math.round(seconds / 3600), "hour");
  return relativeWords(Math.round(seconds / 86_400), "day");
}

const two = (n: number) => String(n).padStart(2, "0");

/** The exact time in the reader's time zone: "Nov 29, 2026, 6:42 AM", with `seconds` "Nov 29, 2026, 6:42:05 AM". */
export function exactTime(at: Date, options: { seconds?: boolean } = {}): string {
  const hours = at.getHours();
  const clock = `${hours % 12 === 0 ? 12 : hours % 12}:${two(at.getMinutes())}${options.seconds ? `:${two(at.getSeconds())}` : ""} ${hours < 12 ? "AM" : "PM"}`;
  return `${MONTHS[at.getMonth()]} ${at.getDate()}, ${at.getFullYear()}, ${clock}`;
}
