import type { AuditEventRecord } from "../../shared/model/audit/audit-event";
import type { Uses } from "../../shared/domain/operation-context";
import { outboxScope } from "../../shared/platform/store/outbox-scope";

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

/** The audit events a workspace's writes committed to its outbox (beside their events), published or not, oldest first. */
export async function outboxAudits(services: Uses<"stores">, workspaceId: string): Promise<AuditEventRecord[]> {
  const records = await services.stores.outbox.list(outboxScope.workspace(workspaceId), 100_000);
  return records.flatMap((r) => (r.kind === "audit" ? [r.audit] : []));
}
