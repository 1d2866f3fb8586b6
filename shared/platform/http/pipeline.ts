import { randomUUID } from "node:crypto";
import type { Principal } from "../auth/principal";
import { ORGANIZATION_WIDE_ROLES, type Person } from "../auth/person";
import { actorOf, personActor, type Actor } from "../actor";
import type { PlatformServices } from "../services";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { satisfiesWorkspaceRole, type WorkspaceRole } from "../../model/organizations/roles";
import { ApiError, isApiError, notFound } from "../errors/api-error";
import { PROBLEM_CONTENT_TYPE, toProblem } from "./problem";
import { rateLimitHeaders, setRateLimitHeaders, type RateLimitDecision } from "./rate-limit";
import { parseJsonBody } from "./request-body";
import { parseMultipartBody } from "./multipart-body";
import { Deadline } from "../concurrency/deadline";
import { admissionOf, callerOf, shedError } from "./admission";
import { bodyLimitOf, type HandlerInput, type HandlerResult, type Route } from "./route";
import { API_PREFIX, Router, type Routing } from "./router";
import { validate, validateFlat } from "./validation";
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey, requestFingerprint, serveIdempotently } from "./idempotency";
import { encode, preferredCoding, varyOnEncoding, worthCompressing, type ContentCoding } from "./compression";

/** A request as every host sees it: the Azure Functions host and the local node:http host adapt to this. */
export interface ApiRequest {
  method: string;
  /** The path, percent-encoded as received, normalized as the WHATWG URL parser does (dot segments resolved). */
  path: string;
  /** The query string with its `?`, or "" when there is none. */
  search: string;
  /** `scheme://host` of the request, for absolute links; a host may work it out on first read. */
  readonly origin: string;
  /** Lower-case header name → value. */
  header(name: string): string | undefined;
  /** The raw body, at most `maxBytes` (413 past it); read once, only for routes that take one. */
  body(maxBytes: number): Promise<Buffer>;
  /** The caller's address, for limiting unauthenticated traffic. */
  readonly clientAddress: string;
  /** Aborted when the client goes away; a host may create it on first read. */
  readonly signal: AbortSignal;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** `Set-Cookie` lines, each its own header. */
  cookies?: string[];
  body?: string | Buffer;
}

/** What the access log records of each request (a type, not an interface: it is the log line's fields as they are). */
export type RequestOutcome = {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  serviceAccountId?: string;
  /** The person, on a portal route. */
  userId?: string;
  code?: string;
};

export type Handle = (request: ApiRequest) => Promise<{ response: ApiResponse; outcome: RequestOutcome }>;

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** `Expect` values that ask for 100 Continue, as Node's HTTP server recognises them. */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;

/** Whether the request's `Expect` header (if any) is one this service meets: only `100-continue`. */
export function meetsExpectation(expect: string | undefined): boolean {
  return expect === undefined || CONTINUE_EXPECTATION.test(expect);
}

/** The answer to any other expectation: 417, before the request body is read. */
export function unmetExpectation(): ApiError {
  return new ApiError("BAD_REQUEST", "Only the expectation 100-continue is supported.", { status: 417, target: "Expect" });
}

/**
 * The request pipeline of every endpoint: request id → route match → authenticate → rate limit →
 * scope → workspace role → validate → handler → envelope, with every failure turned into a problem.
 * `routes` are the routes themselves, or a routing that builds them on first use (`GroupRouter`).
 */
