import type { Uses } from "../operation-context";
import { randomUUID } from "node:crypto";
import { generateSecret, displayPrefix, hashSecret } from "../../platform/auth/secrets";
import { scopes } from "../../platform/auth/scopes";

import type { ServiceAccountRecord } from "../../model/organizations/service-account";
import { DEFAULT_CREDENTIAL_DAYS } from "./grants";

export interface AdminAccountRequest {
  accountId: string;
  name: string;
  /** Workspaces the admin gets the Owner role on. */
  workspaceIds: readonly string[];
  /** A fixed client id (so that scripts can use a known one); a new GUID otherwise. */
  clientId?: string;
  /** A fixed secret; a new random one otherwise. */
  clientSecret?: string;
}

export interface AdminAccountResult {
  clientId: string;
  clientSecret: string;
  /** False when the account existed and only its credential was replaced. */
  created: boolean;
}

/**
 * Creates (or resets the credential of) a platform-managed Admin service account with every scope.
 * This is how a deployment gets its first credential (`npm run bootstrap`) and how the local host
 * seeds its demo admin; the API itself can only grant what the caller holds.
 */
export async function ensureAdminAccount(services: Uses<"auth" | "config" | "now" | "stores">, request: AdminAccountRequest): Promise<AdminAccountResult> {
  const store = services.stores.serviceAccounts;
  const now = services.now();
  const stamp = now.toISOString();
  const clientId = (request.clientId ?? randomUUID()).toLowerCase();
  const secret = request.clientSecret ?? generateSecret().secret;
  const credential = {
    id: randomUUID(),
    secretHash: hashSecret(services.config.secretHashKey, secret),
    clientSecretPrefix: displayPrefix(secret),
    status: "Active" as const,
    expirationDate: new Date(now.getTime() + DEFAULT_CREDENTIAL_DAYS * 86_400_000).toISOString(),
    lastUsedAt: null,
    createdAt: stamp,
    revokedAt: null,
    scopes: [...scopes],
  };
  const record: ServiceAccountRecord = {
    id: clientId,
    accountId: request.accountId,
    name: request.name,
    description: "Platform-managed administrator with every scope.",
    isActive: true,
    isPlatformManaged: true,
    organizationalRole: "Admin",
    workspaceAssignments: request.workspaceIds.map((workspaceId) => ({ workspaceId, role: "Owner" as const })),
    credentials: [credential],
    lastUsedAt: null,
    createdAt: stamp,
    lastModifiedAt: stamp,
  };
  const existing = await store.get(clientId);
  if (existing) {
    await store.replace({ ...record, createdAt: existing.value.createdAt }, existing.etag);
    services.auth.evict(clientId);
  } else {
    await store.create(record);
  }
  return { clientId, clientSecret: secret, created: !existing };
}
