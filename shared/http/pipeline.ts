import { randomUUID } from "node:crypto";
import type { Principal } from "../auth/principal";
import { actorOf } from "../operation-context";
import type { Services } from "../services";
import type { WorkspaceRecord, WorkspaceRole } from "../store/records";
import { ApiError, isApiError, notFound } from "../errors/api-error";
import { envelope } from "./envelope";
import { PROBLEM_CONTENT_TYPE, toProblem } from "./problem";
import { rateLimitHeaders, type RateLimitDecision } from "./rate-limit";
import { parseJsonBody } from "./request-body";
import type { HandlerResult, Route } from "./route";
import { API_PREFIX, Router } from "./router";
import { validate } from "./validation";

/** A request as every host sees it: the Azure Functions host and the local node:http host adapt to this. */
export interface ApiRequest {
  method: string;
  url: URL;
  /** Lower-case header name → value. */
  header(name: string): string | undefined;
  /** The raw body, at most `maxBytes` (413 past it); read once, only for routes that take one. */
  body(maxBytes: number): Promise<Buffer>;
  /** The caller's address, for limiting unauthenticated traffic. */
  clientAddress: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** What the access log records of each request. */
export interface RequestOutcome {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  serviceAccountId?: string;
  code?: string;
}

export type Handle = (request: ApiRequest) => Promise<{ response: ApiResponse; outcome: RequestOutcome }>;

/**
 * The request pipeline of every endpoint: request id → route match → authenticate → rate limit →
 * scope → workspace role → validate → handler → envelope, with every failure turned into a problem.
 */
export function createPipeline(routes: Route[], services: Services, prefix: string = API_PREFIX): Handle {
  const router = new Router(routes);

  return async (request) => {
    const started = performance.now();
    const requestId = randomUUID();
    const now = services.now();
    const path = request.url.pathname;
    let principal: Principal | undefined;
    let limit: RateLimitDecision | undefined;
    let response: ApiResponse;
    let code: string | undefined;

    try {
      const match = path === prefix || path.startsWith(prefix + "/")
        ? router.match(request.method, path.slice(prefix.length) || "/")
        : ({ kind: "not-found" } as const);
      const route = match.kind === "found" ? match.route : undefined;

      if (route && route.auth !== "public") {
        try {
          principal = await services.auth.authenticate(request.header("authorization"));
        } catch (error) {
          // Failed attempts spend the caller address's budget, which also slows secret guessing.
          limit = enforceLimit(services, `address:${request.clientAddress}`);
          throw error;
        }
        limit = enforceLimit(services, `credential:${principal.credentialId}`);
      } else {
        limit = enforceLimit(services, `address:${request.clientAddress}`);
      }

      if (match.kind === "not-found") throw new ApiError("NOT_FOUND", `No resource at ${path}.`);
      if (match.kind === "method-not-allowed") {
        throw new ApiError("METHOD_NOT_ALLOWED", `${request.method} is not supported here; use ${match.allow.join(", ")}.`, {
          headers: { Allow: match.allow.join(", ") },
        });
      }

      const r = match.route;
      const workspaceRole = principal && r.auth !== "public" ? authorize(r, principal, match.params) : undefined;
      const params = r.params ? validate(r.params, match.params) : match.params;
      const query = r.query ? validate(r.query, queryObject(request.url.searchParams)) : undefined;
      const maxBytes = r.maxBodyBytes ?? services.config.maxRequestBodyBytes;
      const body = r.body ? validate(r.body, parseJsonBody(await request.body(maxBytes), request.header("content-type"), maxBytes)) : undefined;
      const workspace = workspaceRole ? await findWorkspace(services, match.params.workspaceId!) : undefined;

      const result = await r.handler({
        params,
        query,
        body,
        principal: principal as Principal,
        actor: principal ? actorOf(principal) : (undefined as never),
        workspace: workspace as WorkspaceRecord,
        workspaceRole: workspaceRole as WorkspaceRole,
        services,
        requestId,
        header: request.header,
        origin: request.url.origin,
        signal: request.signal,
      });
      response = render(result, requestId, now);
    } catch (error) {
      const apiError = asApiError(error, services, requestId);
      code = apiError.code;
      const problem = toProblem(apiError, {
        origin: request.url.origin,
        instance: path + request.url.search,
        requestId,
        now,
      });
      response = {
        status: apiError.status,
        headers: { "Content-Type": PROBLEM_CONTENT_TYPE, ...apiError.headers },
        body: JSON.stringify(problem),
      };
    }

    response.headers["X-Request-Id"] = requestId;
    if (limit) Object.assign(response.headers, rateLimitHeaders(limit));
    // Responses carry credentials and tenant data: never let an intermediary keep them.
    response.headers["Cache-Control"] ??= "no-store";
    return {
      response,
      outcome: {
        requestId,
        method: request.method,
        path,
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        serviceAccountId: principal?.serviceAccountId,
        code,
      },
    };
  };
}

function enforceLimit(services: Services, key: string): RateLimitDecision {
  const decision = services.rateLimiter.take(key);
  if (!decision.allowed) {
    throw new ApiError("RATE_LIMITED", `Too many requests; retry after ${decision.retryAfterSeconds} s.`, {
      headers: rateLimitHeaders(decision),
    });
  }
  return decision;
}

/** Scope, then the role on the route's workspace (returned, for workspace routes). */
function authorize(route: Route, principal: Principal, rawParams: Record<string, string>): WorkspaceRole | undefined {
  if (route.auth !== "public" && !principal.scopes.has(route.auth)) {
    throw new ApiError("INSUFFICIENT_SCOPE", `This operation needs the scope ${route.auth}.`, { target: route.auth });
  }
  const workspaceId = rawParams.workspaceId?.toLowerCase();
  if (workspaceId === undefined) return undefined;
  const role = principal.workspaceRoles.get(workspaceId);
  if (role === undefined) {
    throw new ApiError("INSUFFICIENT_WORKSPACE_ROLE", "The service account has no role on this workspace.", {
      target: "workspaceId",
    });
  }
  return role;
}

/** The workspace of a workspace route: the caller holds a role on it, but it may have been removed since. */
async function findWorkspace(services: Services, workspaceId: string): Promise<WorkspaceRecord> {
  const workspace = await services.stores.workspaces.get(workspaceId.toLowerCase());
  if (!workspace) throw notFound("The workspace", "workspaceId");
  return workspace;
}

function render(result: HandlerResult, requestId: string, now: Date): ApiResponse {
  const headers = { ...result.headers };
  if ("raw" in result) {
    headers["Content-Type"] = result.contentType;
    return { status: 200, headers, body: result.raw };
  }
  if ("bare" in result) {
    headers["Content-Type"] = "application/json; charset=utf-8";
    return { status: 200, headers, body: JSON.stringify(result.bare) };
  }
  if (result.status === 204) return { status: 204, headers };
  headers["Content-Type"] = "application/json; charset=utf-8";
  const meta = { requestId, timestamp: now.toISOString() };
  return { status: result.status ?? 200, headers, body: JSON.stringify(envelope(result.data, meta, result.pagination)) };
}

function asApiError(error: unknown, services: Services, requestId: string): ApiError {
  if (isApiError(error)) return error;
  services.logger.error("unhandled error", {
    requestId,
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
  });
  return new ApiError("INTERNAL_ERROR", `An unexpected error occurred. Quote request id ${requestId} when reporting it.`);
}

/**
 * Query string → object; a repeated name becomes an array (e.g. `workspaceIds`). Without a prototype,
 * so a name such as `__proto__` or `constructor` is an ordinary (unknown) key.
 */
function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}
