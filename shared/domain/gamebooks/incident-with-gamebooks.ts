import type { z } from "zod";
import type { Uses } from "../operation-context";
import type { Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { loadIncident } from "../incidents/incident-access";
import { incidentEtag, toIncidentView, type incidentView } from "../incidents/incident-view";
import { toGamebookRunView, type GamebookRunView } from "./gamebook-views";
import { catalogueOf } from "./gamebook-settings";
import { runnableGamebookCatalog } from "./recommended-playbooks";

/*
 * One incident as it is read with its gamebooks, whoever asks (a service account on the contract's
 * routes, a person in the portal): the playbooks its workspace's catalogue runs for it, and its last
 * run. Gamebooks build on incidents (a run changes one, comments on it), never the other way.
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
 * The last gamebook run on the incident: the newest created, whatever its status (the caller has
 * checked that the incident exists).
 */
export async function lastGamebookRun(ctx: Uses<"stores">, workspace: WorkspaceRecord, source: Source, incidentId: string): Promise<GamebookRunView | undefined> {
  const run = await ctx.stores.gamebookRuns.latestForIncident(workspace.id, source, incidentId);
  return run && toGamebookRunView(run);
}
