import type { Unavailable } from "./partial-results";
import type { z } from "zod";
import type { Scope } from "../auth/scopes";
import type { Principal } from "../auth/principal";
import type { Deadline } from "../concurrency/deadline";
import type { PlatformServices } from "../services";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { OrganizationalRole, WorkspaceRole } from "../../model/organizations/roles";
import type { Person } from "../auth/person";
import type { Actor } from "../actor";
import type { ErrorCode } from "../errors/api-error";
import type { Config } from "../config/config";
import type { DeclaredHeader } from "./documented-headers";

/**
 * What a handler returns: data for the envelope; a bare JSON body (docs/contract.md §2.1's one exception,
 * the audit export's top-level `value` and `nextPageToken`); a raw body (documents, assets); or a
 * redirect (the portal's sign-in). Any of them may set cookies (`Set-Cookie` lines, one each).
 */
export type HandlerResult = (
  | {
      data: unknown;
      status?: 200 | 201 | 202;
      headers?: Record<string, string>;
      pagination?: Pagination;
      /** A cross-workspace answer's report (`partial` routes): what could not be read, in `meta.unavailable`. */
      unavailable?: Unavailable[];
    }
  | { bare: unknown; headers?: Record<string, string> }
  | { status: 204; headers?: Record<string, string> }
  | { raw: string | Buffer; contentType: string; headers?: Record<string, string> }
  | { redirect: string; headers?: Record<string, string> }
) & { cookies?: string[] };

export interface Pagination {
  continuationToken?: string;
  hasMore: boolean;
}

/**
 * Who may call a route: anyone (documents, health); a service account, or one with a role on the
 * path's workspace (the contract's routes); a person signed in to the portal, or one who may act on
 * the path's workspace (the portal's routes). The two kinds of caller are never mixed.
 */
export type RouteKind = "public" | "organization" | "workspace" | "person" | "personWorkspace";

/**
 * What every handler gets: the services it may use (read them by name: `{ stores, now }`), and the
 * request's validated parameters and parts. `S` is the record of services the handlers receive: the
 * platform knows only its own part of it (`PlatformServices`); the API names the whole
 * (`shared/api/route-kinds.ts`).
 */
export type PublicInput<S, P, Q, B> = S & {
  params: P;
  query: Q;
  body: B;
  requestId: string;
  /** Request header lookup, lower-case names. */
  header(name: string): string | undefined;
  /** `scheme://host` of the request, for absolute links. */
  origin: string;
  signal: AbortSignal;
  /** The request's time budget: the operations it runs take it for their writes (`commit`'s `deadline`). */
  deadline: Deadline;
};

/** The input of a service account's call: the caller, authenticated and its scope checked by the pipeline, and the actor it is. */
export type OrganizationInput<S, P, Q, B> = PublicInput<S, P, Q, B> & {
  principal: Principal;
  actor: Actor;
};

/** The input of a call on `/workspaces/{workspaceId}/…`: the workspace, found and the caller's role on it checked. */
export type WorkspaceInput<S, P, Q, B> = OrganizationInput<S, P, Q, B> & {
  workspace: WorkspaceRecord;
  workspaceRole: WorkspaceRole;
};

/** The input of a portal route: the person signed in, with MFA, registered and allowed by their role. */
export type PersonInput<S, P, Q, B> = PublicInput<S, P, Q, B> & {
  person: Person;
  actor: Actor;
};

/**
 * The input of a portal route on `/portal/workspaces/{workspaceId}/…`: the workspace, in the person's
 * organization, and their role there (undefined when they act on it through an organization-wide role).
 */
export type PersonWorkspaceInput<S, P, Q, B> = PersonInput<S, P, Q, B> & {
  workspace: WorkspaceRecord;
  workspaceRole: WorkspaceRole | undefined;
};

