import { auditRecord } from "../../platform/events/audit-record";
import type { OutboxAuditRecord } from "../../platform/events/outbox-record";
import type { Uses } from "../operation-context";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { WorkspaceRecord } from "../../model/organizations/workspace";

/**
 * The audit event of a change to a workspace's own record (onboarding, settings, approval policy,
 * offboarding): in the workspace's trail, committed in its record's scope with the change.
 */
export function workspaceAudit(
  ctx: Uses<"actor" | "now">,
  workspace: Pick<WorkspaceRecord, "id" | "name" | "accountId">,
  activityType: string,
  activityAction: "Create" | "Update" | "Delete",
  metadata: Record<string, unknown>,
): OutboxAuditRecord {
  return auditRecord(
    ctx.actor,
    {
      activityType,
      activityAction,
      targetResourceType: "Workspace",
      targetResourceId: workspace.id,
      targetResourceName: workspace.name,
      metadata,
      workspaceId: workspace.id,
      accountId: workspace.accountId,
    },
    outboxScope.workspaceRecord(workspace.id),
    ctx.now(),
  );
}
