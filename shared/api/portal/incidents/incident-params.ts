import { z } from "zod";
import { EXAMPLE_INCIDENT, EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";
import { sourceSchema, sources } from "../../../model/sources";

/** One incident's path in the portal: `/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}`. */
export const incidentParams = z.strictObject({
  workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }),
  source: sourceSchema(sources).meta({ examples: [EXAMPLE_INCIDENT.source] }),
  incidentId: z.string().min(1).max(256).describe("The source's own incident id.").meta({ examples: [EXAMPLE_INCIDENT.id] }),
});