/** Any handler's input, whatever the kind of its route (what the pipeline builds, with the services it was given). */
export type HandlerInput<P, Q, B> = PublicInput<PlatformServices, P, Q, B> &
  Partial<Pick<WorkspaceInput<PlatformServices, P, Q, B>, "principal" | "actor" | "workspace" | "workspaceRole">> &
  Partial<Pick<PersonInput<PlatformServices, P, Q, B>, "person">>;

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type SuccessStatus = 200 | 201 | 202 | 204 | 303;

/**
 * One endpoint: method, path (relative to /api/v2, `{name}` for parameters), who may call it,
 * the zod schemas of its inputs and output, and a plain async handler. The same entry is served in
 * Azure and locally and documented in the OpenAPI document.
 */
interface RouteFields<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined> {
  method: HttpMethod;
  path: string;
  summary: string;
  /** Longer documentation for the OpenAPI operation (Markdown), after the scope line. */
  description?: string;
  tag: string;
  /** The scope the caller's credential must hold. */
  auth: Scope;
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
  /**
   * A cross-workspace route that answers with what the healthy workspaces give: its `meta` carries
   * `unavailable`, the report of what could not be read (`partial-results.ts`): per (workspace,
   * source) stream for the incident listing, per workspace for the others.
   */
  partial?: "streams" | "workspaces";
  /** The body is `multipart/form-data` (uploads), read into fields and files before `body` validates it. */
  multipart?: boolean;
  /** The response is a bare JSON body (`{bare}`), not the `{data, meta}` envelope. */
  bare?: boolean;
  /**
   * A larger body limit than `MAX_REQUEST_BODY_BYTES`, for a route whose bodies carry back what the
   * service itself handed out (the cross-workspace listing's page tokens): it must accept them. Or
   * one the configuration decides (an upload: the largest document a deployment accepts).
   */
  maxBodyBytes?: number | ((config: Config) => number);
  /**
   * The success answer is a document's bytes in one of these media types (a download), not JSON:
   * documented as binary content of each.
   */
  rawMediaTypes?: readonly string[];
  /** Hidden from the OpenAPI document (documentation assets). */
  hidden?: boolean;
  /**
   * Headers the handler sets on its answers (`ETag`, `Location`, one of its own…), for the OpenAPI
   * document and the API tests' check of every answer: by name when every success answer carries
   * it, or with the status it comes with and, when only some answers carry it, `when`. The
   * pipeline's headers (request id, rate limit, caching, authentication) need no declaring.
   */
  responseHeaders?: readonly DeclaredHeader[];
  /** The handler honours `If-Match` (409 CONFLICT when it names another version of the resource). */
  ifMatch?: boolean;
  /**
   * A POST that creates or starts something: it honours `Idempotency-Key` (`idempotency.ts`), so a
   * client that sends it again after a timeout gets the first answer instead of a second resource.
   */
  idempotencyKey?: boolean;
}

type Handler<I> = (input: I) => Promise<HandlerResult>;

/** One endpoint as the pipeline, the hosts and the OpenAPI generator see it, whatever its kind. */
export interface Route extends Omit<RouteFields<Schema | undefined, Schema | undefined, Schema | undefined>, "auth"> {
  kind: RouteKind;
  /** The scope a service account needs; "public" on public routes, "session" on the portal's. */
  auth: Scope | "public" | "session";
  /** Portal routes: the organizational roles that may call it (`Admin` always may). */
  roles?: readonly OrganizationalRole[];
  /** Portal workspace routes: the role the person must hold on the workspace itself, whatever their organizational role. */
  workspaceRole?: WorkspaceRole;
  /**
   * The organization's `Admin` may call it without holding `workspaceRole` there: deciding approvals,
   * which an `Admin` does on every workspace of the organization as everything else.
   */
  adminWithoutWorkspaceRole?: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one table holds routes of every input type; each route kind types its handler where the route is declared, and `unknown` here would refuse every handler (parameters are contravariant)
  handler: Handler<any>;
}

type PersonRouteFields<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined> = Omit<RouteFields<P, Q, B>, "auth"> & {
  /** The organizational roles that may call it, besides `Admin`; "any" for every registered person. */
  roles: readonly OrganizationalRole[] | "any";
};

