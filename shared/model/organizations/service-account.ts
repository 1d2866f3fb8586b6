import type { OrganizationalRole, WorkspaceRole } from "./roles";

export interface CredentialRecord {
  id: string;
  /** HMAC-SHA256 of the secret under the server's key, hex. The secret itself is never stored. */
  secretHash: string;
  clientSecretPrefix: string;
  status: "Active" | "Revoked";
  expirationDate: string;
  lastUsedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
  scopes: string[];
}

export interface ServiceAccountRecord {
  id: string;
  accountId: string;
  name: string;
  description: string;
  isActive: boolean;
  isPlatformManaged: boolean;
  organizationalRole: OrganizationalRole;
  workspaceAssignments: { workspaceId: string; role: WorkspaceRole }[];
  credentials: CredentialRecord[];
  lastUsedAt: string | null;
  createdAt: string;
  lastModifiedAt: string;
}
