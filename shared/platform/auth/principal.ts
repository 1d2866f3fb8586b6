import type { Scope } from "./scopes";
import type { OrganizationalRole, WorkspaceRole } from "../../model/organizations/roles";

/** The authenticated caller: a service account acting through one credential. */
export interface Principal {
  serviceAccountId: string;
  name: string;
  accountId: string;
  organizationalRole: OrganizationalRole;
  credentialId: string;
  /** The key of this credential's token bucket (each credential is limited on its own). */
  rateLimitKey: string;
  scopes: ReadonlySet<Scope>;
  workspaceRoles: ReadonlyMap<string, WorkspaceRole>;
  /** The caller's organization: its own account and the customer accounts it manages. */
  organizationAccountIds: readonly string[];
}
