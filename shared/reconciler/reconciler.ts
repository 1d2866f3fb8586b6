import { randomUUID } from "node:crypto";
import { isApiError } from "../errors/api-error";
import { createdEvent, statusEvents } from "../incidents/incident-events";
import { initialState, nextSla, stateIdOf } from "../incidents/incident-state";
import type { Services } from "../services";
import { normalizeClassification } from "../sources/classification";
import type { VendorIncident } from "../sources/gateway";
import { lastModifiedSources, type Source } from "../sources/source";
import { serviceActor } from "../operation-context";
import type { Versioned } from "../store/ports";
import { retryOnConflict } from "../store/read-modify-write";
import type { IncidentStateRecord, OutboxEventRecord, ReconcilerStateRecord, WorkspaceRecord } from "../store/records";

/** Each window starts this long before the previous one ended (contract 4.2: one to two minutes). */
export const RECONCILE_OVERLAP_MS = 90_000;
/** A pass holds a workspace this long; a pass that dies lets another take over after it. */
const LEASE_MS = 5 * 60_000;
/** Vendor page size while reconciling. */
const PAGE_SIZE = 500;

export interface PassSummary {
  passId: string;
  workspaces: number;
  /** Workspaces another pass held. */
  skipped: number;
  /** Workspaces whose pass stopped on an error; they are covered again next time. */
  failed: number;
  incidentsSeen: number;
  created: number;
  closed: number;
  updated: number;
  /** Incidents the vendor deleted whose stored state is now marked so. */
  deleted: number;
  /** Open incidents recorded at a workspace's first pass (no events). */
  baselined: number;
  vendorCalls: number;
  eventsPublished: number;
  durationMs: number;
}

/** Changes found in the vendors' consoles: `changedBy.origin` is `upstream`. */
const upstream = serviceActor("upstream", "Reconciler");

/**
 * One reconciler pass: for every workspace and every source that can list by last-modified time, it
 * reads the window since the last pass (minus an overlap) and brings the service's state up to date:
 * new incidents are stored with `incident.created.v1`, closes made in the vendor console become
 * `Closed` with both close events (origin `upstream`), other changes are recorded silently.
 *
 * Safe to overlap: a lease per workspace (etag) keeps passes apart, state commits are etag-checked,
 * and event ids of created and closed events come from their subject, so a repeat publishes nothing new.
 */
export async function reconcile(services: Services): Promise<PassSummary> {
  const started = performance.now();
  const summary: PassSummary = { passId: randomUUID(), workspaces: 0, skipped: 0, failed: 0, incidentsSeen: 0, created: 0, closed: 0, updated: 0, deleted: 0, baselined: 0, vendorCalls: 0, eventsPublished: 0, durationMs: 0 };
  // With no source to read (a deployment with no bridge configured) no workspace is leased or
  // baselined, so enabling a source later starts its workspaces from a real first pass.
  const workspaces = reconciledSources(services).length === 0 ? [] : await services.stores.workspaces.listAll();
  for (const workspace of workspaces) {
    try {
      const lease = await takeLease(services, workspace, summary.passId);
      if (!lease) {
        summary.skipped++;
        continue;
      }
      summary.workspaces++;
      await reconcileWorkspace(services, workspace, lease, summary);
    } catch (error) {
      // One workspace failing (its vendor or store down, its lease lost) must not stop the others;
      // its watermark did not move past what was done, so the next pass covers the rest again.
      summary.failed++;
      services.logger.warn("reconciler skipped a workspace after an error", { workspaceId: workspace.id, error: String(error) });
    }
  }
  summary.eventsPublished += await services.events.outbox.sweep();
  summary.durationMs = Math.round(performance.now() - started);
  services.logger.info("reconciler pass", { ...summary });
  return summary;
}

/** The sources a pass reads: those that list by last-modified time and are enabled in this deployment. */
function reconciledSources(services: Services): readonly Source[] {
  return lastModifiedSources.filter((source) => services.sources.isEnabled(source));
}

async function reconcileWorkspace(
  services: Services,
  workspace: WorkspaceRecord,
  lease: Versioned<ReconcilerStateRecord>,
  summary: PassSummary,
): Promise<void> {
  let state = lease;
  try {
    if (!state.value.baselineRecorded) {
      await recordBaseline(services, workspace, state.value.baselineAt, summary);
      state = await services.stores.reconciler.replace({ ...state.value, baselineRecorded: true }, state.etag);
    }
    for (const source of reconciledSources(services)) {
      const windowEnd = services.now().toISOString();
      const watermark = state.value.watermarks[source] ?? state.value.baselineAt;
      const from = new Date(Date.parse(watermark) - RECONCILE_OVERLAP_MS).toISOString();
      const complete = await reconcileWindow(services, workspace, source, from, windowEnd, state.value.baselineAt, summary);
      // An incident given up on (contended) keeps the watermark where it was: the next pass retries it.
      if (complete) state = await services.stores.reconciler.replace({ ...state.value, watermarks: { ...state.value.watermarks, [source]: windowEnd } }, state.etag);
    }
  } finally {
    // Release the lease even after an error, so the next pass need not wait for it to run out.
    await services.stores.reconciler.replace({ ...state.value, leaseOwner: null, leaseUntil: null }, state.etag).catch(() => undefined);
  }
}

