/**
 * The documents the service keeps. Stores hold these; endpoint groups map them to API views.
 * Timestamps are ISO 8601 strings so that the same document goes to memory and to Cosmos.
 */
export const organizationalRoles = [
  "Admin",
  "UserAdmin",
  "WorkspaceAdmin",
  "AgentAdmin",
  "Member",
  "OrgContentOperator",
  "OrgContentAdmin",
] as const;
export type OrganizationalRole = (typeof organizationalRoles)[number];

export const workspaceRoles = ["Owner", "Analyst"] as const;
export type WorkspaceRole = (typeof workspaceRoles)[number];

/** A customer account or a service provider that manages customer accounts. */
export interface AccountRecord {
  id: string;
  name: string;
  kind: "ServiceProvider" | "Customer";
  /** The service provider managing this account, if any. */
  managedByAccountId: string | null;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  tenantId: string;
  accountId: string;
}

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

/** Contract 2.12 audit event, plus the account it belongs to (its partition). */
export interface AuditEventRecord {
  id: string;
  accountId: string;
  timeGenerated: string;
  workspaceId: string | null;
  discriminator: string;
  activityType: string;
  activityAction: string;
  actorId: string;
  actorName: string;
  actorEmail: string;
  targetResourceType: string;
  targetResourceId: string;
  targetResourceName: string;
  metadata: string;
}
