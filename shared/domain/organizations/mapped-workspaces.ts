import type { Principal } from "../../platform/auth/principal";
import type { Uses } from "../../platform/operation-context";
import type { WorkspaceRecord } from "./workspace";
import { integrationStates, type IntegrationContext } from "./integration-switches";

/**
 * The workspaces a cross-workspace call covers: those the credential holds a role on and that still
 * exist, among `requested` when it is given (others are left out silently, contract 4.2). In one
 * order everywhere: by name, then id.
 */
export async function mappedWorkspaces(ctx: Uses<"stores"> & { principal: Principal }, requested?: readonly string[]): Promise<WorkspaceRecord[]> {
  const mapped = [...ctx.principal.workspaceRoles.keys()];
  const wanted = requested && new Set(requested.map((id) => id.toLowerCase()));
  const workspaces = await ctx.stores.workspaces.getMany(wanted ? mapped.filter((id) => wanted.has(id)) : mapped);
  return workspaces.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
}

/** The mapped workspaces (as `mappedWorkspaces`) whose Log Analytics integration is on. */
export async function mappedLogAnalyticsWorkspaces(ctx: IntegrationContext & { principal: Principal }, requested?: readonly string[]): Promise<WorkspaceRecord[]> {
  const workspaces = await mappedWorkspaces(ctx, requested);
  const enabled = await Promise.all(workspaces.map(async (w) => (await integrationStates(ctx, w)).logAnalytics));
  return workspaces.filter((_, i) => enabled[i]);
}
