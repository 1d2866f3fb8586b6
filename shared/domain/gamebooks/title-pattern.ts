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
  return matchSegments(segmentsOf(pattern), normaliseTitle(title));
}

export const WILDCARD = "*";

/** The comparable form of a title or pattern: NFC, trimmed, whitespace runs as one space, lower case. */
export function normaliseTitle(text: string): string {
  return text.normalize("NFC").trim().replace(/\s+/gu, " ").toLowerCase();
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
 * expression built from a user's pattern could.
 */
function matchSegments(segments: readonly string[], title: string): boolean {
  if (segments.length === 1) return title === segments[0];
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  if (first.length + last.length > title.length) return false;
  if (!title.startsWith(first) || !title.endsWith(last)) return false;
  let position = first.length;
  const end = title.length - last.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    if (segment.length === 0) continue;
    const found = title.indexOf(segment, position);
    if (found < 0 || found + segment.length > end) return false;
    position = found + segment.length;
  }
  return true;
}
