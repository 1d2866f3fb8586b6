import { acrossWorkspacesExample, acrossWorkspacesResultExample } from "../examples/incident-examples";
import { organizationRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { ACROSS_WORKSPACES_MAX_BODY_BYTES, listAcrossWorkspaces } from "../../domain/incidents/cross-workspace-listing";
import { acrossWorkspacesPage, acrossWorkspacesQuery, PARTIAL_LISTING_DESCRIPTION } from "../schemas/incident-listing-schemas";
import { mappedWorkspaces } from "../../domain/organizations/mapped-workspaces";

export const incidentsAcrossWorkspacesRoutes: RouteGroup = {
  name: "incidents-across-workspaces",
  routes: [
    organizationRoute({
      method: "POST",
      path: "/incidents/across-workspaces",
      summary: "List incidents across the workspaces mapped to your credential",
      description: PARTIAL_LISTING_DESCRIPTION,
      tag: "Incidents",
      auth: "incidents:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      body: acrossWorkspacesQuery.meta({ examples: [acrossWorkspacesExample] }),
      // The tokens of 10,000 workspaces (the most a request may name) x 7 sources, sent back as issued: measured, see the constant.
      maxBodyBytes: ACROSS_WORKSPACES_MAX_BODY_BYTES,
      partial: "streams",
      response: acrossWorkspacesPage.meta({ examples: [acrossWorkspacesResultExample] }),
      async handler(input) {
        const { unavailable, incidents, ...page } = await listAcrossWorkspaces(input, await mappedWorkspaces(input), input.body);
        return { data: { incidents: incidents.map((i) => i.summary), ...page }, unavailable };
      },
    }),
  ],
};
