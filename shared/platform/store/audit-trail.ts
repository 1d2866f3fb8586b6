import type { AuditEventRecord } from "../../model/audit/audit-event";
import type { AuditSearchCursor, AuditSearchFilter } from "./ports";

/**
 * The trail an audit event joins, and so its sequence: the workspace's for workspace events (a
 * workspace's export reads it in sequence order), the account's for organization events.
 */
export function auditTrailOf(event: Pick<AuditEventRecord, "workspaceId" | "accountId">): string {
  return event.workspaceId ? workspaceAuditTrail(event.workspaceId) : accountAuditTrail(event.accountId);
}

export function accountAuditTrail(accountId: string): string {
  return `account:${accountId}`;
}

export function workspaceAuditTrail(workspaceId: string): string {
  return `workspace:${workspaceId}`;
}

/**
 * Where an event is stored: its trail and the UTC day it was generated (`workspace:<id>|2026-11-26`).
 * A partition holds one day of one trail, so none grows towards Cosmos's 20 GB cap of a logical
 * partition; and it follows from the event alone, so an event appended twice lands on itself.
 */
export function auditPartitionOf(event: Pick<AuditEventRecord, "workspaceId" | "accountId" | "timeGenerated">): string {
  return `${auditTrailOf(event)}|${new Date(event.timeGenerated).toISOString().slice(0, 10)}`;
}

/**
 * Whether an audit search keeps an event, its trail aside (each adapter reads only the trails asked
 * for): what the memory adapter applies to every event, and Cosmos to what its query cannot (the text).
 */
export function auditSearchKeeps(filter: AuditSearchFilter, event: AuditEventRecord): boolean {
  return (
    (filter.from === undefined || event.timeGenerated >= filter.from) &&
    (filter.to === undefined || event.timeGenerated < filter.to) &&
    (filter.actorId === undefined || event.actorId === filter.actorId) &&
    (filter.activityType === undefined || event.activityType === filter.activityType) &&
    (filter.activityAction === undefined || event.activityAction === filter.activityAction) &&
    actorTextKeeps(filter.actorText, event)
  );
}

export function actorTextKeeps(text: string | undefined, event: Pick<AuditEventRecord, "actorName" | "actorEmail">): boolean {
  return text === undefined || event.actorName.toLowerCase().includes(text) || event.actorEmail.toLowerCase().includes(text);
}

/** The search's order: newest first, by timeGenerated, then id. Negative when `a` comes first. */
export function newestEventFirst(a: AuditSearchCursor, b: AuditSearchCursor): number {
  return a.timeGenerated !== b.timeGenerated ? (a.timeGenerated > b.timeGenerated ? -1 : 1) : a.id === b.id ? 0 : a.id > b.id ? -1 : 1;
}
