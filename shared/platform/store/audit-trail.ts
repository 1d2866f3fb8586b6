import type { AuditEventRecord } from "../../domain/audit/audit-event";

/**
 * The trail an audit event joins, and so its sequence: the workspace's for workspace events (a
 * workspace's export reads it in sequence order), the account's for organization events.
 */
export function auditTrailOf(event: Pick<AuditEventRecord, "workspaceId" | "accountId">): string {
  return event.workspaceId ? workspaceAuditTrail(event.workspaceId) : `account:${event.accountId}`;
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
