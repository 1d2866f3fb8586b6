import type { Principal } from "../auth/principal";
import { notFound } from "../errors/api-error";
import type { Services } from "../services";
import type { SourceGateway, VendorIncident } from "../sources/gateway";
import type { Source } from "../sources/source";
import type { IncidentStateRecord, WorkspaceRecord } from "../store/records";
import { initialState, stateIdOf } from "./incident-state";

export interface IncidentContext {
  services: Services;
  principal: Principal;
  signal: AbortSignal;
}

/** The workspace of a workspace-scoped route. The pipeline has already checked the caller's role on it. */
export async function workspaceOf(ctx: Pick<IncidentContext, "services">, workspaceId: string): Promise<WorkspaceRecord> {
  const workspace = await ctx.services.stores.workspaces.get(workspaceId.toLowerCase());
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
  ctx: Pick<IncidentContext, "services"> & { signal?: AbortSignal },
  workspaceId: string,
  source: Source,
  incidentId: string,
): Promise<LoadedIncident> {
  const workspace = await workspaceOf(ctx, workspaceId);
  const gateway = ctx.services.sources.gateway(source);
  const [incident, stored] = await Promise.all([
    gateway.getIncident(workspace.id, incidentId, ctx.signal),
    ctx.services.stores.incidents.get(workspace.id, stateIdOf(source, incidentId)),
  ]);
  return {
    workspace,
    gateway,
    incident,
    state: stored?.value ?? initialState(incident, workspace.accountId, ctx.services.now()),
    stateEtag: stored?.etag ?? null,
  };
}
