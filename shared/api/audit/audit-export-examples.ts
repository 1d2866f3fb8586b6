import { EXAMPLE_SERVICE_ACCOUNT_ID, EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";

// Example of the OpenAPI document for the audit export: the SOAR connector linking a ticket.

export const auditExportPageExample = {
  value: [
    {
      id: "b1a0c6e1-2a52-48ec-b75a-5520c5b9cf10",
      timeGenerated: "2026-03-02T22:16:08.160Z",
      workspaceId: EXAMPLE_WORKSPACE_ID,
      discriminator: "Workspace",
      activityType: "TicketLink",
      activityAction: "Create",
      actorId: EXAMPLE_SERVICE_ACCOUNT_ID,
      actorName: "SOAR connector",
      actorEmail: "",
      targetResourceType: "TicketLink",
      targetResourceId: "2d70eb6c-5153-8f68-8004-27b6ce1de704",
      targetResourceName: "SEC-2219",
      metadata: "{\"source\":\"SourceA\",\"incidentId\":\"67ad2f09-8df1-8539-bb5d-4fe70e2b6f00\",\"ticketSystem\":\"Jira Service Management\",\"ticketId\":\"12219\",\"ticketNumber\":\"SEC-2219\"}",
    },
  ],
  nextPageToken: "eyJhZnRlciI6Mn0.XcCeebUBSy7Ey9WofCzr0w",
};
