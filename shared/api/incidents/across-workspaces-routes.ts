import { acrossWorkspacesResultExample } from "./incident-examples";
import { z } from "zod";
import { organizationRoute, type RouteGroup } from "../../platform/http/route";
import { ACROSS_WORKSPACES_MAX_BODY_BYTES, acrossWorkspacesBody, listAcrossWorkspaces } from "./cross-workspace-listing";
import { incidentSummaryView } from "../../domain/incidents/incident-view";

export const incidentsAcrossWorkspacesRoutes: RouteGroup = {
  name: "incidents-across-workspaces",
  routes: [
    organizationRoute({
      method: "POST",
      path: "/incidents/across-workspaces",
      summary: "List incidents across the workspaces mapped to your credential",
      tag: "Incidents",
      auth: "incidents:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      body: acrossWorkspacesBody,
      // The tokens of 5,000 workspaces (the most a request may name) x 7 sources, sent back as issued.
      maxBodyBytes: ACROSS_WORKSPACES_MAX_BODY_BYTES,
      response: z
        .object({
          incidents: z.array(incidentSummaryView),
          sourcePageTokens: z.array(z.object({ workspaceId: z.string(), sourceTokens: z.record(z.string(), z.string()) })),
          moreIncidentsAvailable: z.boolean(),
        })
        .meta({ examples: [acrossWorkspacesResultExample] }),
      async handler(input) {
        return { data: await listAcrossWorkspaces(input, input.body) };
      },
    }),
  ],
};
