import { z } from "zod";
import { defineRoute, type RouteGroup } from "../http/route";
import { acrossWorkspacesBody, listAcrossWorkspaces } from "./cross-workspace-listing";
import { incidentSummaryView } from "./incident-view";

export const incidentsAcrossWorkspacesRoutes: RouteGroup = {
  name: "incidents-across-workspaces",
  routes: [
    defineRoute({
      method: "POST",
      path: "/incidents/across-workspaces",
      summary: "List incidents across the workspaces mapped to your credential",
      tag: "Incidents",
      auth: "incidents:read",
      body: acrossWorkspacesBody,
      response: z.object({
        incidents: z.array(incidentSummaryView),
        sourcePageTokens: z.array(z.object({ workspaceId: z.string(), sourceTokens: z.record(z.string(), z.string()) })),
        moreIncidentsAvailable: z.boolean(),
      }),
      async handler(input) {
        return { data: await listAcrossWorkspaces(input, input.body) };
      },
    }),
  ],
};
