import { ApiError } from "../../../platform/errors/api-error";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import type { AccountRecord } from "../../../model/organizations/account";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { sideOf } from "../../../model/gamebooks/approval-sides";
import type { RunDecider } from "../../../domain/gamebooks/run-approval-rules";

/*
 * Who decides a workspace's approvals, and for which side: the `Owner` of the workspace, or an `Admin`
 * of an organization it belongs to (the workspace's own, or the provider managing it), each for their
 * organization's side. The route lets an `Admin` through without the workspace role; this says which
 * side they stand on.
 */

/** Whether the person decides approvals on this workspace at all (whatever the run asks for). */
export function decidesOn(person: Person, workspaceId: string): boolean {
  return person.workspaceRoles.get(workspaceId) === "Owner" || person.organizationalRole === "Admin";
}

/** The person as a decider of runs in a workspace of `account` (its side named). */
export function deciderOf(person: Person, account: Pick<AccountRecord, "id" | "kind" | "managedByAccountId"> | undefined): RunDecider {
  const side = account ? sideOf(person.accountId, account) : null;
  return { userId: person.userId, name: person.name, ...(side ? { side } : {}) };
}

/** The person as a decider of runs in this workspace: its account read for the side. */
export async function approverOf(ctx: Uses<"stores">, person: Person, workspace: WorkspaceRecord): Promise<RunDecider> {
  if (!decidesOn(person, workspace.id)) {
    throw new ApiError("INSUFFICIENT_WORKSPACE_ROLE", "Deciding approvals needs the Owner role on this workspace, or the organizational role Admin.", { target: "workspaceId" });
  }
  return deciderOf(person, await ctx.stores.accounts.get(workspace.accountId));
}

/** The accounts of these workspaces, each read once, by id: for the sides of a queue's entries. */
export async function accountsOf(ctx: Uses<"stores">, workspaces: readonly WorkspaceRecord[]): Promise<Map<string, AccountRecord | undefined>> {
  const ids = [...new Set(workspaces.map((w) => w.accountId))];
  const found = await Promise.all(ids.map((id) => ctx.stores.accounts.get(id)));
  return new Map(ids.map((id, i) => [id, found[i]]));
}
