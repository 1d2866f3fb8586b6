import { normalizeClassification } from "../../model/incidents/classification";
import type { VendorIncident } from "../../model/incidents/incident";
import { changeOriginOf, serviceActor } from "../../platform/actor";
import type { IncidentStateRecord } from "../../model/incidents/incident-state-record";
import type { OutboxEventRecord } from "../../platform/events/outbox-record";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { createdEvent, statusEvents } from "./incident-events";
import { initialState, nextSla } from "./incident-state";
import { indicatorFields } from "./indicators";

/** Changes found in the vendors' consoles: `changedBy.origin` is `upstream`. */
const upstream = serviceActor("upstream", "Reconciler");

export interface UpstreamChange {
  kind: "created" | "closed" | "updated" | "deleted";
  /** The state to commit. */
  state: IncidentStateRecord;
  /** Its events, committed with it. */
  events: OutboxEventRecord[];
}

/**
 * How an incident as a vendor now lists it becomes the service's state and events: the one function
 * the reconciler applies to every incident of a window (it commits the result with the etag of
 * `stored`). Undefined: nothing to do.
 *
 * - No state, created after the workspace's baseline: stored with `incident.created.v1` (and its
 *   close events too when it was closed before anyone saw it: a close by any route is delivered).
 *   Created before the baseline: stored silently (it was there already).
 * - Known and closed at the vendor while the service holds it open: `Closed`, with
 *   `incident.status.changed.v1` and `incident.closed.v1` (origin `upstream`).
 * - Reopened at the vendor: followed without an event (the next close is a new closing).
 * - A tombstone: the stored state is marked deleted; an incident never stored is left alone.
 * - A listing snapshot older than what the service holds says nothing new, unless a created event
 *   is still due (the service wrote to the incident before the reconciler first saw it).
 *
 * Every state it returns carries the incident's title, severity and indicator keys as listed
 * (`indicatorFields`), in the same write: keeping them costs no write of its own.
 */
export function upstreamChange(
  workspace: WorkspaceRecord,
  stored: IncidentStateRecord | undefined,
  incident: VendorIncident,
  baselineAt: string,
  now: Date,
): UpstreamChange | undefined {
  if (incident.deletedAt) return stored && deletionOf(stored, incident, now);
  return stored ? changeOf(workspace, stored, incident, baselineAt, now) : arrivalOf(workspace, incident, baselineAt, now);
}

/** Whether a listed incident needs `upstreamChange` at all: it moved since the stored copy, or its created event is due. */
export function upstreamChangePossible(stored: IncidentStateRecord | undefined, incident: VendorIncident, baselineAt: string): boolean {
  return !stored || stored.vendorLastModificationTime !== incident.lastModificationTime || createdEventDue(stored, incident, baselineAt);
}

/** The state to record, without events, for an incident open when the reconciler first looked. */
export function baselineState(workspace: WorkspaceRecord, incident: VendorIncident, baselineAt: string, now: Date): IncidentStateRecord {
  return { ...initialState(incident, workspace.accountId, now), ...indicatorFields(incident), ingestedAt: baselineAt };
}

function deletionOf(before: IncidentStateRecord, incident: VendorIncident, now: Date): UpstreamChange | undefined {
  if (before.deletedAt !== null) return undefined;
  const after = { ...before, deletedAt: incident.deletedAt!, vendorLastModificationTime: incident.lastModificationTime, updatedAt: now.toISOString() };
  return { kind: "deleted", state: after, events: [] };
}

/** The incident was created after the baseline and its incident.created.v1 has not gone out yet: it may arrive now. */
export function createdEventDue(state: IncidentStateRecord | undefined, incident: VendorIncident, baselineAt: string): boolean {
  return (state === undefined || state.ingestedAt === null) && incident.createdAt >= baselineAt;
}

function arrivalOf(workspace: WorkspaceRecord, incident: VendorIncident, baselineAt: string, now: Date): UpstreamChange {
  const state: IncidentStateRecord = { ...initialState(incident, workspace.accountId, now), ...indicatorFields(incident), ingestedAt: now.toISOString() };
  if (!createdEventDue(undefined, incident, baselineAt)) return { kind: "updated", state, events: [] };
  const events = [createdEvent(incident, workspace.accountId, state.assignee, now)];
  if (incident.status === "Closed") {
    state.classification = normalizeClassification(incident.classification);
    state.closedBy = changeOriginOf(upstream);
    const opened: IncidentStateRecord = { ...state, status: "New", classification: null, closedBy: null, closeCount: 0 };
    events.push(...statusEvents({ ...incident, classification: state.classification }, opened, state, upstream, incident.closingComment, now));
  }
  return { kind: "created", state, events };
}

function changeOf(workspace: WorkspaceRecord, before: IncidentStateRecord, incident: VendorIncident, baselineAt: string, now: Date): UpstreamChange | undefined {
  const createdDue = createdEventDue(before, incident, baselineAt);
  const stale = before.vendorLastModificationTime !== null && incident.lastModificationTime <= before.vendorLastModificationTime;
  if (stale && !createdDue) return undefined;
  // An older snapshot's entities are kept only where the state has none yet.
  const shown = stale && before.indicators !== undefined ? {} : indicatorFields(incident);
  const after: IncidentStateRecord = { ...before, ...shown, updatedAt: now.toISOString(), ingestedAt: before.ingestedAt ?? now.toISOString() };
  const events: OutboxEventRecord[] = createdDue ? [createdEvent(incident, workspace.accountId, after.assignee, now)] : [];
  if (stale) return { kind: "created", state: after, events };
  after.vendorLastModificationTime = incident.lastModificationTime;
  if (incident.status === "Closed" && before.status !== "Closed") {
    after.status = "Closed";
    after.internalStatus = null;
    after.classification = normalizeClassification(incident.classification);
    after.closedBy = changeOriginOf(upstream);
    after.closeCount = before.closeCount + 1;
    after.sla = nextSla(before.sla, "Closed", now);
    const closed = { ...incident, classification: after.classification };
    events.push(...statusEvents(closed, before, after, upstream, incident.closingComment, now));
    return { kind: createdDue ? "created" : "closed", state: after, events };
  }
  if (incident.status !== "Closed" && before.status === "Closed") {
    after.status = incident.status;
    after.classification = null;
    after.closedBy = null;
    after.sla = nextSla(before.sla, incident.status, now);
  }
  return { kind: createdDue ? "created" : "updated", state: after, events };
}
