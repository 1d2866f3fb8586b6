import type { OrganizationalRole, WorkspaceRole } from "./roles";

export interface UserRecord {
  id: string;
  accountId: string;
  displayName: string;
  email: string;
  tenantId: string;
  organizationalRole: OrganizationalRole;
  isActive: boolean;
  /** The person's roles on workspaces (`Owner` decides approvals there); absent: none. */
  workspaceAssignments?: { workspaceId: string; role: WorkspaceRole }[];
  /** Sessions that began before this instant are over (sign-out, deactivation); absent: none ended. */
  sessionsValidFrom?: string;
  createdAt: string;
  lastModifiedAt: string;
}
