import type { TokenCredential } from "@azure/identity";
import { z } from "zod";
import { invalidPageToken } from "../../../platform/errors/api-error";
import { bearerAuthorization, lazyDefaultAzureCredential } from "../../../platform/upstream/azure-credential";
import { createJsonHttpClient, queryString, type JsonCall } from "../../../platform/upstream/json-http-client";
import {
  checkDirectoryLogQuery,
  directoryLogsNotEnabled,
  isObjectId,
  MAX_DIRECTORY_LOG_PAGE_SIZE,
  type DirectoryAuditRecord,
  type DirectoryLogQuery,
  type DirectoryLogs,
  type LogPage,
  type SignInRecord,
} from "../port";
import { graphDirectoryAuditSchema, graphPageSchema, graphSignInSchema } from "./graph-wire";
import { decodeLogCursor, encodeLogCursor } from "../log-cursor";

/**
 * Directory logs from Microsoft Graph v1.0 (`auditLogs/signIns`, `auditLogs/directoryAudits`), with
 * an app token for the workspace's tenant (application permission AuditLog.Read.All; sign-in logs
 * need an Entra ID P1/P2 tenant).
 *
 * - The window is read in slices (one day by default), newest slice first: Graph documents that
 *   sign-in queries over long ranges time out, and each slice is one bounded `$filter`.
 * - `@odata.nextLink` is followed here, on the server; callers only ever see this adapter's cursor.
 *   The link is only ever sent back to the configured Graph origin (it carries no credential, but the
 *   token would go wherever it points).
 * - Graph's 429 comes back as RATE_LIMITED with its Retry-After in seconds; 403 (missing permission
 *   or licence) is the service's credential refused: UPSTREAM_ERROR.
 */
export interface GraphDirectoryLogsOptions {
  /**
   * Default: DefaultAzureCredential, loaded on the first token request, allowed to ask for tokens of
   * `tenants` (other tenants than the identity's own need a multi-tenant app registration).
   */
  credential?: TokenCredential;
  /** "https://graph.microsoft.com", or a national cloud's Graph. */
  baseUrl: string;
  /** Tenants whose directory the credential may read; "*" for any. */
  tenants: readonly string[] | "*";
  timeoutMs: number;
  /** Width of one window slice; default 24 hours. */
  sliceMs?: number;
  /** Graph requests one page may make before it returns what it has (with a cursor); default 10. */
  maxRequestsPerPage?: number;
  fetch?: typeof fetch;
  now?: () => Date;
}

const SYSTEM = "Microsoft Graph";

interface LogKind<T> {
  path: string;
  timeField: "createdDateTime" | "activityDateTime";
  /** The `$filter` term naming the user. */
  userFilter(user: string): string;
  /** signIns documents no `$orderby` (its default order is newest first); directoryAudits supports it. */
  orderBy?: string;
  schema: z.ZodType<{ value: T[]; "@odata.nextLink"?: string | null }>;
  time(item: T): string;
  what: string;
}

const signIns: LogKind<SignInRecord> = {
  path: "/v1.0/auditLogs/signIns",
  timeField: "createdDateTime",
  userFilter: (user) => (isObjectId(user) ? `userId eq '${odataString(user)}'` : `userPrincipalName eq '${odataString(user)}'`),
  schema: graphPageSchema(graphSignInSchema),
  time: (item) => item.createdDateTime,
  what: "sign-ins",
};

const directoryAudits: LogKind<DirectoryAuditRecord> = {
  path: "/v1.0/auditLogs/directoryAudits",
  timeField: "activityDateTime",
  userFilter: (user) =>
    isObjectId(user) ? `initiatedBy/user/id eq '${odataString(user)}'` : `initiatedBy/user/userPrincipalName eq '${odataString(user)}'`,
  orderBy: "activityDateTime desc",
  schema: graphPageSchema(graphDirectoryAuditSchema),
  time: (item) => item.activityDateTime,
  what: "directory audit events",
};

/** Where a page resumes: the slice (by its exclusive end), the Graph request inside it, and how many of its rows were already returned. */
const cursorSchema = z.strictObject({
  e: z.iso.datetime(),
  u: z.string().optional(),
  k: z.number().int().min(0).max(MAX_DIRECTORY_LOG_PAGE_SIZE).optional(),
});

