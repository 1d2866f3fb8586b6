import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { isApiError, type ApiError } from "../../../shared/platform/errors/api-error";
import { sendJson, startFakeHttpServer, type FakeHttpServer } from "../fake-http-server";

/**
 * The plumbing the bridge servers share: a bridge in front of a simulated system, on 127.0.0.1 and a
 * free port, keeping to the conventions of docs/vendor-bridge.md section 1 (which the playbook and
 * ticketing bridges repeat): the Authorization value checked verbatim, each path segment decoded once,
 * JSON in and out, and the system's ApiErrors answered with the statuses of the bridge's section 4.
 */

/** One request as a bridge route sees it. */
export interface BridgeRequest {
  method: string;
  /** The path's segments, each percent-decoded once; the leading empty segment dropped. */
  segments: string[];
  query: URLSearchParams;
  /** The raw body, UTF-8. */
  body: string;
}

/** What a route answers on success: a 2xx status and a JSON body (none for 204). */
export interface BridgeAnswer {
  status: number;
  body?: unknown;
}

/** A route's verdict on a request it cannot take (malformed body, unknown parameter value). */
export class BadBridgeRequest extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 405 = 400,
  ) {
    super(message);
    this.name = "BadBridgeRequest";
  }
}

export interface BridgeServerOptions {
  /** The Authorization value every request must carry; none checked when absent. */
  authHeader?: string;
  /**
   * The status for an ApiError the section 4 table of the bridge's doc places differently from the
   * vendor bridge's (a ticketing workspace without an ITSM is 404, not a 400).
   */
  statusOverride?: (error: ApiError) => number | undefined;
}

/**
 * Starts a bridge that hands each request to `route`. A route resolves to its answer, or throws: an
 * ApiError of the simulated system becomes the documented status, a BadBridgeRequest its own status,
 * anything else 500.
 */
export async function startBridgeServer(route: (request: BridgeRequest) => Promise<BridgeAnswer>, options: BridgeServerOptions = {}): Promise<FakeHttpServer> {
  return startFakeHttpServer(async (req, res, body) => {
    try {
      if (options.authHeader !== undefined && req.headers.authorization !== options.authHeader) {
        return sendJson(res, 401, { error: "The Authorization value is not the bridge's." });
      }
      const answer = await route(parse(req, body));
      sendJson(res, answer.status, answer.body);
    } catch (error) {
      answerError(res, error, options);
    }
  });
}

function parse(req: IncomingMessage, body: string): BridgeRequest {
  const url = new URL(req.url ?? "/", "http://bridge");
  let segments: string[];
  try {
    segments = url.pathname.split("/").slice(1).map(decodeURIComponent);
  } catch {
    throw new BadBridgeRequest("A path segment is not valid percent-encoding.");
  }
  return { method: req.method ?? "", segments, query: url.searchParams, body };
}

/** Section 4 of docs/vendor-bridge.md, read backwards: the status that the client maps to each code. */
export function bridgeStatusOf(error: ApiError): number {
  switch (error.code) {
    case "NOT_FOUND":
      return 404;
    case "VALIDATION_ERROR":
      return 400;
    case "CONFLICT":
      return 409;
    case "RATE_LIMITED":
      return 429;
    case "TIMEOUT":
      return 504;
    case "UPSTREAM_ERROR":
      return 502;
    default:
      return 500;
  }
}

function answerError(res: ServerResponse, error: unknown, options: BridgeServerOptions): void {
  if (error instanceof BadBridgeRequest) return sendJson(res, error.status, { error: error.message });
  if (!isApiError(error)) return sendJson(res, 500, { error: String(error) });
  const status = options.statusOverride?.(error) ?? bridgeStatusOf(error);
  const retryAfter = error.headers["Retry-After"];
  // The body is for the bridge's own logs: the service never shows it (section 4).
  sendJson(res, status, { code: error.code, message: error.message }, retryAfter === undefined ? {} : { "retry-after": retryAfter });
}

/** Parses a JSON request body against `schema`; 400 when it is not JSON or not the documented shape. */
export function jsonBody<S extends z.ZodType>(body: string, schema: S): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new BadBridgeRequest("The body is not JSON.");
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new BadBridgeRequest(`The body is not the documented shape: ${result.error.issues[0]?.message ?? "invalid"}.`);
  return result.data;
}

/** `true` / `false` query values; absent is undefined; anything else 400. */
export function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (value === "true" || value === "false") return value === "true";
  throw new BadBridgeRequest(`${name} must be true or false.`);
}

/**
 * A numeric query value as the system behind receives it: Number(text), so that "0" or "x" reach it
 * and it refuses them itself, as it would refuse them from any caller. Absent is NaN.
 */
export function numberParam(query: URLSearchParams, name: string): number {
  const value = query.get(name);
  return value === null ? Number.NaN : Number(value);
}

/** An optional text query value: absent is undefined. */
export function textParam(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined;
}

export function methodNotAllowed(): never {
  throw new BadBridgeRequest("Method not allowed.", 405);
}

export function noRoute(): never {
  throw new BadBridgeRequest("No such route.", 404);
}
