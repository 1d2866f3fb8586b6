import { notFound } from "../../platform/errors/api-error";
import { checkIfMatch } from "../../platform/http/etag";
import type { Uses } from "../../platform/operation-context";
import type { SourceGateway, VendorIncident } from "../../systems/vendors/port";
import type { Source } from "../sources";
import type { IncidentStateRecord } from "./incident-state-record";
import type { WorkspaceRecord } from "../organizations/workspace";
import { initialState, stateIdOf } from "./incident-state";
import { incidentEtag } from "./incident-view";

/**
 * A workspace by id, for work that does not come through a workspace route (where the pipeline has
 * resolved it already): queue workers, local controls, delivery-log entries.
 */
export async function findWorkspace(services: Uses<"stores">, workspaceId: string): Promise<WorkspaceRecord> {
  const workspace = await services.stores.workspaces.get(workspaceId.toLowerCase());
  if (!workspace) throw notFound("The workspace", "workspaceId");
  return workspace;
}

export interface LoadedIncident {
  workspace: WorkspaceRecord;
  gateway: SourceGateway;
  incident: VendorIncident;
  /** The service's state, or its initial value when the service holds none yet. */
  state: IncidentStateRecord;
  /** Etag of the stored state; null when none is stored. */
  stateEtag: string | null;
}

/** Reads an incident live from its vendor together with the service's state of it. */
export async function loadIncident(
  ctx: Uses<"sources" | "stores" | "now">,
  workspace: WorkspaceRecord,
  source: Source,
  incidentId: string,
): Promise<LoadedIncident> {
  const gateway = ctx.sources.gateway(source);
  const [incident, stored] = await Promise.all([
    gateway.getIncident(workspace.id, incidentId, ctx.signal),
    ctx.stores.incidents.get(workspace.id, stateIdOf(source, incidentId)),
  ]);
  return {
    workspace,
    gateway,
    incident,
    state: stored?.value ?? initialState(incident, workspace.accountId, ctx.now()),
    stateEtag: stored?.etag ?? null,
  };
}

/** One incident as a write names it. */
export interface IncidentTarget {
  workspace: WorkspaceRecord;
  source: Source;
  incidentId: string;
  /** `If-Match` as sent: checked against the incident's ETag before anything is written. */
  ifMatch?: string;
}

/** The incident a write is about, read live, its version checked against the caller's `If-Match` (409 CONFLICT). */
export async function loadChecked(ctx: Uses<"sources" | "stores" | "now">, target: IncidentTarget): Promise<LoadedIncident> {
  const loaded = await loadIncident(ctx, target.workspace, target.source, target.incidentId);
  checkIfMatch(target.ifMatch, incidentEtag(loaded.incident, loaded.stateEtag));
  return loaded;
}
