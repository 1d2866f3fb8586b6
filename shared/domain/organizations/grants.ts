import { ApiError } from "../../platform/errors/api-error";
import type { Scope } from "../../platform/auth/scopes";
import type { WorkspaceStore } from "../../platform/store/ports";
import type { OrganizationalRole } from "../../model/organizations/roles";
import type { WorkspaceRecord } from "../../model/organizations/workspace";

/**
 * Who hands out service accounts and credentials: a service account (the contract's `Principal`), or
 * a person in the portal, who holds no scopes (their role lets them manage service accounts).
 */
export interface Grantor {
  /** The account a new service account belongs to: the grantor's own. */
  accountId: string;
  organizationalRole: OrganizationalRole;
  /** The grantor's organization: what it may see and assign. */
  organizationAccountIds: readonly string[];
  /** The scopes a service account may grant, its credential's own; absent for a person. */
  scopes?: ReadonlySet<Scope>;
  /** The service account acting, which may not deactivate or delete itself; absent for a person. */
  serviceAccountId?: string;
}

/**
 * A caller can hand out only what it holds: a service account, scopes it has itself; and the Admin
 * role only an Admin. Without this, any `org:service-accounts:manage` credential could mint a
 * stronger one. A person who may manage service accounts grants any scope.
 */
export function assertGrantable(grantor: Grantor, scopes: readonly Scope[], role?: OrganizationalRole): void {
  const held = grantor.scopes;
  const missing = held ? scopes.filter((s) => !held.has(s)) : [];
  if (missing.length > 0) {
    throw new ApiError("FORBIDDEN", `A credential cannot grant scopes it does not hold: ${missing.join(", ")}.`, {
      target: "scopes",
    });
  }
  if (role === "Admin" && grantor.organizationalRole !== "Admin") {
    throw new ApiError("FORBIDDEN", "Only an Admin can grant the Admin role.", { target: "organizationalRole" });
  }
}

/**
 * Workspace assignments may name only workspaces of the caller's organization. Unknown and foreign
 * workspaces get the same message, so the answer does not reveal other organizations' workspaces.
 */
export async function resolveAssignments(
  workspaces: WorkspaceStore,
  grantor: Pick<Grantor, "organizationAccountIds">,
  assignments: readonly { workspaceId: string }[],
): Promise<Map<string, WorkspaceRecord>> {
  const visible = new Map(
    (await workspaces.listByAccounts(grantor.organizationAccountIds)).map((w) => [w.id, w] as const),
  );
  const errors: Record<string, string[]> = {};
  assignments.forEach((a, i) => {
    if (!visible.has(a.workspaceId.toLowerCase())) {
      errors[`workspaceAssignments[${i}].workspaceId`] = ["No workspace with this id in your organization."];
    }
  });
  if (Object.keys(errors).length > 0) {
    throw new ApiError("VALIDATION_ERROR", "Workspace assignments must name workspaces of your organization.", {
      errors,
      target: "workspaceAssignments",
    });
  }
  return visible;
}

/** Credential lifetime: one year unless asked, never past two years, never in the past. */
export const DEFAULT_CREDENTIAL_DAYS = 365;
export const MAX_CREDENTIAL_DAYS = 730;
const DAY_MS = 86_400_000;

export function credentialExpiry(requested: string | undefined, now: Date): string {
  if (requested === undefined) return new Date(now.getTime() + DEFAULT_CREDENTIAL_DAYS * DAY_MS).toISOString();
  const at = Date.parse(requested);
  const problem =
    at <= now.getTime()
      ? "The expiration date must be in the future."
      : at > now.getTime() + MAX_CREDENTIAL_DAYS * DAY_MS
        ? `The expiration date may be at most ${MAX_CREDENTIAL_DAYS} days from now.`
        : undefined;
  if (problem) {
    throw new ApiError("VALIDATION_ERROR", problem, { target: "expirationDate", errors: { expirationDate: [problem] } });
  }
  return new Date(at).toISOString();
}
