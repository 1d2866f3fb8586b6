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

/** What the pipeline asks of its routing: a `Router`, or a `GroupRouter` that builds a group on its first request. */
export interface Routing {
  match(method: string, path: string): RouteMatch | Promise<RouteMatch>;
}

/**
 * Matches a path (after /api/v2) to a route. Decides 404 versus 405 itself, so that hosts can send
 * every method of a whole prefix here. Candidates are tried in order of specificity; only those of
 * the path's length whose first segment can match are looked at.
 */
export class Router implements Routing {
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
    return this.matchParts(method, split(path));
  }

  /** `match` on a path already split into its segments. */
  matchParts(method: string, parts: readonly string[]): RouteMatch {
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

/**
 * An endpoint group before it is built: the path prefix every one of its routes starts with, and how
 * to build it (its schemas and handlers' modules load then).
 */
export interface DeferredGroup {
  /** After /api/v2, written as route paths are: literal segments, and `{name}` ones that match any segment. "" when its routes share none. */
  prefix: string;
  load(): Promise<readonly Route[]>;
}

/**
 * A `Router` over endpoint groups built on first use. Every route of a group starts with the group's
 * prefix, so a path can only match routes of the groups whose prefix it starts with: those groups are
 * built on the first request that reaches them (once, however many requests wait for them), and the
 * path is matched over their routes, with the same answer — route, 405 or 404 — as a `Router` over
 * every route. A request to one group builds that group alone; before it, routing knows only prefixes.
 */
export class GroupRouter implements Routing {
  private readonly groups: { prefix: string[]; load: () => Promise<readonly Route[]>; routes?: Promise<readonly Route[]> }[];
  /** The router of each set of groups a path has led to (usually one group), by their indexes. */
  private readonly routers = new Map<string, Router>();

  constructor(groups: readonly DeferredGroup[]) {
    this.groups = groups.map((g) => ({ prefix: split(g.prefix), load: g.load }));
  }

  match(method: string, path: string): RouteMatch | Promise<RouteMatch> {
    // Plain loops and one split: this runs on every request (closures and array builtins cost a few
    // microseconds of a warm GET here, profiled).
    const parts = split(path);
    const candidates: number[] = [];
    for (let i = 0; i < this.groups.length; i++) if (startsWith(parts, this.groups[i]!.prefix)) candidates.push(i);
    const key = candidates.join(",");
    const router = this.routers.get(key);
    if (router) return router.matchParts(method, parts);
    return this.build(key, candidates).then((built) => built.matchParts(method, parts));
  }

  private async build(key: string, candidates: number[]): Promise<Router> {
    const routes = await Promise.all(candidates.map((i) => this.routesOf(i)));
    let router = this.routers.get(key);
    if (!router) this.routers.set(key, (router = new Router(routes.flat())));
    return router;
  }

  /** A group's routes, loaded once; a failed load is tried again by the next request. */
  private routesOf(i: number): Promise<readonly Route[]> {
    const group = this.groups[i]!;
    group.routes ??= group.load().catch((error: unknown) => {
      group.routes = undefined;
      throw error;
    });
    return group.routes;
  }
}

/** Whether `parts` starts with `prefix`'s segments, a `{name}` segment matching any. */
function startsWith(parts: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > parts.length) return false;
  for (let j = 0; j < prefix.length; j++) if (prefix[j] !== parts[j] && !isParam(prefix[j]!)) return false;
  return true;
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}

function isParam(segment: string): boolean {
  return segment.startsWith("{") && segment.endsWith("}");
}

/** The parameters when every literal matches and every parameter decodes; literals are compared first. */
function matchSegments(candidate: CompiledRoute, parts: readonly string[]): Record<string, string> | undefined {
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
