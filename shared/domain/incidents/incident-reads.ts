import type { z } from "zod";
import type { Uses } from "../../platform/operation-context";
import type { EntityQuery } from "../../systems/vendors/port";
import type { Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { IntegrationContext } from "../organizations/integration-switches";
import { toGamebookRunView, type GamebookRunView } from "../gamebooks/gamebook-views";
import { catalogueOf } from "../gamebooks/gamebook-settings";
import { runnableGamebookCatalog } from "../gamebooks/recommended-playbooks";
import { ticketComments, type IncidentCommentView } from "../tickets/ticket-comments";
import { loadIncident } from "./incident-access";
import { initialState, stateIdOf } from "./incident-state";
import { incidentEtag, toIncidentSummary, toIncidentView, type incidentView, type IncidentSummaryView } from "./incident-view";

/*
 * What is read of one incident, whoever asks: a service account on the contract's routes, or a person
 * in the portal, who sees the same things in one answer.
 */

type ReadContext = Uses<"sources" | "stores" | "now">;

/**
 * The incident, live from its source with the service's state of it and its evidence (docs/contract.md §2.4),
 * and its version. The vendor's recommended playbooks are given as the workspace's catalogue runs them
 * (`recommended-playbooks.ts`).
 */
export async function readIncident(
  ctx: ReadContext,
  workspace: WorkspaceRecord,
  source: Source,
  incidentId: string,
): Promise<{ view: z.output<typeof incidentView>; etag: string }> {
  const loaded = await loadIncident(ctx, workspace, source, incidentId);
  const [evidence, catalogue] = await Promise.all([loaded.gateway.getEvidence(workspace.id, loaded.incident.id, ctx.signal), catalogueOf(ctx, workspace.id)]);
  const incident = { ...loaded.incident, gamebookCatalog: runnableGamebookCatalog(loaded.incident.gamebookCatalog, catalogue.playbooks, loaded.incident) };
  return { view: toIncidentView(incident, loaded.state, workspace, evidence, ctx.now()), etag: incidentEtag(loaded.incident, loaded.stateEtag) };
}

/**
 * The incident's comments, oldest first (docs/contract.md §2.5): the source's, without the integration that
 * owns each, and those of its linked tickets. `notesAvailable` is false when the tickets' notes could
 * not be read.
 */
export async function incidentComments(
  ctx: IntegrationContext & Uses<"sources" | "logger">,
  workspace: WorkspaceRecord,
  source: Source,
  incidentId: string,
): Promise<{ comments: IncidentCommentView[]; notesAvailable: boolean }> {
  const own = await ctx.sources.gateway(source).listComments(workspace.id, incidentId, ctx.signal);
  const fromTickets = await ticketComments(ctx, workspace, source, incidentId);
  const comments = [...own.map(({ extensionId: _owner, ...comment }) => comment), ...fromTickets.comments].sort((a, b) =>
    a.createdTime < b.createdTime ? -1 : a.createdTime > b.createdTime ? 1 : 0,
  );
  return { comments, notesAvailable: fromTickets.notesAvailable };
}

/**
 * The last gamebook run on the incident: the newest created, whatever its status (the caller has
 * checked that the incident exists).
 */
export async function lastGamebookRun(ctx: Uses<"stores">, workspace: WorkspaceRecord, source: Source, incidentId: string): Promise<GamebookRunView | undefined> {
  const run = await ctx.stores.gamebookRuns.latestForIncident(workspace.id, source, incidentId);
  return run && toGamebookRunView(run);
}

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
