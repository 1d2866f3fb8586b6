import type { z } from "zod";
import { ApiError, isApiError } from "../../http/api-error";
import { jsonPath } from "../../http/validation";
import type { SourceGateway, VendorIncident } from "../gateway";
import type { Source } from "../source";
import {
  commentListSchema,
  evidenceSchema,
  incidentListSchema,
  incidentPageSchema,
  vendorCommentSchema,
  vendorIncidentSchema,
} from "./vendor-wire";

/**
 * The generic HTTP vendor adapter: a SourceGateway over the JSON contract of docs/vendor-bridge.md,
 * which a bridge in front of a real vendor implements. Every failure becomes an ApiError coded by
 * contract 7's mapping rules; no detail carries the credential or the bridge's response body.
 */
export interface HttpVendorOptions {
  source: Source;
  /** e.g. "https://bridge.example.com/source-a" (a trailing slash is ignored). */
  baseUrl: string;
  /** Full value of the Authorization header sent to the bridge; never logged, never in errors. */
  authHeader?: string;
  /** Per request, covering the headers and the body. */
  timeoutMs: number;
  /** Injectable for tests; defaults to globalThis.fetch. */
  fetch?: typeof fetch;
}

/** Bounds memory per request: a misbehaving bridge must not be able to exhaust the process. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

interface Call {
  method: "GET" | "PUT" | "POST" | "DELETE";
  /** Path and query below the base URL, segments already encoded. */
  path: string;
  body?: unknown;
  /** The operation, for error details: "reading incident 42 in workspace w1". */
  what: string;
}

type QueryValue = string | number | boolean | undefined;