export function createPipeline(routes: Route[] | Routing, services: PlatformServices, prefix: string = API_PREFIX): Handle {
  const router = Array.isArray(routes) ? new Router(routes) : routes;
  const admission = admissionOf(services);

  return async (request) => {
    const started = performance.now();
    const requestId = randomUUID();
    const now = services.now();
    const path = request.path;
    // What the request has learned of its caller so far: the answer's headers and the access log
    // use it whether the request ends in a response or in its deadline.
    const caller: CallerSoFar = {};
    let response: ApiResponse;
    let code: string | undefined;

    const problemResponse = (error: unknown): ApiResponse => {
      const apiError = asApiError(error, services, requestId);
      code = apiError.code;
      const problem = toProblem(apiError, { origin: request.origin, instance: path + request.search, requestId, now });
      return {
        status: apiError.status,
        headers: Object.assign({ "Content-Type": PROBLEM_CONTENT_TYPE }, apiError.headers),
        body: JSON.stringify(problem),
      };
    };

    // The liveness check is never shed and has no deadline: it must answer while the instance is
    // busy, which is when it is asked most.
    const liveness = path === prefix + LIVENESS_PATH;
    const who = liveness ? "" : callerOf(request);
    if (!liveness && !admission.tryEnter(who)) {
      response = problemResponse(shedError(admission));
    } else if (liveness) {
      const deadline = new Deadline(LIVENESS_BUDGET_MS, 0, () => request.signal);
      try {
        response = await serveRequest(request, deadline, caller, requestId, now, problemResponse);
      } catch (error) {
        response = problemResponse(error);
      } finally {
        deadline.finish();
      }
    } else {
      const deadline = new Deadline(services.config.requestDeadlineMs, undefined, () => request.signal);
      // The place is held until the work has really ended, even after a 504 (it still holds the
      // instance): `serveRequest` leaves it as it ends.
      const work = serveRequest(request, deadline, caller, requestId, now, problemResponse, who);
      try {
        // The work answers with a response; the deadline, reached first, with nothing.
        response = (await Promise.race([work, deadline.reached])) ?? problemResponse(deadline.timeoutError());
      } catch (error) {
        // Past the deadline, whatever the work failed with (an aborted read, say) is the deadline's doing.
        response = problemResponse(deadline.expired ? deadline.timeoutError() : error);
      } finally {
        deadline.finish();
      }
    }

    const headers = response.headers;
    headers["X-Request-Id"] = requestId;
    if (caller.limit) setRateLimitHeaders(headers, caller.limit);
    // Responses carry credentials and tenant data: never let an intermediary keep them.
    headers["Cache-Control"] ??= "no-store";
    // A browser keeps to the media type given: a JSON answer holding text someone wrote is never run as a page.
    headers["X-Content-Type-Options"] = "nosniff";
    // Decided without an await: most answers are small or go to a client that asked for no coding.
    const coding = codingFor(request, response);
    if (coding !== null) await compress(response, coding);
    return {
      response,
      outcome: {
        requestId,
        method: request.method,
        path,
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        serviceAccountId: caller.principal?.serviceAccountId,
        userId: caller.person?.userId,
        code,
      },
    };
  };

  /**
   * route match → authenticate → rate limit → scope → workspace role → validate → handler →
   * envelope; on a route that takes an `Idempotency-Key` sent with one, the handler runs once per key
   * (`idempotency.ts`). Throws what the caller is to be told. `admitted`: the caller whose place in
   * the admission bound the request holds, left here when the work ends (in a `finally`, not a
   * `then` on the work: that was two closures and a promise a request).
   */
  async function serveRequest(
    request: ApiRequest,
    deadline: Deadline,
    caller: CallerSoFar,
    requestId: string,
    now: Date,
    problemResponse: (error: unknown) => ApiResponse,
    admitted?: string,
  ): Promise<ApiResponse> {
    try {
      const path = request.path;
      // Before anything else, and before the body is read: the one expectation served is 100-continue.
      if (!meetsExpectation(request.header("expect"))) throw unmetExpectation();
      const matched = path === prefix || path.startsWith(prefix + "/")
        ? router.match(request.method, path.slice(prefix.length) || "/")
        : ({ kind: "not-found" } as const);
      const match = matched instanceof Promise ? await matched : matched;
      const route = match.kind === "found" ? match.route : undefined;

      if (route && (route.kind === "organization" || route.kind === "workspace")) {
        try {
          caller.principal = await services.auth.authenticate(request.header("authorization"));
        } catch (error) {
          // Failed attempts spend the caller address's budget, which also slows secret guessing.
          caller.limit = enforceLimit(services, `address:${request.clientAddress}`);
          throw error;
        }
        caller.limit = enforceLimit(services, caller.principal.rateLimitKey);
      } else if (route && (route.kind === "person" || route.kind === "personWorkspace")) {
        try {
          caller.person = await services.people.authenticate(request);
        } catch (error) {
          caller.limit = enforceLimit(services, `address:${request.clientAddress}`);
          throw error;
        }
        caller.limit = enforceLimit(services, caller.person.rateLimitKey);
      } else {
        caller.limit = enforceLimit(services, `address:${request.clientAddress}`);
      }
      const { principal, person } = caller;

      if (match.kind === "not-found") throw new ApiError("NOT_FOUND", `No resource at ${path}.`);
      if (match.kind === "method-not-allowed") {
        throw new ApiError("METHOD_NOT_ALLOWED", `${request.method} is not supported here; use ${match.allow.join(", ")}.`, {
          headers: { Allow: match.allow.join(", ") },
        });
      }

      const r = match.route;
      let workspaceRole = principal ? authorize(r, principal, match.params) : undefined;
      if (person) authorizePerson(r, person);
      let workspace: WorkspaceRecord | undefined;
      // Before the other parameters, the query and the body are judged: a workspace outside the
      // person's organization is not there for them, whatever they send (a 400 would confirm that it
      // exists, and so would a 403 for want of a role there).
      if (person && r.kind === "personWorkspace") {
        workspace = await findPersonWorkspace(services, person, match.params.workspaceId!);
        workspaceRole = person.workspaceRoles.get(workspace.id);
        authorizePersonOnWorkspace(r, person, workspaceRole);
      }
      // Read only on the routes that honour it, and judged once the caller is known: every other
      // request pays nothing for it, and a stranger learns nothing from it.
      const rawKey = r.idempotencyKey ? request.header(IDEMPOTENCY_KEY_HEADER) : undefined;
      const idempotencyKey = rawKey === undefined ? undefined : parseIdempotencyKey(rawKey);
      // Router parameters are flat strings under the route's own names: no prototype keys to look for.
      const params = r.params ? validateFlat(r.params, match.params) : match.params;
      const query = r.query ? validate(r.query, queryObject(request.search)) : undefined;
      const body = r.body ? validate(r.body, await readBody(r, request, services)) : undefined;
      if (workspaceRole && !workspace) workspace = await findWorkspace(services, match.params.workspaceId!);

      const input = new RouteInput(services, request, deadline, requestId, principal ?? person, params, query, body, workspace, workspaceRole);
      const who = principal ?? person;
      if (idempotencyKey === undefined || who === undefined) return render(await r.handler(input), requestId, now);
      // A request that is not valid was refused above and keeps no key: corrected, it may use it.
      const call = { key: idempotencyKey, caller: who, fingerprint: requestFingerprint(request.method, path + request.search, body) };
      // Awaited here, so that the place is left when the work has ended, not when it has started.
      return await serveIdempotently(services, call, deadline, async () => render(await r.handler(input), requestId, now), problemResponse);
    } finally {
      if (admitted !== undefined) admission.leave(admitted);
    }
  }
}

