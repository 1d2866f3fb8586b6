import type { Uses } from "../operation-context";
import type { EntityQuery } from "../../systems/vendors/port";
import type { Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { initialState, stateIdOf } from "./incident-state";
import { toIncidentSummary, type IncidentSummaryView } from "./incident-view";

/*
 * What is read of incidents, whoever asks: a service account on the contract's routes, or a person in
 * the portal. An incident read with its gamebooks is in gamebooks/incident-with-gamebooks.ts, its
 * comments with its tickets' notes in tickets/incident-comments.ts: those areas build on this one.
 */

type ReadContext = Uses<"sources" | "stores" | "now">;

/** Incidents of the workspace at this source that match an entity query (the contract's by-entity search), with the service's state of each. */
export async function incidentsByEntity(
  ctx: ReadContext,
  workspace: WorkspaceRecord,
  source: Source,
  query: Omit<EntityQuery, "workspaceId">,
): Promise<IncidentSummaryView[]> {
  const found = await ctx.sources.gateway(source).relatedByEntity({ ...query, workspaceId: workspace.id }, ctx.signal);
  const states = await ctx.stores.incidents.getMany(workspace.id, found.map((i) => stateIdOf(i.source, i.id)));
  const byId = new Map(states.map((s) => [s.value.id, s.value]));
  const now = ctx.now();
  return found.map((i) => toIncidentSummary(i, byId.get(stateIdOf(i.source, i.id)) ?? initialState(i, workspace.accountId, now), workspace, now));
}
