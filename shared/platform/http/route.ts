import type { z } from "zod";
import type { Scope } from "../auth/scopes";
import type { Principal } from "../auth/principal";
import type { OperationContext } from "../operation-context";
import type { WorkspaceRecord } from "../../domain/organizations/workspace";
import type { WorkspaceRole } from "../../domain/organizations/roles";
import type { ErrorCode } from "../errors/api-error";

/**
 * What a handler returns: data for the envelope; a bare JSON body (contract 2.1's one exception,
 * the audit export's top-level `value` and `nextPageToken`); or a raw body (documents, assets).
 */
export type HandlerResult =
  | { data: unknown; status?: 200 | 201 | 202; headers?: Record<string, string>; pagination?: Pagination }
  | { bare: unknown; headers?: Record<string, string> }
  | { status: 204; headers?: Record<string, string> }
  | { raw: string | Buffer; contentType: string; headers?: Record<string, string> };

export interface Pagination {
  continuationToken?: string;
  hasMore: boolean;
}

/**
 * A handler's input: the operation context (services, the acting caller, the abort signal) with the
 * request's validated parameters. Domain functions take it as an `OperationContext`.
 */
export interface HandlerInput<P, Q, B> extends OperationContext {
  params: P;
  query: Q;
  body: B;
  /** The authenticated caller; not set on public routes, which must not read it. */
  principal: Principal;
  /**
   * On routes with `{workspaceId}`: the workspace, found and the caller's role on it checked by the
   * pipeline (404 and 403 come from there). Not set on other routes, which must not read it.
   */
  workspace: WorkspaceRecord;
  workspaceRole: WorkspaceRole;
  requestId: string;
  /** Request header lookup, lower-case names. */
  header(name: string): string | undefined;
  /** `scheme://host` of the request, for absolute links. */
  origin: string;
  signal: AbortSignal;
}

/** A handler's input when its parameters do not matter: what helpers of a route group take. */
export type RequestContext = HandlerInput<unknown, unknown, unknown>;

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type SuccessStatus = 200 | 201 | 202 | 204;

/**
 * One endpoint: method, path (relative to /api/v2, `{name}` for parameters), who may call it,
 * the zod schemas of its inputs and output, and a plain async handler. The same entry is served in
 * Azure and locally and documented in the OpenAPI document.
 */
export interface RouteDef<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined> {
  method: HttpMethod;
  path: string;
  summary: string;
  /** Longer documentation for the OpenAPI operation (Markdown), after the scope line. */
  description?: string;
  tag: string;
  /** Required scope, or "public" for unauthenticated routes. */
  auth: Scope | "public";
  params?: P;
  query?: Q;
  body?: B;
  /** Schema of `data` (or of the raw body for documents); documentation only. */
  response?: Schema;
  /** Success status (or statuses) for documentation; the handler's result decides at run time. */
  successStatus?: SuccessStatus | readonly SuccessStatus[];
  /**
   * Problems this operation answers beyond those every operation may (documentation only), with
   * the status when it is not the code's usual one, e.g. `{ code: "VALIDATION_ERROR", status: 422 }`.
   */
  problems?: readonly (ErrorCode | { code: ErrorCode; status: number })[];
  paginated?: boolean;
  /** The response is a bare JSON body (`{bare}`), not the `{data, meta}` envelope. */
  bare?: boolean;
  /**
   * A larger body limit than `MAX_REQUEST_BODY_BYTES`, for a route whose bodies carry back what the
   * service itself handed out (the cross-workspace listing's page tokens): it must accept them.
   */
  maxBodyBytes?: number;
  /** Hidden from the OpenAPI document (documentation assets). */
  hidden?: boolean;
  handler(input: HandlerInput<Out<P>, Out<Q>, Out<B>>): Promise<HandlerResult>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Route = RouteDef<any, any, any>;

/** Identity function that keeps the handler's input types tied to the route's schemas. */
export function defineRoute<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(route: RouteDef<P, Q, B>): Route {
  return route;
}

/**
 * The routes of one endpoint group: one HTTP function in Azure, whose route template is derived from
 * the paths (`azure/route-templates.ts`). A new group is one entry in `route-groups.ts`.
 */
export interface RouteGroup {
  name: string;
  routes: Route[];
}
