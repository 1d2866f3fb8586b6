import { z } from "zod";
import { dataConnectorsExample } from "./datasource-examples";
import { workspaceRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { requireIntegration } from "../../domain/organizations/integration-switches";
import { dataConnectorView, workspaceParams } from "./datasource-schemas";

/** The data connectors of one workspace (docs/contract.md §4.1, `datasources:read`). */
export const dataSourceRoutes: RouteGroup = {
  name: "datasources",
  routes: [
    workspaceRoute({
      method: "GET",
      path: "/workspaces/{workspaceId}/datasources",
      summary: "The data connectors of the workspace, with health and when each last received data",
      tag: "Data sources",
      auth: "datasources:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      response: z.array(dataConnectorView).meta({ examples: [dataConnectorsExample] }),
      async handler(input) {
        const { workspace } = input;
        await requireIntegration(input, workspace, "logAnalytics");
        const connectors = await input.logAnalytics.listDataConnectors(workspace.id, input.signal);
        const data = connectors
          .map((c) => ({ ...c, dataTypes: [...c.dataTypes], tables: [...c.tables], health: { ...c.health } }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
        return { data };
      },
    }),
  ],
};
