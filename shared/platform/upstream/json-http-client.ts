import type { z } from "zod";
import { ApiError, isApiError } from "../errors/api-error";
import { jsonPath } from "../errors/json-path";
import { isTimeout } from "./transport-errors";
import { upstreamStatusError } from "./upstream-status";

/**
 * The client every HTTP bridge adapter uses (vendor sources, ticketing, playbook automation): JSON
 * over HTTP(S) to a base URL with an optional Authorization value, a deadline per request covering
 * headers and body, a bounded response, a zod check of what came back, and every failure turned
 * into an ApiError by docs/contract.md §7's rules. No detail carries the credential or the upstream's body.
 *
 * @example
 * const client = createJsonHttpClient({ system: "Ticketing", baseUrl, authHeader, timeoutMs: 10_000 });
 * const ticket = await client.read({ method: "GET", path: `/tickets/${client.segment(id)}`, what: `reading ticket ${id}` }, ticketSchema);
 */
export interface JsonHttpClientOptions {
  /** Names the upstream in error details: "SourceA", "Ticketing". */
  system: string;
  /** e.g. "https://bridge.example.com/source-a" (a trailing slash is ignored). */
  baseUrl: string;
  /** Full value of the Authorization header; never logged, never in errors. */
  authHeader?: string;
  /** Per request, covering the headers and the body. */
  timeoutMs: number;
  /** Bounds memory per request: a misbehaving upstream must not be able to exhaust the process. */
  maxResponseBytes?: number;
  /** Injectable for tests; defaults to globalThis.fetch. */
  fetch?: typeof fetch;
  now?: () => Date;
}

export interface JsonCall {
  method: "GET" | "PUT" | "POST" | "PATCH" | "DELETE";
  /** Path and query below the base URL, segments already encoded (`segment`, `queryString`). */
  path: string;
  body?: unknown;
  /** The operation, for error details: "reading incident 42 in workspace w1". */
  what: string;
}

export interface JsonHttpClient {
  /** Sends a request whose answer has no body the caller needs (a 2xx is all). */
  send(call: JsonCall, signal?: AbortSignal): Promise<void>;
  /** Sends a request and returns its JSON body, checked by `schema`. */
  read<S extends z.ZodType>(call: JsonCall, schema: S, signal?: AbortSignal): Promise<z.output<S>>;
  /** An UPSTREAM_ERROR about `call` for an answer that parsed but says something impossible. */
  invalid(call: JsonCall, why: string): ApiError;
  /** Encodes one path segment; "", "." and ".." cannot name a resource and are NOT_FOUND at once. */
  segment(value: string): string;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export type QueryValue = string | number | boolean | undefined;

export function createJsonHttpClient(options: JsonHttpClientOptions): JsonHttpClient {
  const { system, timeoutMs } = options;
  const base = checkBaseUrl(system, options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const now = options.now ?? (() => new Date());
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.authHeader !== undefined) headers.authorization = checkAuthHeader(system, options.authHeader);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error("timeoutMs must be a positive integer.");

  const fail = (code: "UPSTREAM_ERROR" | "TIMEOUT", what: string, problem: string, cause?: unknown) =>
    new ApiError(code, `${system} ${problem} while ${what}.`, { cause });

  /** Sends one request; resolves to the parsed JSON body (undefined when `withBody` is false). */
  async function exchange(call: JsonCall, withBody: boolean, signal?: AbortSignal): Promise<unknown> {
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
        throw upstreamStatusError(system, { status: response.status, retryAfter: response.headers.get("retry-after") }, call.what, now());
      }
      if (!withBody) {
        discard(response);
        return undefined;
      }
      phase = "body";
      bytes = await readCapped(response, maxBytes);
    } catch (error) {
      if (isApiError(error)) throw error;
      // The caller's abort wins over our deadline: the caller has gone, nobody waits for a TIMEOUT.
      if (signal?.aborted) {
        throw new ApiError("UPSTREAM_ERROR", `Request aborted: the caller went away while ${call.what} at ${system}.`, { cause: error });
      }
      if (deadline.aborted || isTimeout(error)) throw fail("TIMEOUT", call.what, `did not answer within ${timeoutMs} ms`, error);
      const problem = phase === "connect" ? "could not be reached" : "dropped the connection mid-response";
      throw fail("UPSTREAM_ERROR", call.what, problem, error);
    }
    if (bytes === "too-large") throw fail("UPSTREAM_ERROR", call.what, `sent a response larger than ${maxBytes} bytes`);
    try {
      return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
    } catch (error) {
      throw fail("UPSTREAM_ERROR", call.what, "sent a response that is not JSON", error);
    }
  }

  return {
    async send(call, signal) {
      await exchange(call, false, signal);
    },
    async read(call, schema, signal) {
      const result = schema.safeParse(await exchange(call, true, signal));
      if (result.success) return result.data;
      const at = result.error.issues[0] ? jsonPath(result.error.issues[0].path) : "";
      throw fail("UPSTREAM_ERROR", call.what, `sent an invalid response (at ${at || "the top level"})`, result.error);
    },
    invalid: (call, why) => fail("UPSTREAM_ERROR", call.what, `sent an invalid response (${why})`),
    segment(value) {
      // URL parsing resolves "." and ".." even percent-encoded, and "" would address another resource.
      if (value === "" || value === "." || value === "..") throw new ApiError("NOT_FOUND", `${system} has no resource with the id "${value}".`);
      return encodeURIComponent(value);
    },
  };
}

/** encodeURIComponent rather than URLSearchParams, so that a space is %20 and "+" always means "+". */
export function queryString(params: readonly (readonly [string, QueryValue])[]): string {
  const parts = params
    .filter((entry): entry is readonly [string, string | number | boolean] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`);
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/** Reads at most `maxBytes`, counting decoded bytes so that compression cannot get round it. */
async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array | "too-large"> {
  if (Number(response.headers.get("content-length")) > maxBytes) {
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
    if (size > maxBytes) {
      reader.cancel().catch(() => undefined);
      return "too-large";
    }
    chunks.push(value);
  }
}

function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

function checkBaseUrl(system: string, baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`The ${system} base URL is not a valid URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`The ${system} base URL must be http(s).`);
  // Credentials belong in authHeader, where they are kept out of messages; query and fragment would
  // be lost when paths are appended.
  if (url.username || url.password || url.search || url.hash) {
    throw new Error(`The ${system} base URL must not carry credentials, a query or a fragment.`);
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * Checked here, because fetch's own error for a bad header value would quote the value. Outer
 * whitespace (a stray newline in a secret store) is trimmed, as fetch itself would.
 */
function checkAuthHeader(system: string, raw: string): string {
  const value = raw.trim();
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)) {
    throw new Error(`The ${system} Authorization value is not a valid header value.`);
  }
  return value;
}
