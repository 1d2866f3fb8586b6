import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { createPipeline, type ApiRequest, type Handle } from "../../platform/http/pipeline";
import { bodyTooLarge } from "../../platform/http/request-body";
import type { Route } from "../../platform/http/route";
import { GroupRouter, type Routing } from "../../platform/http/router";
import { META_GROUP, loadGroup } from "../../api/route-table";
import { getServices } from "../composition";
import httpFunctionList from "./http-functions.json";
import { platformClientAddress } from "./client-address";
import type { Services } from "../../domain/services";

/**
 * Adapts routes (or a routing that builds them on first use) to an Azure Functions HTTP handler.
 * Services are built on the first invocation, not at import, so that a configuration error is
 * reported per request, not as a host crash.
 */
export function httpHandler(routes: Route[] | Routing, services: () => Services = getServices): HttpHandler {
  let handle: Handle | undefined;
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const svc = services();
    handle ??= createPipeline(routes, svc);
    const { response, outcome } = await handle(toApiRequest(request));
    // The access log line, with its fields (requestId, status...) as fields, not text.
    svc.logger.info("request", { ...outcome, invocationId: context.invocationId });
    return { status: response.status, headers: withCookies(response.headers, response.cookies), body: response.body };
  };
}

/** Each cookie as its own Set-Cookie line: a Headers object keeps them apart, a plain record cannot. */
function withCookies(headers: Record<string, string>, cookies: string[] | undefined): HttpResponseInit["headers"] {
  if (!cookies) return headers;
  const all = new Headers(headers);
  for (const cookie of cookies) all.append("Set-Cookie", cookie);
  return all;
}

/**
 * The handler of the HTTP function named `name` (`http-functions.ts`): its endpoint group, built on
 * the function's first request. The API catch-all (`meta`) routes over every group, so that any path
 * no other function claims still gets the shared router's 404 or 405; each group is found by the
 * prefix its function's route names and built when a path first reaches it, so the health check
 * builds the meta group alone.
 */
export function groupHttpHandler(name: string): HttpHandler {
  const fn = httpFunctionList.find((f) => f.name === name);
  if (!fn) throw new Error(`No endpoint group is named ${name}.`);
  const served = name === META_GROUP ? httpFunctionList : [fn];
  return httpHandler(new GroupRouter(served.map((f) => ({ prefix: prefixOf(f.route), load: async () => (await loadGroup(f.name)).routes }))));
}

/**
 * The path prefix after /api/v2 that an HTTP function's route names before its catch-all: every path
 * of its group starts with it (`scripts/http-functions.ts`, `azureRouteOf`).
 *
 * @example prefixOf("api/v2/workspaces/{workspaceId}/tickets/{*rest}") // "/workspaces/{workspaceId}/tickets"
 */
export function prefixOf(route: string): string {
  const segments = route.split("/");
  if (segments[0] !== "api" || segments[1] !== "v2" || !segments.at(-1)?.startsWith("{*")) throw new Error(`${route} is not an API function's route.`);
  return segments.slice(2, -1).map((s) => "/" + s).join("");
}

function toApiRequest(request: HttpRequest): ApiRequest {
  const url = new URL(request.url);
  return {
    method: request.method.toUpperCase(),
    path: url.pathname,
    search: url.search,
    origin: url.origin,
    header: (name) => request.headers.get(name) ?? undefined,
    body: async (maxBytes) => {
      // A body announced too large is refused without reading it.
      if (Number(request.headers.get("content-length")) > maxBytes) throw bodyTooLarge(maxBytes);
      return Buffer.from(await request.arrayBuffer());
    },
    // Behind the Functions front end the socket is the front end's: take the address it writes.
    clientAddress: platformClientAddress((name) => request.headers.get(name) ?? undefined),
    // The Functions host gives no per-request abort signal to the Node worker.
    signal: new AbortController().signal,
  };
}
