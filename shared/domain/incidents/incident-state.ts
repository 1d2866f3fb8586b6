import type { PublicStatus, VendorIncident } from "../../systems/vendors/port";
import type { Source } from "../sources";
import type { InternalStatus, IncidentStateRecord, SlaClockRecord } from "./incident-state-record";

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
}

export function slaView(sla: SlaClockRecord, now: Date): SlaView {
  const end = sla.stoppedAt ?? sla.pausedAt;
  const until = end === null ? now.getTime() : Date.parse(end);
  const elapsedMs = Math.max(0, until - Date.parse(sla.startedAt) - sla.pausedMs);
  return {
    state: sla.stoppedAt !== null ? "Stopped" : sla.pausedAt !== null ? "Paused" : "Running",
    elapsedSeconds: Math.floor(elapsedMs / 1000),
    startedAt: sla.startedAt,
    pausedSince: sla.pausedAt,
    stoppedAt: sla.stoppedAt,
  };
}