/** The liveness check's path under the API prefix: `GET /api/v2/health`. */
export const LIVENESS_PATH = "/health";
/** The liveness check's own budget: its checks time out well within it (`HEALTH_CHECK_TIMEOUT_MS`). */
const LIVENESS_BUDGET_MS = 5_000;

/** Who the caller turned out to be, and their rate-limit decision, as far as the request got. */
interface CallerSoFar {
  principal?: Principal;
  person?: Person;
  limit?: RateLimitDecision;
}

/**
 * A handler's input: the services, by name (`input.stores`, `{ stores, now }`), with the request's
 * validated parameters, the caller and the workspace on the kinds of route that have them (typed so
 * by the route's kind, route.ts). The request's own parts (origin, abort signal, headers) are read
 * from the request when a handler asks for them, so that a request pays only for what its handler
 * uses; getters, so that destructuring the input (`{ origin, signal }`) reads them as fields.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- merged with the interface of the services below
class RouteInput implements HandlerInput<unknown, unknown, unknown> {
  private actorOfCaller?: Actor;

  constructor(
    services: PlatformServices,
    private readonly request: ApiRequest,
    readonly deadline: Deadline,
    readonly requestId: string,
    caller: Principal | Person | undefined,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly workspace: WorkspaceRecord | undefined,
    readonly workspaceRole: WorkspaceRole | undefined,
  ) {
    // Own fields, not a prototype: `{ ...input, actor }` must carry the services along.
    Object.assign(this, services);
    if (caller && "serviceAccountId" in caller) this.principal = caller;
    else if (caller) this.person = caller;
  }

  readonly principal?: Principal;
  readonly person?: Person;

  get actor(): Actor | undefined {
    return (this.actorOfCaller ??= this.principal ? actorOf(this.principal) : this.person && personActor(this.person));
  }

  get origin(): string {
    return this.request.origin;
  }

  /** Aborted when the caller goes away or the request's deadline passes. */
  get signal(): AbortSignal {
    return this.deadline.signal;
  }

  /** An own function, not a method: handlers may take it out of their input (`{ header }`). */
  readonly header = (name: string): string | undefined => this.request.header(name);
}

