import type { Uses } from "../operation-context";
import { ApiError } from "../../platform/errors/api-error";
import type { UserRecord } from "../../model/organizations/user";

export interface AdminPersonRequest {
  accountId: string;
  /** The person's object id in their directory (the ID token's `oid`). */
  objectId: string;
  /** Their directory (the ID token's `tid`). */
  tenantId: string;
  email: string;
  displayName: string;
  /** Workspaces the person gets the Owner role on (roles on others are kept). */
  workspaceIds: readonly string[];
}

export interface AdminPersonResult {
  userId: string;
  /** `unchanged`: the person was already an active Admin as asked, and nothing was written. */
  outcome: "created" | "updated" | "unchanged";
}

/**
 * Registers a person as an active Admin of the account, with the Owner role on the given workspaces:
 * how a deployment gets the first person who can sign in to the portal and add everyone else
 * (`npm run bootstrap`). Running it again with the same request writes nothing. A person already
 * registered keeps their other workspace roles; their name, address and directory become the
 * request's.
 */
export async function ensureAdminPerson(services: Uses<"now" | "stores">, request: AdminPersonRequest): Promise<AdminPersonResult> {
  const users = services.stores.users;
  const userId = request.objectId.toLowerCase();
  // The sign-in gate matches people by tenant and object id, both compared in lower case.
  const tenantId = request.tenantId.toLowerCase();
  const sameEmail = await users.findByEmail(request.accountId, request.email);
  if (sameEmail && sameEmail.id !== userId) {
    throw new ApiError("CONFLICT", `Another user of account ${request.accountId} (${sameEmail.id}) has the e-mail address ${request.email}.`, { target: "email" });
  }

  const existing = await users.find([request.accountId], userId);
  const stamp = services.now().toISOString();
  const assignments = new Map((existing?.value.workspaceAssignments ?? []).map((a) => [a.workspaceId, a.role]));
  for (const workspaceId of request.workspaceIds) assignments.set(workspaceId, "Owner");
  const record: UserRecord = {
    ...existing?.value,
    id: userId,
    accountId: request.accountId,
    displayName: request.displayName,
    email: request.email,
    tenantId,
    organizationalRole: "Admin",
    isActive: true,
    workspaceAssignments: [...assignments].map(([workspaceId, role]) => ({ workspaceId, role })),
    createdAt: existing?.value.createdAt ?? stamp,
    lastModifiedAt: stamp,
  };
  if (!existing) {
    await users.create(record);
    return { userId, outcome: "created" };
  }
  if (sameRegistration(existing.value, record)) return { userId, outcome: "unchanged" };
  await users.replace(record, existing.etag);
  return { userId, outcome: "updated" };
}

/** Everything the request sets, compared; the timestamps are not. */
function sameRegistration(a: UserRecord, b: UserRecord): boolean {
  const roles = (u: UserRecord) =>
    (u.workspaceAssignments ?? [])
      .map((w) => `${w.workspaceId}:${w.role}`)
      .sort()
      .join(",");
  return (
    a.displayName === b.displayName &&
    a.email === b.email &&
    a.tenantId === b.tenantId &&
    a.organizationalRole === b.organizationalRole &&
    a.isActive === b.isActive &&
    roles(a) === roles(b)
  );
}