/**
 * Records, without events, every incident open at the baseline: they are not new, but a close of one
 * of them in the vendor console must later be recognised as a close of an incident the service holds
 * open. Runs once per workspace (again after a crash midway: an existing state is left alone).
 */
async function recordBaseline(services: Services, workspace: WorkspaceRecord, baselineAt: string, summary: PassSummary): Promise<void> {
  for (const source of reconciledSources(services)) {
    const gateway = services.sources.gateway(source);
    let cursor: string | undefined;
    do {
      summary.vendorCalls++;
      const page = await gateway.listIncidents({
        workspaceId: workspace.id,
        field: "createdAt",
        from: new Date(0).toISOString(),
        to: baselineAt,
        limit: PAGE_SIZE,
        cursor,
        filters: { statuses: ["New", "Active"] },
      });
      cursor = page.cursor;
      const stored = await services.stores.incidents.getMany(workspace.id, page.items.map((i) => stateIdOf(i.source, i.id)));
      const known = new Set(stored.map((s) => s.id));
      for (const incident of page.items) {
        if (known.has(stateIdOf(incident.source, incident.id))) continue;
        try {
          await services.stores.incidents.commit({ ...initialState(incident, workspace.accountId, services.now()), ingestedAt: baselineAt }, null, []);
          summary.baselined++;
        } catch (error) {
          // Written meanwhile by an API change or another pass: that state is newer; keep it.
          if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
        }
      }
    } while (cursor);
  }
}

async function reconcileWindow(
  services: Services,
  workspace: WorkspaceRecord,
  source: Source,
  from: string,
  to: string,
  baselineAt: string,
  summary: PassSummary,
): Promise<boolean> {
  const gateway = services.sources.gateway(source);
  let complete = true;
  let cursor: string | undefined;
  do {
    summary.vendorCalls++;
    const page = await gateway.listIncidents({
      workspaceId: workspace.id,
      field: "lastModificationTime",
      from,
      to,
      limit: PAGE_SIZE,
      cursor,
      includeDeleted: true,
    });
    cursor = page.cursor;
    summary.incidentsSeen += page.items.length;
    const stored = await services.stores.incidents.getMany(workspace.id, page.items.map((i) => stateIdOf(i.source, i.id)));
    const byId = new Map(stored.map((s) => [s.id, s]));
    for (const incident of page.items) {
      const known = byId.get(stateIdOf(incident.source, incident.id));
      // Unchanged since the stored copy (the overlap brings some back), nothing due: nothing to do.
      if (known && known.vendorLastModificationTime === incident.lastModificationTime && !createdEventDue(known, incident, baselineAt)) continue;
      complete = (await reconcileIncident(services, workspace, incident, baselineAt, summary)) && complete;
    }
  } while (cursor);
  return complete;
}

/** Applies one vendor incident to the service's state; retried on a fresh read when a writer raced it. */
async function reconcileIncident(services: Services, workspace: WorkspaceRecord, incident: VendorIncident, baselineAt: string, summary: PassSummary): Promise<boolean> {
  const store = services.stores.incidents;
  const id = stateIdOf(incident.source, incident.id);
  try {
    await retryOnConflict(async () => {
      const current = await store.get(workspace.id, id);
      const now = services.now();
      const change = incident.deletedAt
        ? current && deletionOf(current.value, incident, now)
        : current
          ? changeOf(workspace, current.value, incident, baselineAt, now)
          : arrivalOf(workspace, incident, baselineAt, now);
      if (!change) return;
      await store.commit(change.state, current?.etag ?? null, change.events);
      summary.eventsPublished += await services.events.outbox.publish(change.events);
      summary[change.kind]++;
    });
    return true;
  } catch (error) {
    if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
    services.logger.warn("reconciler gave up on a contended incident; the next pass retries it", { workspaceId: workspace.id, incidentId: incident.id });
    return false;
  }
}

type Change = { kind: "created" | "closed" | "updated" | "deleted"; state: IncidentStateRecord; events: OutboxEventRecord[] };