// The services are copied onto each input by the constructor; the merged interface gives them their types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- the class and this interface are one type on purpose (see above)
interface RouteInput extends PlatformServices {}

function enforceLimit(services: Pick<PlatformServices, "rateLimiter">, key: string): RateLimitDecision {
  const decision = services.rateLimiter.take(key);
  if (!decision.allowed) {
    throw new ApiError("RATE_LIMITED", `Too many requests; retry after ${decision.retryAfterSeconds} s.`, {
      headers: rateLimitHeaders(decision),
    });
  }
  return decision;
}

/** The scope of an organization or workspace route, and on a workspace route the caller's role there. */
function authorize(route: Route, principal: Principal, rawParams: Record<string, string>): WorkspaceRole | undefined {
  if (route.auth !== "public" && route.auth !== "session" && !principal.scopes.has(route.auth)) {
    throw new ApiError("INSUFFICIENT_SCOPE", `This operation needs the scope ${route.auth}.`, { target: route.auth });
  }
  if (route.kind !== "workspace") return undefined;
  const role = principal.workspaceRoles.get(rawParams.workspaceId!.toLowerCase());
  if (role === undefined) {
    throw new ApiError("INSUFFICIENT_WORKSPACE_ROLE", "The service account has no role on this workspace.", {
      target: "workspaceId",
    });
  }
  return role;
}

/** A person's organizational role against a portal route's; decided before anything is read. */
function authorizePerson(route: Route, person: Person): void {
  if (route.roles && !route.roles.includes(person.organizationalRole)) {
    throw new ApiError("FORBIDDEN", `This needs one of the organizational roles ${route.roles.join(", ")}; you hold ${person.organizationalRole}.`, {
      target: "organizationalRole",
    });
  }
}

/**
 * On a workspace route, once the workspace is known to be of the person's organization: whether they
 * may act there at all (a role on it, or an organization-wide role) and hold the role the route needs.
 */
