import { commitWithin } from "../../platform/concurrency/deadline";
import { auditRecord, type AuditEntry } from "../../platform/events/audit-record";
import { ApiError, isApiError } from "../../platform/errors/api-error";
import { changeOriginOf } from "../../platform/actor";
import type { Uses } from "../operation-context";
import { normalizeClassification } from "../../model/incidents/classification";
import type { Classification, PublicStatus, VendorIncident } from "../../model/incidents/incident";
import { outboxScope } from "../../platform/store/outbox-scope";
import { commit } from "../../platform/store/commit";
import type { IncidentAssignee, IncidentStateRecord, InternalStatus } from "../../model/incidents/incident-state-record";
import type { OutboxRecord } from "../../platform/events/outbox-record";
import { loadChecked, type IncidentTarget, type LoadedIncident } from "./incident-access";
import { assigneeEvent, statusEvents } from "./incident-events";
import { initialState, nextSla, stateIdOf } from "./incident-state";

/**
 * A lost race on the state is retried on a fresh read, after a short random pause that spreads the
 * contenders out, this many times before giving up with 409 (each round lets at least one through).
 */
const MAX_COMMIT_ATTEMPTS = 25;

export interface StatusChange {
  status: PublicStatus | InternalStatus;
  classification?: Classification;
  closingComment?: string;
}

export interface AssigneeChange {
  userId: string | null;
  email: string | null;
}

/**
 * Changes an incident's status. A public status goes to the vendor first; only when the vendor has
 * accepted it does the service commit its state together with the events, so an accepted change
 * never loses its events and a refused one emits none. Internal statuses never reach the vendor.
 */
export async function changeStatus(ctx: Uses<"actor" | "events" | "logger" | "now" | "sources" | "stores">, target: IncidentTarget, change: StatusChange): Promise<void> {
  const loaded = await claimChecked(ctx, target);
  const internal = change.status === "OnHold" || change.status === "WaitingOnCustomer";
  if (internal && loaded.incident.status === "Closed") {
    throw new ApiError("VALIDATION_ERROR", `A closed incident cannot be put ${change.status}; reopen it first.`, {
      target: "status",
      errors: { status: [`${change.status} needs an open incident.`] },
    });
  }
  const incident = internal
    ? loaded.incident
    : await commitWithin(
        ctx.deadline,
        (signal) =>
          loaded.gateway.setStatus(
            loaded.workspace.id,
            loaded.incident.id,
            { status: change.status as PublicStatus, classification: change.classification, closingComment: change.closingComment },
            signal,
          ),
        ctx.signal,
      );
  const now = ctx.now();

  // What the transition is from: the vendor's status just before this write. The stored state can lag
  // the vendor (a console change not reconciled yet, a source the reconciler does not poll).
  const vendorBefore = loaded.incident.status;

  await commitWithRetry(ctx, loaded, incident, (stored) => {
    // Closed by another writer since this one read it (both found it open at the vendor): one closing,
    // not two. This write's classification stands (the vendor took it last), without a second close event.
    const closedMeanwhile = change.status === "Closed" && stored.closeCount > loaded.state.closeCount;
    const before: IncidentStateRecord = { ...stored, status: closedMeanwhile ? "Closed" : vendorBefore };
    const after: IncidentStateRecord = {
      ...before,
      vendorLastModificationTime: incident.lastModificationTime,
      updatedAt: now.toISOString(),
      sla: nextSla(before.sla, change.status, now),
    };
    if (internal) {
      after.internalStatus = change.status as InternalStatus;
    } else {
      after.status = change.status as PublicStatus;
      after.internalStatus = null;
      after.classification = change.status === "Closed" ? (change.classification ?? null) : null;
      after.closedBy = change.status === "Closed" ? changeOriginOf(ctx.actor) : null;
      // Every closing is a new subject (a new incident.closed.v1 id), however the reopening happened.
      if (change.status === "Closed" && vendorBefore !== "Closed" && !closedMeanwhile) after.closeCount = stored.closeCount + 1;
    }
    const moved = after.status !== before.status || after.internalStatus !== stored.internalStatus;
    const audit = incidentAudit(ctx, loaded, incident, now, {
      activityType: "IncidentStatus",
      metadata: { status: change.status, classification: change.classification ?? null, serviceStatus: after.internalStatus ?? after.status },
    });
    return { after, outbox: [...(moved ? statusEvents(incident, before, after, ctx.actor, change.closingComment ?? null, now) : []), audit] };
  });
}

