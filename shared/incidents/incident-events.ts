import { deterministicEventId, freshEventId } from "../events/event-ids";
import type { ChangeOrigin, EventType } from "../events/event-types";
import type { VendorIncident } from "../sources/gateway";
import type { IncidentAssignee, IncidentStateRecord, OutboxEventRecord } from "../store/records";

/** Fields every incident event carries about its incident (contract 6.5); null fields are left out. */
function incidentBlock(incident: VendorIncident, state: IncidentStateRecord): Record<string, unknown> {
  return withoutNulls({
    incidentId: incident.id,
    // Lower-case on the wire; the API accepts it back as a path segment (contract 2.3).
    source: incident.source.toLowerCase(),
    sourceDisplayName: incident.source,
    workspaceId: incident.workspaceId,
    accountId: state.accountId,
    incidentNumber: incident.number,
    title: incident.title,
    severity: incident.severity,
    status: incident.status,
    vendorIdentifiers: incident.vendorIdentifiers,
  });
}

/** The outbox record of one event: the delivery envelope plus where it belongs, not yet published. */
export function outboxEvent(
  type: EventType,
  eventId: string,
  owner: { workspaceId: string; accountId: string },
  occurredAt: string,
  data: Record<string, unknown>,
): OutboxEventRecord {
  return {
    id: `event-${eventId}`,
    docType: "outboxEvent",
    workspaceId: owner.workspaceId,
    accountId: owner.accountId,
    eventId,
    type,
    occurredAt,
    envelope: { id: eventId, type, occurredAt, data },
    publishedAt: null,
  };
}

/**
 * The events of a status transition: `incident.status.changed.v1` always (fresh id), and
 * `incident.closed.v1` when it closes (id from the subject: incident plus which closing this is).
 */
export function statusEvents(
  incident: VendorIncident,
  before: IncidentStateRecord,
  after: IncidentStateRecord,
  changedBy: ChangeOrigin,
  closingComment: string | null,
  now: Date,
): OutboxEventRecord[] {
  const at = now.toISOString();
  const block = incidentBlock(incident, after);
  const events = [
    outboxEvent("incident.status.changed.v1", freshEventId(), after, at, {
      ...block,
      status: after.status,
      previousStatus: before.status,
      serviceStatus: after.internalStatus ?? after.status,
      previousServiceStatus: before.internalStatus ?? before.status,
      changedBy,
    }),
  ];
  const closesNow = after.status === "Closed" && (before.status !== "Closed" || after.closeCount > before.closeCount);
  if (closesNow) {
    const subject = `${incident.workspaceId}/${incident.source}/${incident.id}/close/${after.closeCount}`;
    events.push(
      outboxEvent("incident.closed.v1", deterministicEventId("incident.closed.v1", subject), after, at, {
        ...block,
        classification: after.classification,
        closingComment: closingComment === null ? null : clipText(closingComment),
        closedBy: changedBy,
      }),
    );
  }
  return events;
}

export function assigneeEvent(
  incident: VendorIncident,
  previous: IncidentAssignee | null,
  after: IncidentStateRecord,
  changedBy: ChangeOrigin,
  now: Date,
): OutboxEventRecord {
  return outboxEvent("incident.assignee.changed.v1", freshEventId(), after, now.toISOString(), {
    ...incidentBlock(incident, after),
    assignee: after.assignee,
    previousAssignee: previous,
    changedBy,
  });
}

/**
 * `incident.created.v1` data (contract 6.5): null fields left out, `vendorIdentifiers` carried, the
 * top-level `incidentId` the id at the source the incident was ingested from.
 */
export function incidentCreatedData(incident: VendorIncident, accountId: string, assignee: IncidentAssignee | null): Record<string, unknown> {
  return withoutNulls({
    incidentId: incident.id,
    source: incident.source.toLowerCase(),
    sourceDisplayName: incident.source,
    workspaceId: incident.workspaceId,
    accountId,
    incidentNumber: incident.number,
    title: incident.title,
    description: clipText(incident.description),
    severity: incident.severity,
    status: incident.status,
    createdAt: incident.createdAt,
    lastActivityAt: incident.lastActivityTime,
    lastModificationTime: incident.lastModificationTime,
    owner: assignee,
    alertCount: incident.alerts.length,
    entityCount: incident.entities.length,
    vendorIdentifiers: incident.vendorIdentifiers,
  });
}

/**
 * Vendor texts are unbounded; a queue message is not (Service Bus Standard: 256 KB). Events carry at
 * most this much of a free text, marked when cut; the full text stays at the vendor.
 */
export const MAX_EVENT_TEXT = 32_000;

export function clipText(text: string): string {
  return text.length <= MAX_EVENT_TEXT ? text : `${text.slice(0, MAX_EVENT_TEXT - 1)}…`;
}

function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null && v !== undefined));
}
