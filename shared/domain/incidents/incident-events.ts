import { sourceDisplayName } from "../../model/sources";
import type { EventData } from "../../model/events/event-catalogue";
import { eventRecord } from "../../platform/events/event-record";
import { changeOriginOf, type Actor } from "../../platform/actor";
import type { VendorIncident } from "../../model/incidents/incident";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { IncidentAssignee, IncidentStateRecord } from "../../model/incidents/incident-state-record";
import type { OutboxEventRecord } from "../../platform/events/outbox-record";

type IncidentBlock = Pick<
  EventData<"incident.status.changed.v1">,
  "incidentId" | "source" | "sourceDisplayName" | "workspaceId" | "accountId" | "incidentNumber" | "title" | "severity" | "status" | "vendorIdentifiers"
>;

/** Fields every incident event carries about its incident (docs/contract.md §6.5). */
function incidentBlock(incident: VendorIncident, accountId: string): IncidentBlock {
  return {
    incidentId: incident.id,
    // Lower-case on the wire; the API accepts it back as a path segment (docs/contract.md §2.3).
    source: incident.source.toLowerCase(),
    sourceDisplayName: sourceDisplayName(incident.source),
    workspaceId: incident.workspaceId,
    accountId,
    incidentNumber: incident.number,
    title: incident.title,
    severity: incident.severity,
    status: incident.status,
    vendorIdentifiers: incident.vendorIdentifiers,
  };
}

/** Where an incident's events commit (its workspace) and what they are about. */
function about(incident: VendorIncident, accountId: string, at: string) {
  return {
    scope: outboxScope.workspace(incident.workspaceId),
    accountId,
    occurredAt: at,
    incident: { workspaceId: incident.workspaceId, source: incident.source, incidentId: incident.id },
  };
}

/** The subject of an incident's events: `workspace/source/id`. */
export function incidentSubject(incident: Pick<VendorIncident, "workspaceId" | "source" | "id">): string {
  return `${incident.workspaceId}/${incident.source}/${incident.id}`;
}

/**
 * The events of a status transition: `incident.status.changed.v1` always (fresh id), and
 * `incident.closed.v1` when it closes (id from the subject: incident plus which closing this is).
 */
export function statusEvents(
  incident: VendorIncident,
  before: IncidentStateRecord,
  after: IncidentStateRecord,
  actor: Actor,
  closingComment: string | null,
  now: Date,
): OutboxEventRecord[] {
  const at = now.toISOString();
  const block = incidentBlock(incident, after.accountId);
  const changedBy = changeOriginOf(actor);
  const events = [
    eventRecord("incident.status.changed.v1", about(incident, after.accountId, at), {
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
    events.push(
      eventRecord(
        "incident.closed.v1",
        { ...about(incident, after.accountId, at), subject: `${incidentSubject(incident)}/close/${after.closeCount}` },
        {
          ...block,
          classification: after.classification,
          closingComment: closingComment === null ? null : clipText(closingComment),
          closedBy: changedBy,
        },
      ),
    );
  }
  return events;
}

export function assigneeEvent(
  incident: VendorIncident,
  previous: IncidentAssignee | null,
  after: IncidentStateRecord,
  actor: Actor,
  now: Date,
): OutboxEventRecord {
  return eventRecord("incident.assignee.changed.v1", about(incident, after.accountId, now.toISOString()), {
    ...incidentBlock(incident, after.accountId),
    assignee: after.assignee,
    previousAssignee: previous,
    changedBy: changeOriginOf(actor),
  });
}

/**
 * `incident.created.v1` of an ingested incident: its id comes from the incident, so every pass that
 * finds it again republishes the same event. The manual trigger fires it with a fresh id instead.
 */
export function createdEvent(
  incident: VendorIncident,
  accountId: string,
  assignee: IncidentAssignee | null,
  now: Date,
  fire?: { manual: true; routing: { onlyWebhookIds?: string[] } },
): OutboxEventRecord {
  const where = about(incident, accountId, now.toISOString());
  const data = incidentCreatedData(incident, accountId, assignee);
  if (fire) return eventRecord("incident.created.v1", { ...where, freshId: true, routing: { bypassSubscription: true, ...fire.routing } }, data);
  return eventRecord("incident.created.v1", { ...where, subject: incidentSubject(incident) }, data);
}

/**
 * `incident.created.v1` data (docs/contract.md §6.5): null fields left out, `vendorIdentifiers` carried, the
 * top-level `incidentId` the id at the source the incident was ingested from.
 */
export function incidentCreatedData(incident: VendorIncident, accountId: string, assignee: IncidentAssignee | null): EventData<"incident.created.v1"> {
  return {
    incidentId: incident.id,
    source: incident.source.toLowerCase(),
    sourceDisplayName: sourceDisplayName(incident.source),
    workspaceId: incident.workspaceId,
    accountId,
    incidentNumber: incident.number,
    title: incident.title,
    description: clipText(incident.description),
    severity: incident.severity,
    status: incident.status,
    createdAt: incident.createdAt,
    ...(incident.lastActivityTime ? { lastActivityAt: incident.lastActivityTime } : {}),
    lastModificationTime: incident.lastModificationTime,
    ...(assignee ? { owner: assignee } : {}),
    alertCount: incident.alerts.length,
    entityCount: incident.entities.length,
    vendorIdentifiers: incident.vendorIdentifiers,
  };
}

/**
 * Vendor texts are unbounded; a queue message is not (Service Bus Standard: 256 KB). Events carry at
 * most this much of a free text, marked when cut; the full text stays at the vendor.
 */
export const MAX_EVENT_TEXT = 32_000;

export function clipText(text: string): string {
  return text.length <= MAX_EVENT_TEXT ? text : `${text.slice(0, MAX_EVENT_TEXT - 1)}…`;
}
