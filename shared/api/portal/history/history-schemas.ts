import { z } from "zod";
import { pageQueryFields } from "../../../platform/http/paging";
import { acrossHistoryQuery } from "../../schemas/run-history-schemas";
import { gamebookRunStatuses, playbookStatuses } from "../../../model/gamebooks/gamebook-run";
import {
  EXAMPLE_ANALYST,
  EXAMPLE_CUSTOMER_ACCOUNT_ID,
  EXAMPLE_INCIDENT,
  EXAMPLE_USER,
  EXAMPLE_WORKSPACE_ID,
  EXAMPLE_WORKSPACE_NAME,
} from "../../../platform/http/examples";
import { approvalRequestExample, approvalRequestSchema } from "../approval-request-schemas";

/** Workspace ids, the parameter repeated (`workspaceIds=a&workspaceIds=b`). */
const workspaceIds = z
  .union([z.guid(), z.array(z.guid()).max(1000)])
  .transform((v) => (Array.isArray(v) ? v : [v]))
  .optional();

export const decidedApprovalsQuery = z.strictObject({
  workspaceIds: workspaceIds.describe("Only these workspaces (repeat the parameter); those you may not see are left out. Absent: every workspace you see."),
  ...pageQueryFields,
});

const { viewer: _viewer, ...decidedRequestExample } = approvalRequestExample;

export const decidedApprovalExample = {
  ...decidedRequestExample,
  status: "Succeeded",
  awaitingDecision: false,
  approvals: [{ by: "Jonas Becker", byUserId: "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", side: "Provider", at: "2026-11-25T09:40:00.000Z", comment: "Confirmed with the customer's on-call." }],
  approvalsStillNeeded: 0,
  decision: { outcome: "Approved", by: "Jonas Becker", byUserId: "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", at: "2026-11-25T09:40:00.000Z", comment: "Confirmed with the customer's on-call.", expired: false },
  run: {
    status: "Succeeded",
    summary: "1 of 1 playbooks succeeded.",
    dispatchedAt: "2026-11-25T09:40:00.000Z",
    modificationDate: "2026-11-25T09:40:04.310Z",
    playbooks: [{ sequence: 1, name: "Disable user", status: "Succeeded", errorMessage: "", startingDate: "2026-11-25T09:40:01.020Z", finishingDate: "2026-11-25T09:40:04.310Z", executionTime: "00:00:03.290" }],
  },
};

export const decidedApprovalSchema = approvalRequestSchema
  .omit({ viewer: true })
  .extend({
    run: z
      .object({
        status: z.enum(gamebookRunStatuses).describe("Where the run stands now: `Denied` for a denial or an expiry, otherwise what it ran to."),
        summary: z.string().describe("Where the run stands, in words."),
        dispatchedAt: z.string().nullable().describe("When the approval handed it to the executor; null when it never ran."),
        modificationDate: z.string().describe("The run's last change."),
        playbooks: z
          .array(
            z.object({
              sequence: z.int(),
              name: z.string(),
              status: z.enum(playbookStatuses),
              errorMessage: z.string().describe('Why it failed; "" unless it failed.'),
              startingDate: z.string().describe('"" until it started.'),
              finishingDate: z.string().describe('"" until it finished.'),
              executionTime: z.string().describe('`hh:mm:ss[.fff]`; "" until it finished.'),
            }),
          )
          .describe("Each playbook's outcome, in sequence order: `Skipped` when the run was denied or stopped before it."),
      })
      .describe("What ran: the run as it stands now."),
  })
  .meta({ examples: [decidedApprovalExample] });

/** The contract's cross-workspace history query, over the workspaces a person sees. */
export const runHistoryQuery = acrossHistoryQuery.extend({
  workspaces: acrossHistoryQuery.shape.workspaces.describe(
    "Workspace GUIDs, repeated or comma-separated; absent: every workspace you see. Workspaces you may not see are left out.",
  ),
});

