import type { HttpHandler } from "@azure/functions";

/** Every method, so that the shared router (not the host) decides 405. */
export const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

/**
 * The app's HTTP functions: one per endpoint group of `route-groups.ts`, on the route template its
 * paths share (`azureRouteOf`), and the API catch-all (`meta`). Written out rather than derived,
 * because deriving them means loading every route group, its schemas and its adapters at import,
 * and the Functions worker imports every function module at each cold start. The registration test
 * holds this list to the route table: a new group fails it until its line is added here.
 */
export const httpFunctions: readonly { name: string; route: string }[] = [
  { name: "service-accounts", route: "v2/service-accounts/{*rest}" },
  { name: "users", route: "v2/users/{*rest}" },
  { name: "incidents", route: "v2/workspaces/{workspaceId}/incidents/{source}/{*rest}" },
  { name: "incidents-across-workspaces", route: "v2/incidents/across-workspaces/{*rest}" },
  { name: "webhooks", route: "v2/webhooks/{*rest}" },
  { name: "azure-resources", route: "v2/azure-resources/subscriptions/{*rest}" },
  { name: "datasources", route: "v2/workspaces/{workspaceId}/datasources/{*rest}" },
  { name: "datasources-across-workspaces", route: "v2/datasources/across-workspaces/{*rest}" },
  { name: "tickets", route: "v2/workspaces/{workspaceId}/tickets/{*rest}" },
  { name: "investigation", route: "v2/workspaces/{workspaceId}/investigation/users/{*rest}" },
  { name: "audit-export", route: "v2/workspaces/{workspaceId}/export/audit/{*rest}" },
  { name: "agent-tools", route: "v2/workspaces/{workspaceId}/agent/tools/kql/tables/{*rest}" },
  { name: "gamebooks", route: "v2/workspaces/{workspaceId}/gamebooks/{*rest}" },
  { name: "gamebooks-across-workspaces", route: "v2/gamebooks/across-workspaces/history/{*rest}" },
  { name: "meta", route: "v2/{*rest}" },
];

/**
 * The handler of one HTTP function, with the route table, the pipeline and the services loaded on
 * its first invocation rather than when the function module is imported.
 */
export function lazyHttpHandler(name: string): HttpHandler {
  let handler: Promise<HttpHandler> | undefined;
  return async (request, context) => {
    handler ??= import("./http-function.js").then((m) => m.groupHttpHandler(name));
    return (await handler)(request, context);
  };
}
