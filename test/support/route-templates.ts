/* How the Functions host matches route templates, for checking the app's HTTP functions against the route table. */
type Part = { kind: "literal"; text: string } | { kind: "param" } | { kind: "catch-all" };

function parse(template: string): Part[] {
  return segments(template).map((s) =>
    s.startsWith("{*") ? { kind: "catch-all" } : s.startsWith("{") ? { kind: "param" } : { kind: "literal", text: s.toLowerCase() },
  );
}

/** Whether a route template matches a request path relative to the route prefix (`v2/...`). */
export function templateMatches(template: string, path: string): boolean {
  const parts = parse(template);
  const given = segments(path);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    // A catch-all takes the rest of the path, the empty rest included.
    if (part.kind === "catch-all") return true;
    const segment = given[i];
    if (segment === undefined) return false;
    if (part.kind === "literal" && part.text !== segment.toLowerCase()) return false;
  }
  return given.length === parts.length;
}

/**
 * The order in which the Functions host (ASP.NET Core routing) prefers templates that both match:
 * segment by segment, a literal beats a parameter, which beats a catch-all. Negative: `a` first.
 */
export function compareSpecificity(a: string, b: string): number {
  const rank = (p: Part | undefined) => (p === undefined ? 3 : p.kind === "literal" ? 0 : p.kind === "param" ? 1 : 2);
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = rank(pa[i]) - rank(pb[i]);
    if (diff !== 0) return diff;
  }
  return 0;
}

function segments(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}