export const auditActions = ["Create", "Update", "Delete"] as const;

export const auditQuery = z.strictObject({
  accountId: z.guid().optional().describe("Only this organization of yours: your own account, or one it manages. Another is left out (an empty list)."),
  workspaceIds: workspaceIds.describe("Only these workspaces' events (repeat the parameter); organization events then drop out. Workspaces outside your organization are left out."),
  actorId: z.guid().optional().describe("Exactly this actor: a person's directory object id, a service account's id, or the id the service acts under (every event shows it as `actorId`)."),
  actor: z.string().trim().min(1).max(256).optional().describe("Text in the actor's name or e-mail address, any case."),
  activityType: z.string().trim().min(1).max(128).optional().describe("Exactly this activity type, as events show it (`IncidentStatus`, `GamebookApproval`, `Webhook`, …)."),
  activityAction: z.enum(auditActions).optional().describe("Exactly this action."),
  from: z.iso.datetime({ offset: true }).optional().describe("Only events generated at or after this time."),
  to: z.iso.datetime({ offset: true }).optional().describe("Only events generated before this time."),
  ...pageQueryFields,
});

export const auditEventViewSchema = z
  .object({
    id: z.string().describe("GUID."),
    timeGenerated: z.string(),
    accountId: z.string().describe("The organization whose trail holds the event (for a workspace event, the workspace's)."),
    accountName: z.string(),
    workspaceId: z.string().nullable().describe("The workspace; null for an event of the organization itself."),
    workspaceName: z.string().nullable(),
    discriminator: z.string().describe("`Workspace` or `Organization`."),
    activityType: z.string(),
    activityAction: z.string().describe("`Create`, `Update`, `Delete`."),
    actorId: z.string().describe("A person's directory object id, a service account's id, or a GUID derived from who acted for the service (a gamebook, an expiry, an agent)."),
    actorName: z.string(),
    actorEmail: z.string().describe('A person\'s address; "" for a service account or the service.'),
    targetResourceType: z.string(),
    targetResourceId: z.string(),
    targetResourceName: z.string(),
    metadata: z.string().describe("JSON text of what changed; never a secret."),
  })
  .describe("An audit event with the names of its organization and workspace.");

export const auditEventExample = {
  id: "7c4e2a91-5d3b-4f8e-9a6c-1b2d3e4f5a60",
  timeGenerated: "2026-11-25T09:40:00.000Z",
  accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
  accountName: "Fabrikam Retail",
  workspaceId: EXAMPLE_WORKSPACE_ID,
  workspaceName: EXAMPLE_WORKSPACE_NAME,
  discriminator: "Workspace",
  activityType: "IncidentStatus",
  activityAction: "Update",
  actorId: EXAMPLE_ANALYST.id,
  actorName: EXAMPLE_ANALYST.displayName,
  actorEmail: EXAMPLE_ANALYST.email,
  targetResourceType: "Incident",
  targetResourceId: `${EXAMPLE_INCIDENT.source}/${EXAMPLE_INCIDENT.id}`,
  targetResourceName: EXAMPLE_INCIDENT.title,
  metadata: '{"status":"Active","classification":null,"serviceStatus":"Active"}',
};

export const organizationAuditExample = {
  ...auditEventExample,
  id: "9e1f3b5d-7a2c-4e6f-8b0d-2c4e6a8b0d1f",
  accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
  workspaceId: null,
  workspaceName: null,
  discriminator: "Organization",
  activityType: "PersonUpdated",
  actorId: EXAMPLE_USER.id,
  actorName: EXAMPLE_USER.displayName,
  actorEmail: EXAMPLE_USER.email,
  targetResourceType: "User",
  targetResourceId: EXAMPLE_ANALYST.id,
  targetResourceName: EXAMPLE_ANALYST.displayName,
  metadata: '{"before":{"organizationalRole":"Member"},"after":{"organizationalRole":"UserAdmin"}}',
};