/** Assigns (or with both fields null, unassigns) an incident: vendor owner first, then state and event. */
export async function changeAssignee(ctx: Uses<"actor" | "events" | "logger" | "now" | "sources" | "stores">, target: IncidentTarget, change: AssigneeChange): Promise<void> {
  const loaded = await claimChecked(ctx, target);
  const assignee = change.email === null && change.userId === null ? null : await resolveAssignee(ctx, loaded, change);
  const incident = await commitWithin(
    ctx.deadline,
    (signal) => loaded.gateway.setOwner(loaded.workspace.id, loaded.incident.id, assignee && { userId: assignee.userId, email: assignee.email, name: assignee.name }, signal),
    ctx.signal,
  );
  const now = ctx.now();

  await commitWithRetry(ctx, loaded, incident, (before) => {
    const after: IncidentStateRecord = {
      ...before,
      assignee,
      vendorLastModificationTime: incident.lastModificationTime,
      updatedAt: now.toISOString(),
    };
    const moved = !sameAssignee(before.assignee, assignee);
    const audit = incidentAudit(ctx, loaded, incident, now, {
      activityType: "IncidentAssignee",
      metadata: { assigneeEmail: assignee?.email ?? null, assigneeUserId: assignee?.userId ?? null },
    });
    return { after, outbox: [...(moved ? [assigneeEvent(incident, before.assignee, after, ctx.actor, now)] : []), audit] };
  });
}

/**
 * The incident a write is about, checked as `loadChecked` checks it and, when the caller named the
 * version it acts on (`If-Match`) or refuses a closed incident, claimed before the vendor is written:
 * the state is written back as read, conditionally on its etag, so that of two writers holding the
 * same version only one gets past this point (the other is 409, as if it had read after the first).
 * Without the claim both would pass the check, write the vendor, and the second would land on the
 * first without having seen it.
 */
async function claimChecked(ctx: Uses<"events" | "logger" | "now" | "sources" | "stores">, target: IncidentTarget): Promise<LoadedIncident> {
  const loaded = await loadChecked(ctx, target);
  if (target.ifMatch === undefined && !target.refuseIfClosed) return loaded;
  try {
    const claimed = await ctx.stores.incidents.commit({ ...loaded.state, updatedAt: ctx.now().toISOString() }, loaded.stateEtag, []);
    return { ...loaded, state: claimed.value, stateEtag: claimed.etag };
  } catch (error) {
    if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
    throw new ApiError("CONFLICT", "The incident is being changed by someone else at this moment: read it again, then make your change.", { target: "If-Match" });
  }
}

/** The audit event of a write to an incident, committed with the state (or rescued with its events). */
function incidentAudit(
  ctx: Uses<"actor">,
  loaded: LoadedIncident,
  incident: VendorIncident,
  now: Date,
  entry: Pick<AuditEntry, "activityType" | "metadata">,
): OutboxRecord {
  return auditRecord(
    ctx.actor,
    {
      ...entry,
      activityAction: "Update",
      targetResourceType: "Incident",
      targetResourceId: `${incident.source}/${incident.id}`,
      targetResourceName: incident.title,
      workspaceId: loaded.workspace.id,
      accountId: loaded.workspace.accountId,
    },
    outboxScope.workspace(loaded.workspace.id),
    now,
  );
}

/**
 * Applies a change to the freshest state, commits it with its outbox records (events, audit), then
 * publishes them. A concurrent writer makes the commit fail with CONFLICT; the change is then
 * re-applied to what that writer stored, so no update is lost. (`If-Match` was checked once, before
 * the vendor write.)
 */
