import type { Route, RouteGroup } from "../platform/http/route";
import { cloudRoutes } from "./cloud/cloud-routes";
import { gamebookRoutes } from "./gamebooks/gamebook-routes";
import { gamebooksAcrossWorkspacesRoutes } from "./gamebooks/gamebooks-across-workspaces-routes";
import { serviceAccountRoutes } from "./identity/service-account-routes";
import { userRoutes } from "./identity/user-routes";
import { incidentsAcrossWorkspacesRoutes } from "./incidents/across-workspaces-routes";
import { incidentRoutes } from "./incidents/incident-routes";
import { webhookRoutes } from "./webhooks/webhook-routes";
import { metaRoutes } from "./meta/meta-routes";
import { dataSourceRoutes } from "./datasources/datasource-routes";
import { dataSourcesAcrossWorkspacesRoutes } from "./datasources/across-workspaces-routes";
import { ticketRoutes } from "./tickets/ticket-routes";
import { investigationRoutes } from "./investigation/investigation-routes";
import { auditExportRoutes } from "./audit/audit-export-routes";
import { agentToolRoutes } from "./agent-tools/agent-tool-routes";
import { portalGroup } from "./portal/portal-groups";

/**
 * Every endpoint group of the API, built when this module is imported. A new group is one line here
 * and one in `route-table.ts`, which builds each group on its first use. The local host serves them
 * all; in Azure each is one HTTP function (`functions/http-api.ts`) serving through `route-table.ts`,
 * listed for the cold start in `shared/hosts/azure/http-functions.json`, which `npm run routes:azure`
 * writes from this list.
 */
export const apiGroups: RouteGroup[] = [serviceAccountRoutes, userRoutes, incidentRoutes, incidentsAcrossWorkspacesRoutes, webhookRoutes, cloudRoutes, ...workspaceDataGroups(), gamebookRoutes, gamebooksAcrossWorkspacesRoutes, portalGroup];

/** The workspace's data: data sources, tickets, investigation logs, the audit export, agent tools. */
function workspaceDataGroups(): RouteGroup[] {
  return [dataSourceRoutes, dataSourcesAcrossWorkspacesRoutes, ticketRoutes, investigationRoutes, auditExportRoutes, agentToolRoutes];
}

export const metaGroup: RouteGroup = metaRoutes(() => allRoutes());

/** Every group, the API catch-all (meta) last. */
export function allGroups(): RouteGroup[] {
  return [...apiGroups, metaGroup];
}

export function allRoutes(): Route[] {
  return allGroups().flatMap((g) => g.routes);
}
