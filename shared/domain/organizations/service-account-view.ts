import type { Uses } from "../operation-context";
import type { CredentialRecord, ServiceAccountRecord } from "../../model/organizations/service-account";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { WorkspaceRole } from "../../model/organizations/roles";

/** A credential as a caller sees it: never its secret or hash, only the secret's prefix. */
export interface CredentialView extends Pick<CredentialRecord, "id" | "clientSecretPrefix" | "expirationDate" | "lastUsedAt" | "createdAt" | "scopes"> {
  status: "Active" | "Revoked" | "Expired";
}

/** A service account as a caller sees it, with the names of the workspaces it is assigned to. */
export interface ServiceAccountView
  extends Pick<
    ServiceAccountRecord,
    "id" | "accountId" | "name" | "description" | "isActive" | "isPlatformManaged" | "organizationalRole" | "lastUsedAt" | "createdAt" | "lastModifiedAt"
  > {
  /** Prefix of the newest active credential's secret. */
  clientSecretPrefix: string | null;
  /** Expiry of the newest active credential. */
  credentialExpirationDate: string | null;
  workspaceAssignments: { workspaceId: string; workspaceName: string; role: WorkspaceRole }[];
  credentials: CredentialView[];
}

export function credentialStatus(c: CredentialRecord, now: Date): "Active" | "Revoked" | "Expired" {
  if (c.status === "Revoked") return "Revoked";
  return Date.parse(c.expirationDate) <= now.getTime() ? "Expired" : "Active";
}

export function toCredentialView(c: CredentialRecord, now: Date): CredentialView {
  return {
    id: c.id,
    clientSecretPrefix: c.clientSecretPrefix,
    status: credentialStatus(c, now),
    expirationDate: c.expirationDate,
    lastUsedAt: c.lastUsedAt,
    createdAt: c.createdAt,
    // A copy: a stored record's arrays may be frozen (the memory store freezes what it holds), and
    // Node 22's JSON.stringify takes its slow path on a frozen array (a warm read ~2x slower).
    scopes: [...c.scopes],
  };
}

/** The API shape of a service account; never carries a secret or its hash. */
export function toServiceAccountView(
  sa: ServiceAccountRecord,
  workspaces: ReadonlyMap<string, WorkspaceRecord>,
  now: Date,
): ServiceAccountView {
  const credentials = sa.credentials.map((c) => toCredentialView(c, now));
  // A loop, not filter and sort over the stored (frozen) credentials: those cost a warm GET 8 µs of
  // server CPU over HTTP, though only 1 µs in process (docs/benchmarks.md, D-026).
  let newestActive: CredentialRecord | undefined;
  for (let i = 0; i < credentials.length; i++) {
    const c = sa.credentials[i]!;
    if (credentials[i]!.status === "Active" && (!newestActive || c.createdAt > newestActive.createdAt)) newestActive = c;
  }
  return {
    id: sa.id,
    accountId: sa.accountId,
    name: sa.name,
    description: sa.description,
    isActive: sa.isActive,
    isPlatformManaged: sa.isPlatformManaged,
    organizationalRole: sa.organizationalRole,
    clientSecretPrefix: newestActive?.clientSecretPrefix ?? null,
    credentialExpirationDate: newestActive?.expirationDate ?? null,
    workspaceAssignments: sa.workspaceAssignments.map((a) => ({
      workspaceId: a.workspaceId,
      workspaceName: workspaces.get(a.workspaceId)?.name ?? "",
      role: a.role,
    })),
    credentials,
    lastUsedAt: sa.lastUsedAt,
    createdAt: sa.createdAt,
    lastModifiedAt: sa.lastModifiedAt,
  };
}

/** The API shape of these service accounts, with the names of the workspaces they are assigned to (only those are read). */
export async function serviceAccountViews(ctx: Uses<"stores" | "now">, accounts: readonly ServiceAccountRecord[]): Promise<ServiceAccountView[]> {
  // A plain array, repeats and all: `getMany` reads each id once, so removing repeats here too was
  // the same work done twice on every read of a service account.
  const ids: string[] = [];
  for (const sa of accounts) for (const a of sa.workspaceAssignments) ids.push(a.workspaceId);
  const byId = new Map<string, WorkspaceRecord>();
  if (ids.length > 0) for (const w of await ctx.stores.workspaces.getMany(ids)) byId.set(w.id, w);
  const now = ctx.now();
  return accounts.map((sa) => toServiceAccountView(sa, byId, now));
}