const rolesOf = (roles: readonly OrganizationalRole[] | "any"): readonly OrganizationalRole[] | undefined =>
  roles === "any" ? undefined : roles.includes("Admin") ? roles : ["Admin", ...roles];

/**
 * The five kinds of route, their handlers typed with `S`, the record of services the pipeline is given
 * (`createPipeline`): the API binds it once, to the whole record (`shared/api/route-kinds.ts`), and
 * declares its routes with what that returns.
 */
export function routeKinds<S extends PlatformServices>() {
  return {
    /** A route anyone may call: no credential is read, and its handler has no caller. */
    publicRoute<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
      route: Omit<RouteFields<P, Q, B>, "auth"> & { handler: Handler<PublicInput<S, Out<P>, Out<Q>, Out<B>>> },
    ): Route {
      return { ...route, kind: "public", auth: "public" };
    },

    /** A route of the caller's organization: a service account holding `auth`. */
    organizationRoute<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
      route: RouteFields<P, Q, B> & { handler: Handler<OrganizationInput<S, Out<P>, Out<Q>, Out<B>>> },
    ): Route {
      if (route.path.includes("{workspaceId}")) throw new Error(`${route.method} ${route.path} names a workspace: make it a workspaceRoute.`);
      return { ...route, kind: "organization" };
    },

    /** A route of one workspace (`{workspaceId}` in its path): a service account holding `auth` and a role on the workspace. */
    workspaceRoute<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
      route: RouteFields<P, Q, B> & { handler: Handler<WorkspaceInput<S, Out<P>, Out<Q>, Out<B>>> },
    ): Route {
      if (!route.path.includes("{workspaceId}")) throw new Error(`${route.method} ${route.path} names no workspace: make it an organizationRoute.`);
      return { ...route, kind: "workspace" };
    },

    /** A portal route of the person's organization (`/portal/…`): a person with a browser session, and one of `roles`. */
    personRoute<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
      route: PersonRouteFields<P, Q, B> & { handler: Handler<PersonInput<S, Out<P>, Out<Q>, Out<B>>> },
    ): Route {
      if (!route.path.startsWith("/portal/")) throw new Error(`${route.method} ${route.path}: portal routes live under /portal/.`);
      if (route.path.includes("{workspaceId}")) throw new Error(`${route.method} ${route.path} names a workspace: make it a personWorkspaceRoute.`);
      return { ...route, kind: "person", auth: "session", roles: rolesOf(route.roles) };
    },

    /**
     * A portal route of one workspace: a person with one of `roles` who may act on the workspace (a role
     * on it, or an organization-wide role: `Admin`, `WorkspaceAdmin`), and `workspaceRole` on it when set.
     */
    personWorkspaceRoute<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
      route: PersonRouteFields<P, Q, B> & { workspaceRole?: WorkspaceRole; adminWithoutWorkspaceRole?: boolean; handler: Handler<PersonWorkspaceInput<S, Out<P>, Out<Q>, Out<B>>> },
    ): Route {
      if (!route.path.startsWith("/portal/")) throw new Error(`${route.method} ${route.path}: portal routes live under /portal/.`);
      if (!route.path.includes("{workspaceId}")) throw new Error(`${route.method} ${route.path} names no workspace: make it a personRoute.`);
      return { ...route, kind: "personWorkspace", auth: "session", roles: rolesOf(route.roles) };
    }
  };
}

/** The most a route's request body may hold: its own limit, else `MAX_REQUEST_BODY_BYTES`. */
export function bodyLimitOf(route: Pick<Route, "maxBodyBytes">, config: Pick<Config, "maxRequestBodyBytes"> & Partial<Config>): number {
  const limit = route.maxBodyBytes;
  if (limit === undefined) return config.maxRequestBodyBytes;
  return typeof limit === "number" ? limit : limit(config as Config);
}

/**
 * The routes of one endpoint group: one HTTP function in Azure, whose route template is derived from
 * the paths. A new group is one entry in `shared/api/route-groups.ts`.
 */
export interface RouteGroup {
  name: string;
  routes: Route[];
}
