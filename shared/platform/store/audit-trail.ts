import type { AuditEventRecord } from "../../domain/audit/audit-event";

/**
 * The trail an audit event joins, and so its partition and sequence: the workspace's for workspace
 * events (a workspace's export reads one partition), the account's for organization events.
 */
export function auditTrailOf(event: Pick<AuditEventRecord, "workspaceId" | "accountId">): string {
  return event.workspaceId ? workspaceAuditTrail(event.workspaceId) : `account:${event.accountId}`;
}

export function workspaceAuditTrail(workspaceId: string): string {
  return `workspace:${workspaceId}`;
}
