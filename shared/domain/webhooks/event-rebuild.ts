import { isApiError } from "../../platform/errors/api-error";
import type { EventEnvelope } from "../../platform/events/event-message";
import type { Uses } from "../operation-context";
import { findWorkspace, loadIncident, type LoadedIncident } from "../incidents/incident-access";
import { incidentCreatedData } from "../incidents/incident-events";
import { toIncidentSummary } from "../incidents/incident-view";
import type { DeliveryLogRecord, IncidentRef } from "../../model/webhooks/delivery-log";

/*
 * A delivery-log entry keeps no copy of its event (docs/contract.md §2.9): what it was about is read again
 * from the source when it is opened or redelivered, as the incident stands now.
 */

/** The only event type whose body can be rebuilt from its source (docs/contract.md §6.6.7). */
export const REBUILDABLE_EVENT_TYPE = "incident.created.v1";

/** The incident an entry was about, read live with the service's state of it; null when it no longer exists. */
export async function incidentNow(ctx: Uses<"sources" | "stores" | "now">, ref: IncidentRef): Promise<LoadedIncident | null> {
  try {
    return await loadIncident(ctx, await findWorkspace(ctx, ref.workspaceId), ref.source, ref.incidentId);
  } catch (error) {
    if (isApiError(error) && error.code === "NOT_FOUND") return null;
    throw error;
  }
}

/** An entry's `eventPayload` (docs/contract.md §2.9): the incident as it stands now, or null when it is gone or the entry is about none. */
export async function eventPayloadNow(ctx: Uses<"sources" | "stores" | "now">, entry: Pick<DeliveryLogRecord, "incident">): Promise<Record<string, unknown> | null> {
  const loaded = entry.incident ? await incidentNow(ctx, entry.incident) : null;
  return loaded && toIncidentSummary(loaded.incident, loaded.state, loaded.workspace, ctx.now());
}

/** `incident.created.v1` rebuilt from the incident as it is now, keeping the event's id and `occurredAt`. */
export function rebuiltCreatedEvent(entry: Pick<DeliveryLogRecord, "eventId" | "eventOccurredAt">, loaded: LoadedIncident): EventEnvelope {
  return {
    id: entry.eventId,
    type: REBUILDABLE_EVENT_TYPE,
    occurredAt: entry.eventOccurredAt,
    data: incidentCreatedData(loaded.incident, loaded.workspace.accountId, loaded.state.assignee),
  };
}
