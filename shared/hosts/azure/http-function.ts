import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { createPipeline, type ApiRequest, type Handle } from "../../platform/http/pipeline";
import { bodyTooLarge } from "../../platform/http/request-body";
import type { RouteGroup } from "../../platform/http/route";
import { allRoutes, apiGroups, metaGroup } from "../../api/route-groups";
import { getServices } from "../composition";
import { platformClientAddress } from "./client-address";
import type { Services } from "../../platform/services";

/**
 * Adapts one route group to an Azure Functions HTTP handler. Services are built on the first
 * invocation, not at import, so that a configuration error is reported per request, not as a host crash.
 */
export function httpHandler(group: RouteGroup, services: () => Services = getServices): HttpHandler {
  let handle: Handle | undefined;
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const svc = services();
    handle ??= createPipeline(group.routes, svc);
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
 * The handler of the HTTP function named `name` (`http-functions.ts`): its endpoint group, or for the
 * API catch-all (`meta`) the whole route table, so that any path no other function claims still gets
 * the shared router's 404 or 405.
 */
export function groupHttpHandler(name: string): HttpHandler {
  if (name === metaGroup.name) return httpHandler({ ...metaGroup, routes: allRoutes() });
  const group = apiGroups.find((g) => g.name === name);
  if (!group) throw new Error(`No endpoint group is named ${name}.`);
  return httpHandler(group);
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