function authorizePersonOnWorkspace(route: Route, person: Person, role: WorkspaceRole | undefined): void {
  const asAdmin = route.adminWithoutWorkspaceRole === true && person.organizationalRole === "Admin";
  if (asAdmin) return;
  if (route.workspaceRole ? !satisfiesWorkspaceRole(role, route.workspaceRole) : role === undefined && !ORGANIZATION_WIDE_ROLES.includes(person.organizationalRole)) {
    const needed = route.workspaceRole ? `the ${route.workspaceRole} role on this workspace` : "a role on this workspace";
    throw new ApiError("INSUFFICIENT_WORKSPACE_ROLE", `This needs ${needed}.`, { target: "workspaceId" });
  }
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The workspace of a portal workspace route: only one in the person's organization exists for them. */
async function findPersonWorkspace(services: Pick<PlatformServices, "stores">, person: Person, workspaceId: string): Promise<WorkspaceRecord> {
  // Read before the parameters are validated: what is no workspace id names no workspace, unread.
  const workspace = GUID.test(workspaceId) ? await services.stores.workspaces.get(workspaceId.toLowerCase()) : undefined;
  if (!workspace || !person.organizationAccountIds.includes(workspace.accountId)) throw notFound("The workspace", "workspaceId");
  return workspace;
}

/** A route's body: JSON, or for an upload `multipart/form-data`, at most the route's limit. */
async function readBody(route: Route, request: ApiRequest, services: Pick<PlatformServices, "config">): Promise<unknown> {
  const maxBytes = bodyLimitOf(route, services.config);
  const raw = await request.body(maxBytes);
  return route.multipart ? parseMultipartBody(raw, request.header("content-type")) : parseJsonBody(raw, request.header("content-type"), maxBytes);
}

/** The workspace of a workspace route: the caller holds a role on it, but it may have been removed since. */
async function findWorkspace(services: Pick<PlatformServices, "stores">, workspaceId: string): Promise<WorkspaceRecord> {
  const workspace = await services.stores.workspaces.get(workspaceId.toLowerCase());
  if (!workspace) throw notFound("The workspace", "workspaceId");
  return workspace;
}

/**
 * The response of a handler's result. The docs/contract.md §2.1 envelope `{data, meta, pagination?}` is
 * written around the serialized data rather than built as an object and serialized whole: the
 * request id is a GUID and the timestamp an ISO date, neither needs escaping, and the bytes are the
 * same as `JSON.stringify({data, meta, pagination})`.
 */
function render(result: HandlerResult, requestId: string, now: Date): ApiResponse {
  const response = renderBody(result, requestId, now);
  if (result.cookies) response.cookies = result.cookies;
  return response;
}

function renderBody(result: HandlerResult, requestId: string, now: Date): ApiResponse {
  if ("redirect" in result) return { status: 303, headers: Object.assign(headersOf(result.headers), { Location: result.redirect }) };
  if ("raw" in result) return { status: 200, headers: headersOf(result.headers, result.contentType), body: result.raw };
  if ("bare" in result) return { status: 200, headers: headersOf(result.headers, JSON_CONTENT_TYPE), body: JSON.stringify(result.bare) };
  if (result.status === 204) return { status: 204, headers: headersOf(result.headers) };
  const data = JSON.stringify(result.data);
  const report = result.unavailable ? `,"unavailable":${JSON.stringify(result.unavailable)}` : "";
  const meta = `"meta":{"requestId":"${requestId}","timestamp":"${now.toISOString()}"${report}}`;
  let body: string;
  if (data === undefined) {
    // No data (undefined, a function): JSON.stringify leaves the member out.
    body = result.pagination ? `{${meta},"pagination":${JSON.stringify(result.pagination)}}` : `{${meta}}`;
  } else {
    body = result.pagination ? `{"data":${data},${meta},"pagination":${JSON.stringify(result.pagination)}}` : `{"data":${data},${meta}}`;
  }
  return { status: result.status ?? 200, headers: headersOf(result.headers, JSON_CONTENT_TYPE), body };
}

/**
 * A response's own headers object: a copy of the handler's, with the content type. Copied with
 * Object.assign, not spread: a spread copy becomes a slow dictionary object once the pipeline adds
 * its headers, which costs microseconds per response.
 */
function headersOf(handlerHeaders: Record<string, string> | undefined, contentType?: string): Record<string, string> {
  const headers: Record<string, string> = handlerHeaders ? Object.assign({}, handlerHeaders) : {};
  if (contentType !== undefined) headers["Content-Type"] = contentType;
  return headers;
}

/**
 * The coding the answer goes in (Brotli, else gzip, as the client prefers), when it is worth
 * compressing; null to send it as it is. Neither host compresses on its own (Azure Functions on
 * Linux sends what the app gives it). An `ETag` stays as it is: it names the resource's version,
 * whatever the coding, so `If-Match` holds.
 */
function codingFor(request: ApiRequest, response: ApiResponse): ContentCoding | null {
  const { body, headers } = response;
  if (body === undefined || headers["Content-Encoding"] !== undefined || !worthCompressing(headers["Content-Type"], body.length)) return null;
  varyOnEncoding(headers);
  return preferredCoding(request.header("accept-encoding"));
}

async function compress(response: ApiResponse, coding: ContentCoding): Promise<void> {
  response.body = await encode(response.body!, coding);
  response.headers["Content-Encoding"] = coding;
}

function asApiError(error: unknown, services: Pick<PlatformServices, "logger">, requestId: string): ApiError {
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
function queryObject(search: string): Record<string, string | string[]> {
  const params = new URLSearchParams(search);
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}
