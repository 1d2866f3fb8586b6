import type { AuditEventRecord } from "../../shared/domain/audit/audit-event";

/** A realistic audit event (a ticket linked by a connector) of account `acct-1`; `workspaceId` null: an organization event. */
export function auditEvent(id: string, options: { workspaceId?: string | null; timeGenerated?: string } = {}): AuditEventRecord {
  const workspaceId = options.workspaceId === undefined ? "ws-1" : options.workspaceId;
  return {
    id,
    accountId: "acct-1",
    timeGenerated: options.timeGenerated ?? "2025-01-15T09:30:00.000Z",
    workspaceId,
    discriminator: workspaceId ? "Workspace" : "Organization",
    activityType: "TicketLink",
    activityAction: "Create",
    actorId: "2f9b6a3e-0c1d-4e5f-8a7b-9c0d1e2f3a4b",
    actorName: "SOAR connector",
    actorEmail: "",
    targetResourceType: "TicketLink",
    targetResourceId: `link-${id}`,
    targetResourceName: "INC0012345",
    metadata: "{}",
  };
}