export function createHttpVendorGateway(options: HttpVendorOptions): SourceGateway {
  const { source, timeoutMs } = options;
  const base = checkBaseUrl(options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.authHeader !== undefined) headers.authorization = checkAuthHeader(options.authHeader);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error("timeoutMs must be a positive integer.");

  const fail = (code: "UPSTREAM_ERROR" | "TIMEOUT", what: string, problem: string, cause?: unknown) =>
    new ApiError(code, `${source} ${problem} while ${what}.`, { cause });

  /** Sends one request; resolves to the parsed JSON body (undefined when `withBody` is false). */
  async function exchange(call: Call, withBody: boolean, signal?: AbortSignal): Promise<unknown> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([deadline, signal]) : deadline;
    let phase: "connect" | "body" = "connect";
    let bytes: Uint8Array | "too-large";
    try {
      const response = await fetchImpl(base + call.path, {
        method: call.method,
        headers: call.body === undefined ? headers : { ...headers, "content-type": "application/json" },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: combined,
        // A redirect could carry the credential elsewhere; a bridge has no reason to send one.
        redirect: "manual",
      });
      if (response.status < 200 || response.status > 299) {
        discard(response);
        throw statusError(source, response, call.what);
      }
      if (!withBody) {
        discard(response);
        return undefined;
      }
      phase = "body";
      bytes = await readCapped(response);
    } catch (error) {
      if (isApiError(error)) throw error;
      // The caller's abort wins over our deadline: the caller has gone, nobody waits for a TIMEOUT.
      if (signal?.aborted) {
        throw new ApiError("UPSTREAM_ERROR", `Request aborted: the caller went away while ${call.what} at ${source}.`, {
          cause: error,
        });
      }
      if (deadline.aborted || isTransportTimeout(error)) {
        throw fail("TIMEOUT", call.what, `did not answer within ${timeoutMs} ms`, error);
      }
      const problem = phase === "connect" ? "could not be reached" : "dropped the connection mid-response";
      throw fail("UPSTREAM_ERROR", call.what, problem, error);
    }
    if (bytes === "too-large") {
      throw fail("UPSTREAM_ERROR", call.what, `sent a response larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    try {
      return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
    } catch (error) {
      throw fail("UPSTREAM_ERROR", call.what, "sent a response that is not JSON", error);
    }
  }

  async function read<S extends z.ZodType>(call: Call, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
    const result = schema.safeParse(await exchange(call, true, signal));
    if (result.success) return result.data;
    const at = result.error.issues[0] ? jsonPath(result.error.issues[0].path) : "";
    throw fail("UPSTREAM_ERROR", call.what, `sent an invalid response (at ${at || "the top level"})`, result.error);
  }

  /** An answer about another source, workspace or incident is as wrong as a malformed one. */
  function check(call: Call, items: readonly VendorIncident[], workspaceId: string, incidentId?: string, limit?: number) {
    const wrong = (why: string) => fail("UPSTREAM_ERROR", call.what, `sent an invalid response (${why})`);
    if (limit !== undefined && items.length > limit) throw wrong(`more items than the limit of ${limit}`);
    for (const item of items) {
      if (item.source !== source) throw wrong("source does not match the request");
      if (item.workspaceId !== workspaceId) throw wrong("workspaceId does not match the request");
      if (incidentId !== undefined && item.id !== incidentId) throw wrong("id does not match the request");
    }
  }

  const incidentPath = (workspaceId: string, incidentId: string) =>
    `/workspaces/${segment(source, workspaceId)}/incidents/${segment(source, incidentId)}`;
  const about = (workspaceId: string, incidentId: string) => `incident ${incidentId} in workspace ${workspaceId}`;

  async function incidentCall(call: Call, workspaceId: string, incidentId: string, signal?: AbortSignal) {
    const incident = await read(call, vendorIncidentSchema, signal);
    check(call, [incident], workspaceId, incidentId);
    return incident;
  }

  // Every method is async so that even a synchronous refusal (segment) arrives as a rejection.
  return {
    source,

    getIncident: async (workspaceId, incidentId, signal) =>
      incidentCall(
        { method: "GET", path: incidentPath(workspaceId, incidentId), what: `reading ${about(workspaceId, incidentId)}` },
        workspaceId,
        incidentId,
        signal,
      ),

    async listIncidents(query, signal) {
      const f = query.filters ?? {};
      const call: Call = {
        method: "GET",
        path:
          `/workspaces/${segment(source, query.workspaceId)}/incidents` +
          queryString([
            ["field", query.field],
            ["from", query.from],
            ["to", query.to],
            ["limit", query.limit],
            ["cursor", query.cursor],
            ...(f.severities ?? []).map((v): [string, QueryValue] => ["severity", v]),
            ...(f.statuses ?? []).map((v): [string, QueryValue] => ["status", v]),
            ["query", f.query],
            ...(f.assigneeEmails ?? []).map((v): [string, QueryValue] => ["assigneeEmail", v]),
            ["includeUnassigned", f.includeUnassigned],
            ["includeDeleted", query.includeDeleted],
          ]),
        what: `listing the incidents of workspace ${query.workspaceId}`,
      };
      const page = await read(call, incidentPageSchema, signal);
      check(call, page.items, query.workspaceId, undefined, query.limit);
      return page.cursor === undefined ? { items: page.items } : { items: page.items, cursor: page.cursor };
    },

    setStatus: async (workspaceId, incidentId, change, signal) =>
      incidentCall(
        {
          method: "PUT",
          path: `${incidentPath(workspaceId, incidentId)}/status`,
          body: change,
          what: `setting the status of ${about(workspaceId, incidentId)}`,
        },
        workspaceId,
        incidentId,
        signal,
      ),

    setOwner: async (workspaceId, incidentId, owner, signal) =>
      incidentCall(
        {
          method: "PUT",
          path: `${incidentPath(workspaceId, incidentId)}/owner`,
          body: { owner },
          what: `setting the owner of ${about(workspaceId, incidentId)}`,
        },
        workspaceId,
        incidentId,
        signal,
      ),

    async listComments(workspaceId, incidentId, signal) {
      const call: Call = {
        method: "GET",
        path: `${incidentPath(workspaceId, incidentId)}/comments`,
        what: `listing the comments of ${about(workspaceId, incidentId)}`,
      };
      return (await read(call, commentListSchema, signal)).items;
    },

    addComment: async (workspaceId, incidentId, comment, signal) =>
      read(
        {
          method: "POST",
          path: `${incidentPath(workspaceId, incidentId)}/comments`,
          body: comment,
          what: `adding a comment to ${about(workspaceId, incidentId)}`,
        },
        vendorCommentSchema,
        signal,
      ),

    async deleteComment(workspaceId, incidentId, commentId, signal) {
      const call: Call = {
        method: "DELETE",
        path: `${incidentPath(workspaceId, incidentId)}/comments/${segment(source, commentId)}`,
        what: `deleting comment ${commentId} of ${about(workspaceId, incidentId)}`,
      };
      await exchange(call, false, signal);
    },

    getEvidence: async (workspaceId, incidentId, signal) =>
      read(
        {
          method: "GET",
          path: `${incidentPath(workspaceId, incidentId)}/evidence`,
          what: `reading the evidence of ${about(workspaceId, incidentId)}`,
        },
        evidenceSchema,
        signal,
      ),

    async relatedByEntity(query, signal) {
      const call: Call = {
        method: "GET",
        path:
          `/workspaces/${segment(source, query.workspaceId)}/related-incidents` +
          queryString([
            ["incidentId", query.incidentId],
            ["entityKind", query.entityKind],
            ["entityFilter", query.entityFilter],
            ["entityName", query.entityName],
            ["timeField", query.timeField],
            ["startDate", query.startDate],
            ["endDate", query.endDate],
            ["limit", query.limit],
          ]),
        what: `finding related incidents in workspace ${query.workspaceId}`,
      };
      const { items } = await read(call, incidentListSchema, signal);
      check(call, items, query.workspaceId, undefined, query.limit);
      return items;
    },
  };
}

/** Contract 7 mapping rule 1, plus the credential rule: the bridge's 401/403 are not the caller's. */
function statusError(source: Source, response: Response, what: string): ApiError {
  const status = response.status;
  const detail = (problem: string) => `${source} ${problem} (status ${status}) while ${what}.`;
  switch (status) {
    case 404:
      return new ApiError("NOT_FOUND", detail("found no such resource"));
    case 400:
    // 422 is the vendor understanding the request and refusing its content (e.g. closing without a
    // classification): the caller's input was rejected, which is VALIDATION_ERROR, not an opaque failure.
    case 422: {
      const message = detail("rejected the request as invalid");
      return new ApiError("VALIDATION_ERROR", message, { errors: { "": [message] } });
    }
    case 409:
      return new ApiError("CONFLICT", detail("reported a conflict with the incident's current state"));
    case 429: {
      const seconds = retryAfterSeconds(response.headers.get("retry-after"));
      return new ApiError("RATE_LIMITED", detail("is rate limiting the service"), {
        headers: seconds === undefined ? {} : { "Retry-After": seconds },
      });
    }
    case 408:
    case 504:
      return new ApiError("TIMEOUT", detail("timed out"));
    case 401:
    case 403:
      return new ApiError("UPSTREAM_ERROR", detail("refused the service's credential"));
    default:
      return new ApiError("UPSTREAM_ERROR", detail(status >= 500 ? "failed" : "answered unexpectedly"));
  }
}

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Delta-seconds pass through; an HTTP date becomes the seconds until it, because our own callers are
 * told to wait `Retry-After` seconds (docs/errors.md). Anything else is dropped rather than relayed.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): string | undefined {
  const v = value?.trim() ?? "";
  if (/^\d{1,9}$/.test(v)) return String(Number(v));
  if (!IMF_FIXDATE.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : String(Math.max(0, Math.ceil((at - now) / 1000)));
}

/** Reads at most MAX_RESPONSE_BYTES, counting decoded bytes so that compression cannot get round it. */
async function readCapped(response: Response): Promise<Uint8Array | "too-large"> {
  if (Number(response.headers.get("content-length")) > MAX_RESPONSE_BYTES) {
    discard(response);
    return "too-large";
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      reader.cancel().catch(() => undefined);
      return "too-large";
    }
    chunks.push(value);
  }
}

function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/** undici's own connect/headers/body timeouts are timeouts too, not opaque failures. */
function isTransportTimeout(error: unknown): boolean {
  const codes = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 5; depth++) {
    if ("code" in e && typeof e.code === "string" && codes.has(e.code)) return true;
    e = "cause" in e ? e.cause : undefined;
  }
  return false;
}

/**
 * "." and ".." cannot be sent as path segments (URL parsing resolves them, even percent-encoded),
 * and "" would address a different resource; no vendor record can have such an id.
 */
function segment(source: Source, value: string): string {
  if (value === "" || value === "." || value === "..") {
    throw new ApiError("NOT_FOUND", `${source} has no resource with the id "${value}".`);
  }
  return encodeURIComponent(value);
}

/** encodeURIComponent rather than URLSearchParams, so that a space is %20 and "+" always means "+". */
function queryString(params: readonly [string, QueryValue][]): string {
  const parts = params
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`);
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error("The vendor bridge base URL is not a valid URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("The vendor bridge base URL must be http(s).");
  // Credentials belong in authHeader, where they are kept out of messages; query and fragment would
  // be lost when paths are appended.
  if (url.username || url.password || url.search || url.hash) {
    throw new Error("The vendor bridge base URL must not carry credentials, a query or a fragment.");
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * Checked here, because fetch's own error for a bad header value would quote the value. Outer
 * whitespace (a stray newline in a secret store) is trimmed, as fetch itself would.
 */
function checkAuthHeader(raw: string): string {
  const value = raw.trim();
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)) {
    throw new Error("The vendor bridge Authorization value is not a valid header value.");
  }
  return value;
}
