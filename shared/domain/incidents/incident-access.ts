import { ApiError, notFound } from "../../platform/errors/api-error";
import { checkIfMatch } from "../../platform/concurrency/etag";
import type { Uses } from "../operation-context";
import type { SourceGateway } from "../../systems/vendors/port";
import type { VendorIncident } from "../../model/incidents/incident";
import type { Source } from "../../model/sources";
import type { IncidentStateRecord } from "../../model/incidents/incident-state-record";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
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
  /**
   * Refuse (409) an incident that is closed already: a close made without having seen it closed
   * must not overwrite another's (its classification, its closing comment) without a word.
   */
  refuseIfClosed?: boolean;
}

/**
 * The incident a write is about, read live, with the checks made before anything is written: its
 * version against the caller's `If-Match` (409 CONFLICT), and `refuseIfClosed`. Either refusal of an
 * incident closed now says when and by whom, where the service knows: what a person looking at an
 * old list needs to hear.
 */
export async function loadChecked(ctx: Uses<"sources" | "stores" | "now">, target: IncidentTarget): Promise<LoadedIncident> {
  const loaded = await loadIncident(ctx, target.workspace, target.source, target.incidentId);
  const closed = loaded.incident.status === "Closed";
  try {
    checkIfMatch(target.ifMatch, incidentEtag(loaded.incident, loaded.stateEtag));
  } catch (error) {
    if (!closed) throw error;
    throw new ApiError("CONFLICT", `The incident has changed since you read it (If-Match does not match its ETag): it is closed now, ${howClosed(loaded)}.`, {
      target: "If-Match",
    });
  }
  if (target.refuseIfClosed && closed) {
    throw new ApiError("CONFLICT", `The incident is closed already, ${howClosed(loaded)}; it is not closed again over that close.`, { target: "status" });
  }
  return loaded;
}

/** When and by whom a closed incident was closed, as far as the service knows. */
function howClosed(loaded: LoadedIncident): string {
  const { state, incident } = loaded;
  // No close recorded here (no state stored, or one still open): it was made at the source itself,
  // outside the service, and not yet reconciled.
  if (loaded.stateEtag === null || state.status !== "Closed") return `at the source itself (its last change ${incident.lastModificationTime})`;
  const at = state.sla.stoppedAt ?? incident.lastModificationTime;
  const by = state.closedBy;
  if (!by) return `since ${at}`;
  const who = {
    portal: `by ${by.name} in the portal`,
    api: `by the service account ${by.name}`,
    agent: `by the agent ${by.name}`,
    gamebook: `by the gamebook ${by.name}`,
    upstream: "in the source's own console",
  }[by.origin];
  return `since ${at}, ${who}`;
}
