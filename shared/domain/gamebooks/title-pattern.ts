/**
 * How a playbook rule's `incidentTitle` matches an incident title (docs/decisions.md, Gamebooks):
 * the whole title, case-insensitively, with `*` standing for any run of characters (none included)
 * and every other character literal. Both sides are compared after Unicode NFC normalisation, with
 * outer whitespace removed and inner runs of whitespace read as one space, because vendors are not
 * consistent about either. A pattern without `*` is therefore an exact, case-insensitive match.
 *
 * @example titleMatches("Impossible travel activity for *", "Impossible Travel Activity for ann@contoso.com") // true
 * @example titleMatches("*phishing*", "Phishing email with a malicious link delivered to hr@fabrikam.example") // true
 * @example titleMatches("Malware detected", "Malware detected on FAB-WS-0042") // false: the whole title must match
 */
export function titleMatches(pattern: string, title: string): boolean {
  return titleMatch(pattern, title) !== null;
}

/** How a title matched a pattern: what each `*` stood for, in the pattern's order. */
export interface TitleMatch {
  /**
   * The text each wildcard covered, taken from the title as compared (NFC, trimmed, whitespace runs
   * as one space) in its own letter case where lower-casing keeps the title's length, else lower case.
   */
  wildcards: string[];
}

/**
 * The match of a pattern against a title, or null when it does not match: `titleMatches` with the
 * reason, for whoever has to explain a recommendation (the gamebook-rules preview). One matcher, so a
 * preview can never say other than what a run recommends.
 */
export function titleMatch(pattern: string, title: string): TitleMatch | null {
  const written = displayTitle(title);
  const compared = written.toLowerCase();
  const spans = matchSegments(segmentsOf(pattern), compared);
  if (spans === null) return null;
  // Lower-casing can change a string's length (a dotted capital I): offsets then point into the
  // lower-case form only.
  const source = compared.length === written.length ? written : compared;
  return { wildcards: spans.map(([start, end]) => source.slice(start, end)) };
}

export const WILDCARD = "*";

/** The comparable form of a title or pattern: NFC, trimmed, whitespace runs as one space, lower case. */
export function normaliseTitle(text: string): string {
  return displayTitle(text).toLowerCase();
}

/** A title as compared, before its letter case is folded. */
function displayTitle(text: string): string {
  return text.normalize("NFC").trim().replace(/\s+/gu, " ");
}

/**
 * How specific a pattern is: its number of literal characters. Among the rules matching one title,
 * the more specific come first ("Malware detected on *" before "*malware*").
 */
export function patternSpecificity(pattern: string): number {
  return segmentsOf(pattern).reduce((n, segment) => n + segment.length, 0);
}

/** Why a pattern cannot be a rule's title, or null when it can. */
export function patternProblem(pattern: string): string | null {
  const normalised = normaliseTitle(pattern);
  if (normalised.length === 0) return "Must not be empty.";
  if (normalised.length > 500) return "At most 500 characters.";
  return null;
}

/** The literal pieces between the wildcards; an empty first or last piece means a leading or trailing `*`. */
function segmentsOf(pattern: string): string[] {
  return normaliseTitle(pattern).split(WILDCARD);
}

/**
 * With `*` as the only wildcard, taking each middle piece at its leftmost occurrence never loses a
 * match, so this is linear in the title and cannot backtrack catastrophically the way a regular
 * expression built from a user's pattern could. Returns the [start, end) span each wildcard covered,
 * or null when the title does not match.
 */
function matchSegments(segments: readonly string[], title: string): [number, number][] | null {
  if (segments.length === 1) return title === segments[0] ? [] : null;
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  if (first.length + last.length > title.length) return null;
  if (!title.startsWith(first) || !title.endsWith(last)) return null;
  const spans: [number, number][] = [];
  let position = first.length;
  const end = title.length - last.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    if (segment.length === 0) {
      // Two wildcards side by side: the first covers nothing, the next takes what follows.
      spans.push([position, position]);
      continue;
    }
    const found = title.indexOf(segment, position);
    if (found < 0 || found + segment.length > end) return null;
    spans.push([position, found]);
    position = found + segment.length;
  }
  spans.push([position, end]);
  return spans;
}
