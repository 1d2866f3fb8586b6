import type { HttpMethod, Route } from "./route";

export const API_PREFIX = "/api/v2";

export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: HttpMethod[] }
  | { kind: "not-found" };

interface CompiledRoute {
  route: Route;
  segments: string[];
  /** Literal segments count; a literal beats a parameter at the same position. */
  specificity: number;
}

/**
 * Matches a path (after /api/v2) to a route. Decides 404 versus 405 itself, so that hosts can send
 * every method of a whole prefix here.
 */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(readonly routes: Route[]) {
    this.compiled = routes
      .map((route) => {
        const segments = split(route.path);
        return { route, segments, specificity: segments.filter((s) => !isParam(s)).length };
      })
      .sort((a, b) => b.specificity - a.specificity);
    assertNoDuplicates(this.compiled);
  }

  match(method: string, path: string): RouteMatch {
    const parts = split(path);
    if (parts === null) return { kind: "not-found" };
    const allow = new Set<HttpMethod>();
    for (const candidate of this.compiled) {
      const params = matchSegments(candidate.segments, parts);
      if (!params) continue;
      if (candidate.route.method === method) return { kind: "found", route: candidate.route, params };
      allow.add(candidate.route.method);
    }
    if (allow.size === 0) return { kind: "not-found" };
    return { kind: "method-not-allowed", allow: [...allow].sort() };
  }
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}

function isParam(segment: string): boolean {
  return segment.startsWith("{") && segment.endsWith("}");
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const part = parts[i]!;
    if (isParam(p)) {
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return undefined;
      }
      params[p.slice(1, -1)] = value;
    } else if (p !== part) {
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
