import type { RequestContext } from "../../platform/http/route";
import type { WorkspaceRecord } from "./workspace";
import { integrationStates } from "./integration-switches";

/**
 * The workspaces a cross-workspace call covers: those mapped to the credential (a role on them),
 * among `requested` when given (others are left out silently, contract 4.2), with log analytics on.
 * By name, then id.
 */
export async function mappedLogAnalyticsWorkspaces(ctx: RequestContext, requested: readonly string[] | undefined): Promise<WorkspaceRecord[]> {
  const mapped = [...ctx.principal.workspaceRoles.keys()];
  const wanted = requested && requested.length > 0 ? new Set(requested.map((id) => id.toLowerCase())) : undefined;
  const ids = wanted ? mapped.filter((id) => wanted.has(id)) : mapped;
  const workspaces = await ctx.services.stores.workspaces.getMany(ids);
  const enabled = await Promise.all(workspaces.map(async (w) => (await integrationStates(ctx, w)).logAnalytics));
  return workspaces.filter((_, i) => enabled[i]).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
}

/** Runs `work` over the items, at most `limit` at a time, results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  });
  await Promise.all(runners);
  return results;
}
