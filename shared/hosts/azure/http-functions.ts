import type { HttpHandler } from "@azure/functions";
import httpFunctionList from "./http-functions.json";

/** Every method, so that the shared router (not the host) decides 405. */
export const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

/**
 * The app's HTTP functions: one per endpoint group of `shared/api/route-groups.ts`, on the route
 * template its paths share, the API catch-all (`meta`) last. Read from a file that
 * `npm run routes:azure` writes from the route table, because deriving the list here would load
 * every route group, its schemas and its adapters at import, and the Functions worker imports every
 * function module at each cold start. The registration test fails when the file is stale.
 */
export const httpFunctions: readonly { name: string; route: string }[] = httpFunctionList;

/**
 * The handler of one HTTP function, with its endpoint group, the pipeline and the services loaded on
 * its first invocation rather than when the function module is imported.
 */
export function lazyHttpHandler(name: string): HttpHandler {
  let handler: Promise<HttpHandler> | undefined;
  return async (request, context) => {
    handler ??= import("./http-function.js").then((m) => m.groupHttpHandler(name));
    return (await handler)(request, context);
  };
}
