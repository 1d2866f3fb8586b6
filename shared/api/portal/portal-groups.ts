import type { RouteGroup } from "../../platform/http/route";
import { meRoute } from "./session/me-route";
import { organizationRoutes } from "./organizations/organization-routes";
import { workspaceRoutes } from "./workspaces/workspace-routes";
import { peopleRoutes } from "./people/people-routes";
import { signInRoutes } from "./session/sign-in-routes";
import { approvalRoutes } from "./approvals/approval-routes";
import { portalPlaybookRoutes } from "./content/playbook-routes";
import { portalGamebookRuleRoutes } from "./content/gamebook-rule-routes";
import { portalAgentConfigurationRoutes } from "./agents/agent-configuration-routes";
import { portalSopRoutes } from "./sops/sop-routes";

/**
 * The portal's endpoint groups (`/portal/…`): people with a browser session, never service accounts.
 * Listed in `route-groups.ts` beside the contract's.
 */
export const portalSessionRoutes: RouteGroup = { name: "portal-session", routes: [...signInRoutes, meRoute] };

export const portalGroups: RouteGroup[] = [portalSessionRoutes, organizationRoutes, workspaceRoutes, peopleRoutes, approvalRoutes, portalPlaybookRoutes, portalGamebookRuleRoutes, portalAgentConfigurationRoutes, portalSopRoutes];
