import type { Route, RouteGroup } from "./http/route";
import { cloudRoutes } from "./cloud/cloud-routes";
import { serviceAccountRoutes } from "./identity/service-account-routes";
import { userRoutes } from "./identity/user-routes";
import { incidentsAcrossWorkspacesRoutes } from "./incidents/across-workspaces-routes";
import { incidentRoutes } from "./incidents/incident-routes";
import { webhookRoutes } from "./webhooks/webhook-routes";
import { metaRoutes } from "./meta/meta-routes";

/** Every endpoint group of the API. A new group is one line here; `functions/http-api.ts` registers each. */
export const apiGroups: RouteGroup[] = [serviceAccountRoutes, userRoutes, incidentRoutes, incidentsAcrossWorkspacesRoutes, webhookRoutes, cloudRoutes];

export const metaGroup: RouteGroup = metaRoutes(() => allRoutes());

export function allRoutes(): Route[] {
  return [...apiGroups, metaGroup].flatMap((g) => g.routes);
}