async function commitWithRetry(
  ctx: Uses<"events" | "logger" | "now" | "stores">,
  loaded: LoadedIncident,
  incident: VendorIncident,
  apply: (before: IncidentStateRecord) => { after: IncidentStateRecord; outbox: OutboxRecord[] },
): Promise<IncidentStateRecord> {
  const store = ctx.stores.incidents;
  // Set when another writer's later vendor result got committed first: the state must end on it.
  let latest: VendorIncident | undefined;
  let outbox: readonly OutboxRecord[] = [];
  try {
    return await commit({
      deadline: ctx.deadline,
      async read(attempt) {
        if (attempt === 1) return { value: loaded.state, etag: loaded.stateEtag };
        const fresh = await store.get(loaded.workspace.id, stateIdOf(incident.source, incident.id));
        const freshVendorTime = fresh?.value.vendorLastModificationTime ?? null;
        if (freshVendorTime !== null && freshVendorTime > incident.lastModificationTime) {
          latest = await loaded.gateway.getIncident(loaded.workspace.id, incident.id).catch(() => latest);
        }
        return { value: fresh?.value ?? initialState(incident, loaded.workspace.accountId, ctx.now()), etag: fresh?.etag ?? null };
      },
      next(before) {
        const { after, outbox: records } = apply(before);
        outbox = records;
        if (latest) followVendor(after, latest);
        return { value: after, outbox };
      },
      write: async (after, etag, records) => (await store.commit(after, etag, records)).value,
      outbox: ctx.events.outbox,
      maxAttempts: MAX_COMMIT_ATTEMPTS,
      pauseMs: (attempt) => Math.random() * Math.min(50, 2 * attempt),
    });
  } catch (error) {
    // The vendor already has the change: its events and audit event must not be lost with the state write.
    await rescueRecords(ctx, loaded.workspace.id, outbox);
    throw error;
  }
}

/**
 * Our vendor write was overtaken by a later one that another writer committed first: our change and
 * its events stand (they happened), but the state ends on what the vendor holds now.
 */
function followVendor(state: IncidentStateRecord, vendor: VendorIncident): void {
  if (state.vendorLastModificationTime !== null && vendor.lastModificationTime <= state.vendorLastModificationTime) return;
  state.status = vendor.status;
  state.classification = vendor.status === "Closed" ? normalizeClassification(vendor.classification) : null;
  if (vendor.status !== "Closed") state.closedBy = null;
  state.vendorLastModificationTime = vendor.lastModificationTime;
}

/**
 * Last resort when the state cannot be written after the vendor accepted a change: the records go to
 * the outbox on their own (and out), so receivers and the audit trail still learn of it. If the store
 * is down for this too, the failure is logged with the record ids; the caller gets the original
 * error either way.
 */
async function rescueRecords(ctx: Uses<"events" | "logger">, workspaceId: string, records: readonly OutboxRecord[]): Promise<void> {
  if (records.length === 0) return;
  try {
    await ctx.events.outbox.record(records, ctx.deadline);
  } catch (error) {
    ctx.logger.error("outbox records of a change the vendor accepted could not be stored", {
      workspaceId,
      recordIds: records.map((r) => r.id),
      error: String(error),
    });
  }
}

/** The assignee with a display name from the organization's users when the e-mail is known there. */
async function resolveAssignee(ctx: Uses<"actor" | "stores">, loaded: LoadedIncident, change: AssigneeChange): Promise<IncidentAssignee> {
  const email = change.email!;
  // The workspace's own account first, then the actor's (a provider's analysts work its customers' incidents).
  const accounts = [...new Set([loaded.workspace.accountId, ...(ctx.actor.accountId ? [ctx.actor.accountId] : [])])];
  let user;
  for (const accountId of accounts) {
    user = await ctx.stores.users.findByEmail(accountId, email);
    if (user) break;
  }
  return { userId: change.userId ?? user?.id ?? null, email, name: user?.displayName ?? null, isAgent: false };
}

function sameAssignee(a: IncidentAssignee | null, b: IncidentAssignee | null): boolean {
  if (a === null || b === null) return a === b;
  return a.userId === b.userId && a.email?.toLowerCase() === b.email?.toLowerCase();
}
