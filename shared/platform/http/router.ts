import type { HttpMethod, Route } from "./route";

export const API_PREFIX = "/api/v2";

export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: HttpMethod[] }
  | { kind: "not-found" };

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** Per segment: the parameter's name, or undefined for a literal. */
  names: (string | undefined)[];
  /** Literal segments count; a literal beats a parameter at the same position. */
  specificity: number;
}

/**
 * Matches a path (after /api/v2) to a route. Decides 404 versus 405 itself, so that hosts can send
 * every method of a whole prefix here. Candidates are tried in order of specificity; only those of
 * the path's length whose first segment can match are looked at.
 */
export class Router {
  private readonly compiled: CompiledRoute[];
  /** Segment count → first segment → candidates, in order; "" holds those starting with a parameter. */
  private readonly index = new Map<number, Map<string, CompiledRoute[]>>();

  constructor(readonly routes: Route[]) {
    this.compiled = routes
      .map((route) => {
        const segments = split(route.path);
        const names = segments.map((s) => (isParam(s) ? s.slice(1, -1) : undefined));
        return { route, segments, names, specificity: names.filter((n) => n === undefined).length };
      })
      .sort((a, b) => b.specificity - a.specificity);
    assertNoDuplicates(this.compiled);
    for (const candidate of this.compiled) {
      const byFirst = this.index.get(candidate.segments.length) ?? new Map<string, CompiledRoute[]>();
      this.index.set(candidate.segments.length, byFirst);
      const first = candidate.names[0] === undefined ? (candidate.segments[0] ?? "") : "";
      if (!byFirst.has(first)) byFirst.set(first, []);
    }
    // Every list keeps the global order; a route starting with a parameter can match any first segment.
    for (const candidate of this.compiled) {
      const byFirst = this.index.get(candidate.segments.length)!;
      const first = candidate.names[0] === undefined ? (candidate.segments[0] ?? "") : undefined;
      for (const [key, list] of byFirst) if (first === undefined || key === first) list.push(candidate);
    }
  }

  match(method: string, path: string): RouteMatch {
    const parts = split(path);
    const byFirst = this.index.get(parts.length);
    const candidates = byFirst && (byFirst.get(parts[0] ?? "") ?? byFirst.get(""));
    if (!candidates) return { kind: "not-found" };
    let allow: Set<HttpMethod> | undefined;
    for (const candidate of candidates) {
      const params = matchSegments(candidate, parts);
      if (!params) continue;
      if (candidate.route.method === method) return { kind: "found", route: candidate.route, params };
      (allow ??= new Set<HttpMethod>()).add(candidate.route.method);
    }
    if (!allow) return { kind: "not-found" };
    return { kind: "method-not-allowed", allow: [...allow].sort() };
  }
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}

function isParam(segment: string): boolean {
  return segment.startsWith("{") && segment.endsWith("}");
}

/** The parameters when every literal matches and every parameter decodes; literals are compared first. */
function matchSegments(candidate: CompiledRoute, parts: string[]): Record<string, string> | undefined {
  const { segments, names } = candidate;
  for (let i = 0; i < segments.length; i++) {
    if (names[i] === undefined && segments[i] !== parts[i]) return undefined;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const name = names[i];
    if (name === undefined) continue;
    try {
      params[name] = decodeURIComponent(parts[i]!);
    } catch {
      return undefined;
    }
  }
  return params;
}

function assertNoDuplicates(routes: CompiledRoute[]): void {
  const seen = new Set<string>();
  for (const { route, segments } of routes) {
    const key = `${route.method} /${segments.map((s) => (isParam(s) ? "{}" : s)).join("/")}`;
    if (seen.has(key)) throw new Error(`Duplicate route ${key}`);
    seen.add(key);
  }
}
