import type { PublicStatus, VendorIncident } from "../../model/incidents/incident";
import type { Source } from "../../model/sources";
import type { InternalStatus, IncidentStateRecord, SlaClockRecord } from "../../model/incidents/incident-state-record";

/** The state document id of an incident: unique in its workspace's partition and safe as a Cosmos id. */
export function stateIdOf(source: Source, incidentId: string): string {
  return `state-${source}-${Buffer.from(incidentId, "utf8").toString("base64url")}`;
}

/**
 * The state the service has for an incident it has not written yet: what the vendor says, with the
 * SLA clock running from creation (stopped if already closed).
 */
export function initialState(incident: VendorIncident, accountId: string, now: Date): IncidentStateRecord {
  const stamp = now.toISOString();
  return {
    id: stateIdOf(incident.source, incident.id),
    docType: "incidentState",
    workspaceId: incident.workspaceId,
    accountId,
    source: incident.source,
    incidentId: incident.id,
    status: incident.status,
    internalStatus: null,
    classification: incident.classification,
    assignee: incident.owner
      ? { userId: incident.owner.userId, email: incident.owner.email, name: incident.owner.name ?? null, isAgent: false }
      : null,
    sla: {
      startedAt: incident.createdAt,
      pausedAt: null,
      pausedMs: 0,
      stoppedAt: incident.status === "Closed" ? incident.lastModificationTime : null,
    },
    closedBy: null,
    closeCount: incident.status === "Closed" ? 1 : 0,
    vendorLastModificationTime: incident.lastModificationTime,
    ingestedAt: null,
    deletedAt: null,
    createdAt: stamp,
    updatedAt: stamp,
  };
}

/**
 * The SLA clock after a status change. Internal statuses pause it, `Closed` stops it, and a public
 * open status resumes it; time spent paused or closed does not count.
 */
export function nextSla(sla: SlaClockRecord, to: PublicStatus | InternalStatus, now: Date): SlaClockRecord {
  const at = now.toISOString();
  const resumed = (): SlaClockRecord => {
    const since = sla.pausedAt ?? sla.stoppedAt;
    if (since === null) return sla;
    return { ...sla, pausedAt: null, stoppedAt: null, pausedMs: sla.pausedMs + Math.max(0, now.getTime() - Date.parse(since)) };
  };
  if (to === "Closed") {
    const running = resumed();
    return { ...running, stoppedAt: at };
  }
  if (to === "OnHold" || to === "WaitingOnCustomer") {
    if (sla.pausedAt !== null) return sla;
    return { ...resumed(), pausedAt: at };
  }
  return resumed();
}

export type SlaClockState = "Running" | "Paused" | "Stopped";

export interface SlaView {
  state: SlaClockState;
  /** Time counted against the SLA: since creation, minus time paused or closed. */
  elapsedSeconds: number;
  startedAt: string;
  pausedSince: string | null;
  stoppedAt: string | null;
  /** The workspace's time-to-resolve target for the incident's severity; null: none. */
  targetSeconds: number | null;
  /** The target less the time counted: negative once breached; null without a target. */
  remainingSeconds: number | null;
  /**
   * While the clock runs, when it reaches the target (past once breached); null while it is paused
   * or stopped (it has no due time then) and without a target.
   */
  dueAt: string | null;
  /** Whether the time counted has passed the target (for a stopped clock: the incident was resolved late); false without one. */
  breached: boolean;
}

/** The clock as it stands at `now`, against the target for the incident's severity (seconds; null: none). */
export function slaView(sla: SlaClockRecord, now: Date, targetSeconds: number | null = null): SlaView {
  const end = sla.stoppedAt ?? sla.pausedAt;
  const until = end === null ? now.getTime() : Date.parse(end);
  const elapsedMs = Math.max(0, until - Date.parse(sla.startedAt) - sla.pausedMs);
  const state: SlaClockState = sla.stoppedAt !== null ? "Stopped" : sla.pausedAt !== null ? "Paused" : "Running";
  const remainingMs = targetSeconds === null ? null : targetSeconds * 1000 - elapsedMs;
  return {
    state,
    elapsedSeconds: Math.floor(elapsedMs / 1000),
    startedAt: sla.startedAt,
    pausedSince: sla.pausedAt,
    stoppedAt: sla.stoppedAt,
    targetSeconds,
    // Whole seconds towards zero, so that one second past the target reads -1, not -0 or -2.
    remainingSeconds: remainingMs === null ? null : Math.trunc(remainingMs / 1000) || 0,
    dueAt: remainingMs === null || state !== "Running" ? null : new Date(now.getTime() + remainingMs).toISOString(),
    breached: remainingMs !== null && remainingMs < 0,
  };
}
