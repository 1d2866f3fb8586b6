import type { Route, RouteGroup } from "../platform/http/route";

/** The API catch-all's group: the reference routes and health, and whatever path no other group claims. */
export const META_GROUP = "meta";

/**
 * Every endpoint group of `route-groups.ts`, each built when it is first asked for rather than all at
 * once: a request pays for its own group's schemas and handlers' modules, not the whole table's. The
 * Azure HTTP functions serve through this; the OpenAPI tooling, the local host and the tests use
 * `route-groups.ts`, which builds every group on import. A group is listed in both, under its name,
 * in the same order; `test/unit/route-table.test.ts` holds the two to the same routes.
 */
const loaders: Record<string, () => Promise<RouteGroup>> = {
  "service-accounts": async () => (await import("./identity/service-account-routes.js")).serviceAccountRoutes,
  users: async () => (await import("./identity/user-routes.js")).userRoutes,
  incidents: async () => (await import("./incidents/incident-routes.js")).incidentRoutes,
  "incidents-across-workspaces": async () => (await import("./incidents/across-workspaces-routes.js")).incidentsAcrossWorkspacesRoutes,
  webhooks: async () => (await import("./webhooks/webhook-routes.js")).webhookRoutes,
  "azure-resources": async () => (await import("./cloud/cloud-routes.js")).cloudRoutes,
  datasources: async () => (await import("./datasources/datasource-routes.js")).dataSourceRoutes,
  "datasources-across-workspaces": async () => (await import("./datasources/across-workspaces-routes.js")).dataSourcesAcrossWorkspacesRoutes,
  tickets: async () => (await import("./tickets/ticket-routes.js")).ticketRoutes,
  investigation: async () => (await import("./investigation/investigation-routes.js")).investigationRoutes,
  "audit-export": async () => (await import("./audit/audit-export-routes.js")).auditExportRoutes,
  "agent-tools": async () => (await import("./agent-tools/agent-tool-routes.js")).agentToolRoutes,
  gamebooks: async () => (await import("./gamebooks/gamebook-routes.js")).gamebookRoutes,
  "gamebooks-across-workspaces": async () => (await import("./gamebooks/gamebooks-across-workspaces-routes.js")).gamebooksAcrossWorkspacesRoutes,
  portal: async () => (await import("./portal/portal-groups.js")).portalGroup,
  // The OpenAPI document describes every group: they are all built when it is first served.
  [META_GROUP]: async () => (await import("./meta/meta-routes.js")).metaRoutes(everyRoute),
};

/** The groups' names, in the route table's order (the API catch-all last). */
export const groupNames: readonly string[] = Object.keys(loaders);

const loaded = new Map<string, Promise<RouteGroup>>();

/** The group named `name`, built on the first call and the same group on every later one. */
export function loadGroup(name: string): Promise<RouteGroup> {
  const load = loaders[name];
  if (!load) return Promise.reject(new Error(`No endpoint group is named ${name}.`));
  let group = loaded.get(name);
  if (!group) {
    group = load();
    loaded.set(name, group);
    // A failed build (a module that could not load) is tried again by the next call.
    group.catch(() => loaded.delete(name));
  }
  return group;
}

async function everyRoute(): Promise<Route[]> {
  return (await Promise.all(groupNames.map(loadGroup))).flatMap((g) => g.routes);
}
