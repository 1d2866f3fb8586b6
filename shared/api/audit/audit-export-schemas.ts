import { z } from "zod";
import { EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";

export const MAX_EXPORT_PAGE_SIZE = 1000;
export const DEFAULT_EXPORT_PAGE_SIZE = 100;

export const workspaceParams = z.object({ workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }) }).strict();

export const exportQuery = z
  .object({
    pageSize: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_EXPORT_PAGE_SIZE)
      .default(DEFAULT_EXPORT_PAGE_SIZE)
      .describe(`Events per page, 1 to ${MAX_EXPORT_PAGE_SIZE}. A page with fewer events than this means you are caught up.`),
    pageToken: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe("The previous page's `nextPageToken`, unmodified, with the same startTime. Absent: from the first event."),
    startTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("Only events generated at or after this time. Order stays the trail's sequence; the filter applies to every page."),
  })
  .strict();

export const auditEventView = z
  .object({
    id: z.string().describe("GUID."),
    timeGenerated: z.string(),
    workspaceId: z.string(),
    discriminator: z.string().describe("`Workspace` for workspace events."),
    activityType: z.string().describe("`IncidentStatus`, `IncidentAssignee`, `IncidentComment`, `TicketLink`, `TicketPriority`, `WorkspaceIntegrations`, …"),
    activityAction: z.string().describe("`Create`, `Update`, `Delete`."),
    actorId: z.string().describe("The service account, or a GUID derived from who acted for the service (a gamebook, an agent)."),
    targetResourceType: z.string(),
    targetResourceId: z.string(),
    actorName: z.string(),
    actorEmail: z.string(),
    targetResourceName: z.string(),
    metadata: z.string().describe("JSON text of what changed; never a secret."),
  })
  .describe("Audit event.");

export const exportPage = z
  .object({
    value: z.array(auditEventView).describe("The workspace's audit events in the order they were recorded."),
    nextPageToken: z
      .string()
      .describe("Always present: where to continue. Follow it to the end (a short page), store the last one, and resume from it later to get exactly the events recorded since."),
  })
  .describe("A page of the workspace's audit trail (no envelope, as the v2 export answers).");
