import type { RouteGroup } from "../../platform/http/route";
import { meRoute } from "./session/me-route";
import { organizationRoutes } from "./organizations/organization-routes";
import { workspaceRoutes } from "./workspaces/workspace-routes";
import { peopleRoutes } from "./people/people-routes";
import { signInRoutes } from "./session/sign-in-routes";
import { approvalRoutes } from "./approvals/approval-routes";
import { approvalPolicyRoutes } from "./approvals/approval-policy-routes";
import { preAuthorizationRoutes } from "./approvals/pre-authorization-routes";
import { portalPlaybookRoutes } from "./content/playbook-routes";
import { portalGamebookRuleRoutes } from "./content/gamebook-rule-routes";
import { portalAgentConfigurationRoutes } from "./agents/agent-configuration-routes";
import { portalSopRoutes } from "./sops/sop-routes";
import { portalWebhookRoutes } from "./webhooks/webhook-health-routes";
import { portalWebhookConfigurationRoutes } from "./webhooks/webhook-configuration-routes";
import { portalIncidentRoutes } from "./incidents/portal-incident-routes";
import { portalIncidentActionRoutes } from "./incidents/portal-incident-action-routes";
import { slaPolicyRoutes } from "./workspaces/sla-policy-routes";
import { cloudLookupRoutes } from "./workspaces/cloud-lookup-routes";
import { incidentRunRoutes } from "./incidents/incident-run-routes";
import { sharedIndicatorRoutes } from "./incidents/shared-indicator-routes";
import { portalServiceAccountRoutes } from "./service-accounts/portal-service-account-routes";
import { portalHistoryRoutes } from "./history/history-routes";

const portalSessionRoutes: RouteGroup = { name: "portal-session", routes: [...signInRoutes, meRoute] };

/** The portal's areas, each a module of its own. */
const portalAreas: RouteGroup[] = [
  portalSessionRoutes,
  organizationRoutes,
  workspaceRoutes,
  slaPolicyRoutes,
  cloudLookupRoutes,
  peopleRoutes,
  approvalRoutes,
  approvalPolicyRoutes,
  preAuthorizationRoutes,
  portalPlaybookRoutes,
  portalGamebookRuleRoutes,
  portalAgentConfigurationRoutes,
  portalSopRoutes,
  portalIncidentRoutes,
  portalIncidentActionRoutes,
  incidentRunRoutes,
  sharedIndicatorRoutes,
  portalServiceAccountRoutes,
  portalWebhookRoutes,
  portalWebhookConfigurationRoutes,
  portalHistoryRoutes,
];

/**
 * The portal's endpoints (`/portal/…`): people with a browser session, never service accounts. One
 * endpoint group, so one HTTP function in Azure (`v2/portal/{*rest}`): its areas share path prefixes
 * (`/portal/workspaces/{workspaceId}/…`) that per-area functions could not tell apart, and people's
 * traffic is small beside the integrations'. Listed in `route-groups.ts` beside the contract's.
 */
export const portalGroup: RouteGroup = { name: "portal", routes: portalAreas.flatMap((area) => area.routes) };
