import { z } from "zod";
import { EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";
import { workspaceRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { requireIntegration } from "../../domain/organizations/integration-switches";

const tableList = z
  .object({
    success: z.boolean().describe("False when the workspace's Log Analytics workspace cannot be read; `summary` says what to fix."),
    summary: z.string(),
    tables: z.array(z.string()).describe("Table names, for writing KQL."),
  })
  .describe("Query-tool table list.")
  .meta({
    examples: [
      {
        success: true,
        summary: "16 tables in workspace fabrikam-sentinel-prod, fed by 7 data connectors.",
        tables: ["AADNonInteractiveUserSignInLogs", "AWSCloudTrail", "AuditLogs", "CommonSecurityLog", "DeviceEvents", "DeviceProcessEvents", "Heartbeat", "OfficeActivity"],
      },
    ],
  });

/** Tools an investigation agent uses on the workspace's data: the KQL table list. */
export const agentToolRoutes: RouteGroup = {
  name: "agent-tools",
  routes: [
    workspaceRoute({
      method: "GET",
      path: "/workspaces/{workspaceId}/agent/tools/kql/tables",
      summary: "The tables a KQL query can read in the workspace's Log Analytics workspace",
      tag: "Agent tools",
      auth: "investigation:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: z.object({ workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }) }).strict(),
      response: tableList,
      async handler(input) {
        await requireIntegration(input, input.workspace, "logAnalytics");
        const list = await input.logAnalytics.listTables(input.workspace.id, input.signal);
        return { data: { success: list.success, summary: list.summary, tables: [...list.tables] } };
      },
    }),
  ],
};
