import { ApiError, notFound } from "../../platform/errors/api-error";
import { ORGANIZATION_WIDE_ROLES, type Person } from "../../platform/auth/person";
import type { Uses } from "../../domain/operation-context";
import type { Versioned } from "../../platform/store/ports";
import type { AccountRecord } from "../../model/organizations/account";

/*
 * What the portal's organization, workspace and people routes share: the person's organization, as
 * the store has it now, and the problems a field of a body earns.
 */

/** 400 VALIDATION_ERROR pointing at one field of the body (`errors` keyed by its path). */
export function fieldProblem(field: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", message, { target: field, errors: { [field]: [message] } });
}

/**
 * An account of the person's organization (their own or one it manages), with its version; 404 for
 * any other, so that ids of other organizations are not revealed.
 */
export async function organizationAccount(ctx: Uses<"stores">, person: Person, accountId: string, target = "accountId"): Promise<Versioned<AccountRecord>> {
  const id = accountId.toLowerCase();
  const found = person.organizationAccountIds.includes(id) ? await ctx.stores.accounts.read(id) : undefined;
  if (!found) throw notFound("The organization", target);
  return found;
}

/** Whether the person may act on every workspace of their organization (`Admin`, `WorkspaceAdmin`). */
export function actsOnEveryWorkspace(person: Person): boolean {
  return ORGANIZATION_WIDE_ROLES.includes(person.organizationalRole);
}

/** Who did it, as a record keeps it: the person's id and name. */
export function byPerson(person: Person, at: string): { at: string; byUserId: string; byName: string } {
  return { at, byUserId: person.userId, byName: person.name };
}