export function createGraphDirectoryLogs(options: GraphDirectoryLogsOptions): DirectoryLogs {
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const scope = `${origin}/.default`;
  const sliceMs = options.sliceMs ?? 24 * 3_600_000;
  const maxRequests = options.maxRequestsPerPage ?? 10;
  const now = options.now ?? (() => new Date());
  const allowed = options.tenants === "*" ? undefined : new Set(options.tenants.map((t) => t.toLowerCase()));
  const isEnabled = (tenantId: string) => allowed === undefined || allowed.has(tenantId.toLowerCase());
  const credential = options.credential ?? lazyDefaultAzureCredential({ additionallyAllowedTenants: options.tenants === "*" ? ["*"] : options.tenants });

  async function read<T>(kind: LogKind<T>, query: DirectoryLogQuery, path: string, signal?: AbortSignal) {
    const what = `reading the ${kind.what} of tenant ${query.tenantId}`;
    const authHeader = await bearerAuthorization(credential, { system: SYSTEM, scope, tenantId: query.tenantId, what, signal });
    const client = createJsonHttpClient({ system: SYSTEM, baseUrl: origin, authHeader, timeoutMs: options.timeoutMs, fetch: options.fetch, now });
    const call: JsonCall = { method: "GET", path, what };
    const page = await client.read(call, kind.schema, signal);
    const next = page["@odata.nextLink"];
    if (next && !sameCollection(next, kind)) throw client.invalid(call, "@odata.nextLink points outside the collection");
    return { items: page.value, next: next ? next.slice(origin.length) : undefined };
  }

  /** A nextLink (absolute) or a cursor's link (relative) must stay on the configured Graph, in this collection. */
  function sameCollection(link: string, kind: LogKind<unknown>): boolean {
    let url: URL;
    try {
      url = new URL(link, origin);
    } catch {
      return false;
    }
    return url.origin === origin && url.pathname === kind.path && !link.startsWith("//") && (link.startsWith(origin) || link.startsWith("/"));
  }

  function firstRequest<T>(kind: LogKind<T>, query: DirectoryLogQuery, start: number, end: number, top: number): string {
    // `le` is the bound Graph supports; the row exactly at `end` belongs to the newer slice and is dropped below.
    const terms = [`${kind.timeField} ge ${new Date(start).toISOString()}`, `${kind.timeField} le ${new Date(end).toISOString()}`];
    if (query.user !== undefined) terms.push(kind.userFilter(query.user));
    return (
      kind.path +
      queryString([
        ["$filter", terms.join(" and ")],
        ["$top", top],
        ["$orderby", kind.orderBy],
      ])
    );
  }

  async function listPage<T>(kind: LogKind<T>, query: DirectoryLogQuery, signal?: AbortSignal): Promise<LogPage<T>> {
    if (!isEnabled(query.tenantId)) throw directoryLogsNotEnabled(query.tenantId);
    const window = checkDirectoryLogQuery(query);
    let sliceEnd = window.to;
    let link: string | undefined;
    let skip = 0;
    if (query.cursor !== undefined) {
      const cursor = decodeLogCursor(query.cursor, cursorSchema);
      sliceEnd = Date.parse(cursor.e);
      if (sliceEnd <= window.from || sliceEnd > window.to) throw invalidPageToken("cursor");
      if (cursor.u !== undefined && !sameCollection(cursor.u, kind)) throw invalidPageToken("cursor");
      link = cursor.u;
      skip = cursor.k ?? 0;
    }
    const items: T[] = [];
    let requests = 0;
    while (items.length < query.pageSize && sliceEnd > window.from && requests < maxRequests) {
      const sliceStart = Math.max(window.from, sliceEnd - sliceMs);
      const path = link ?? firstRequest(kind, query, sliceStart, sliceEnd, Math.min(MAX_DIRECTORY_LOG_PAGE_SIZE, query.pageSize - items.length));
      const page = await read(kind, query, path, signal);
      requests++;
      const rows = page.items.filter((item) => {
        const at = Date.parse(kind.time(item));
        return at >= sliceStart && at < sliceEnd;
      });
      const need = query.pageSize - items.length;
      const available = rows.slice(skip);
      if (available.length > need) {
        items.push(...available.slice(0, need));
        return { items, cursor: encodeLogCursor({ e: new Date(sliceEnd).toISOString(), u: path, k: skip + need }) };
      }
      items.push(...available);
      skip = 0;
      link = page.next;
      if (link === undefined) sliceEnd = sliceStart;
    }
    if (sliceEnd <= window.from) return { items };
    return { items, cursor: encodeLogCursor(link === undefined ? { e: new Date(sliceEnd).toISOString() } : { e: new Date(sliceEnd).toISOString(), u: link }) };
  }

  return {
    isEnabled,
    listSignIns: async (query, signal) => listPage(signIns, query, signal),
    listDirectoryAudits: async (query, signal) => listPage(directoryAudits, query, signal),
  };
}

/** An OData string literal's content: a single quote is doubled. */
function odataString(value: string): string {
  return value.replace(/'/g, "''");
}