/** Deleted at the vendor: the stored state is marked; an incident the service never stored is left alone. */
function deletionOf(before: IncidentStateRecord, incident: VendorIncident, now: Date): Change | undefined {
  if (before.deletedAt !== null) return undefined;
  const after = { ...before, deletedAt: incident.deletedAt!, vendorLastModificationTime: incident.lastModificationTime, updatedAt: now.toISOString() };
  return { kind: "deleted", state: after, events: [] };
}

/** The incident was created after the baseline and its incident.created.v1 has not gone out yet. */
function createdEventDue(state: IncidentStateRecord | undefined, incident: VendorIncident, baselineAt: string): boolean {
  return (state === undefined || state.ingestedAt === null) && incident.createdAt >= baselineAt;
}

/**
 * An incident the service has no state for: new (its created event, and its close events too when it
 * was closed before this pass saw it — a close by any route is delivered) or there before the baseline.
 */
function arrivalOf(workspace: WorkspaceRecord, incident: VendorIncident, baselineAt: string, now: Date): Change {
  const state: IncidentStateRecord = { ...initialState(incident, workspace.accountId, now), ingestedAt: now.toISOString() };
  if (!createdEventDue(undefined, incident, baselineAt)) return { kind: "updated", state, events: [] };
  const events = [createdEvent(incident, workspace.accountId, state.assignee, now)];
  if (incident.status === "Closed") {
    state.classification = normalizeClassification(incident.classification);
    const opened: IncidentStateRecord = { ...state, status: "New", classification: null, closeCount: 0 };
    events.push(...statusEvents({ ...incident, classification: state.classification }, opened, state, upstream, incident.closingComment, now));
  }
  return { kind: "created", state, events };
}

/**
 * A known incident that changed at the vendor: a console close emits both close events; a created
 * event still due (the service wrote to the incident before the reconciler first saw it) goes out now.
 */
function changeOf(workspace: WorkspaceRecord, before: IncidentStateRecord, incident: VendorIncident, baselineAt: string, now: Date): Change | undefined {
  const createdDue = createdEventDue(before, incident, baselineAt);
  // A listing snapshot older than what the service already holds (an API write landed since) says nothing new.
  const stale = before.vendorLastModificationTime !== null && incident.lastModificationTime <= before.vendorLastModificationTime;
  if (stale && !createdDue) return undefined;
  const after: IncidentStateRecord = { ...before, updatedAt: now.toISOString(), ingestedAt: before.ingestedAt ?? now.toISOString() };
  const events: OutboxEventRecord[] = createdDue ? [createdEvent(incident, workspace.accountId, after.assignee, now)] : [];
  if (stale) return { kind: "created", state: after, events };
  after.vendorLastModificationTime = incident.lastModificationTime;
  if (incident.status === "Closed" && before.status !== "Closed") {
    after.status = "Closed";
    after.internalStatus = null;
    after.classification = normalizeClassification(incident.classification);
    after.closeCount = before.closeCount + 1;
    after.sla = nextSla(before.sla, "Closed", now);
    const closed = { ...incident, classification: after.classification };
    events.push(...statusEvents(closed, before, after, upstream, incident.closingComment, now));
    return { kind: createdDue ? "created" : "closed", state: after, events };
  }
  if (incident.status !== "Closed" && before.status === "Closed") {
    // Reopened in the console: follow it (the next close is a new closing), without an event.
    after.status = incident.status;
    after.classification = null;
    after.sla = nextSla(before.sla, incident.status, now);
  }
  return { kind: createdDue ? "created" : "updated", state: after, events };
}

/** The workspace's lease for this pass, or undefined when another live pass holds it. */
async function takeLease(services: Services, workspace: WorkspaceRecord, passId: string): Promise<Versioned<ReconcilerStateRecord> | undefined> {
  const store = services.stores.reconciler;
  const now = services.now();
  const leaseUntil = new Date(now.getTime() + LEASE_MS).toISOString();
  try {
    const current = await store.get(workspace.id);
    if (!current) {
      return await store.create({
        id: workspace.id,
        workspaceId: workspace.id,
        leaseOwner: passId,
        leaseUntil,
        baselineAt: now.toISOString(),
        baselineRecorded: false,
        watermarks: {},
      });
    }
    const held = current.value.leaseOwner !== null && current.value.leaseUntil !== null && current.value.leaseUntil > now.toISOString();
    if (held) return undefined;
    return await store.replace({ ...current.value, leaseOwner: passId, leaseUntil }, current.etag);
  } catch (error) {
    // Another pass got there between our read and write.
    if (isApiError(error) && error.code === "CONFLICT") return undefined;
    throw error;
  }
}
