import type { Principal } from "../../platform/auth/principal";
import { ORGANIZATION_WIDE_ROLES, type Person } from "../../platform/auth/person";
import type { Uses } from "../operation-context";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { integrationStates, type IntegrationContext } from "./integration-switches";

/**
 * The workspaces a cross-workspace call covers: those the credential holds a role on and that still
 * exist, among `requested` when it is given (others are left out silently, docs/contract.md §4.2). In one
 * order everywhere: by name, then id.
 */
export async function mappedWorkspaces(ctx: Uses<"stores"> & { principal: Principal }, requested?: readonly string[]): Promise<WorkspaceRecord[]> {
  const mapped = [...ctx.principal.workspaceRoles.keys()];
  const wanted = requested && new Set(requested.map((id) => id.toLowerCase()));
  const workspaces = await ctx.stores.workspaces.getMany(wanted ? mapped.filter((id) => wanted.has(id)) : mapped);
  return workspaces.sort(byName);
}

/**
 * The workspaces a person sees across workspaces: with an organization-wide role (`Admin`,
 * `WorkspaceAdmin`) every workspace of their organization, otherwise those they hold a role on that
 * are still in it; among `requested` when it is given (others are left out silently, as for
 * `mappedWorkspaces`). In the order `mappedWorkspaces` gives.
 */
export async function personWorkspaces(ctx: Uses<"stores">, person: Person, requested?: readonly string[]): Promise<WorkspaceRecord[]> {
  const workspaces = ORGANIZATION_WIDE_ROLES.includes(person.organizationalRole)
    ? await ctx.stores.workspaces.listByAccounts(person.organizationAccountIds)
    : (await ctx.stores.workspaces.getMany([...person.workspaceRoles.keys()])).filter((w) => person.organizationAccountIds.includes(w.accountId));
  const wanted = requested && new Set(requested.map((id) => id.toLowerCase()));
  return (wanted ? workspaces.filter((w) => wanted.has(w.id)) : workspaces).sort(byName);
}

/** Whether the person sees this workspace: it is of their organization, and they hold a role on it or an organization-wide role. */
export function personSeesWorkspace(person: Person, workspace: Pick<WorkspaceRecord, "id" | "accountId">): boolean {
  if (!person.organizationAccountIds.includes(workspace.accountId)) return false;
  return ORGANIZATION_WIDE_ROLES.includes(person.organizationalRole) || person.workspaceRoles.has(workspace.id);
}

function byName(a: WorkspaceRecord, b: WorkspaceRecord): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1;
}

/** The mapped workspaces (as `mappedWorkspaces`) whose Log Analytics integration is on. */
export async function mappedLogAnalyticsWorkspaces(ctx: IntegrationContext & { principal: Principal }, requested?: readonly string[]): Promise<WorkspaceRecord[]> {
  const workspaces = await mappedWorkspaces(ctx, requested);
  const enabled = await Promise.all(workspaces.map(async (w) => (await integrationStates(ctx, w)).logAnalytics));
  return workspaces.filter((_, i) => enabled[i]);
}
