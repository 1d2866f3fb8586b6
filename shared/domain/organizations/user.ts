import type { OrganizationalRole } from "./roles";

export interface UserRecord {
  id: string;
  accountId: string;
  displayName: string;
  email: string;
  tenantId: string;
  organizationalRole: OrganizationalRole;
  isActive: boolean;
  createdAt: string;
  lastModifiedAt: string;
}
