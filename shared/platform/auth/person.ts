import type { OrganizationalRole, WorkspaceRole } from "../../model/organizations/roles";

/** A person signed in to the portal: a registered, active user of the service, with MFA satisfied. */
export interface Person {
  userId: string;
  tenantId: string;
  name: string;
  email: string;
  /** The account the person is registered in. */
  accountId: string;
  organizationalRole: OrganizationalRole;
  workspaceRoles: ReadonlyMap<string, WorkspaceRole>;
  /** The person's organization: their own account and the customer accounts it manages. */
  organizationAccountIds: readonly string[];
  /** The session the request came with: its id (what its CSRF token is bound to) and its end. */
  sessionId: string;
  sessionExpiresAt: number;
  /** The key of this person's token bucket. */
  rateLimitKey: string;
}

/** Organizational roles that act on every workspace of their organization, without a workspace role there. */
export const ORGANIZATION_WIDE_ROLES: readonly OrganizationalRole[] = ["Admin", "WorkspaceAdmin"];
