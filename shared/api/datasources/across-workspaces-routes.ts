import { organizationRoute, type RouteGroup } from "../../platform/http/route";
import { anomalyResultExample, dataSourceSummaryExample } from "./datasource-examples";
import { searchAnomalies } from "./anomaly-search";
import { anomalyQueryBody, anomalyResult, dataSourceSummary, summaryQuery } from "./datasource-schemas";
import { mapLimited } from "../../platform/concurrency/map-limited";
import { mappedLogAnalyticsWorkspaces } from "../../domain/organizations/mapped-workspaces";

const tag = "Data sources";
const WORKSPACE_CONCURRENCY = 8;

/** Data sources across the workspaces mapped to the credential (contract 4.2). */
export const dataSourcesAcrossWorkspacesRoutes: RouteGroup = {
  name: "datasources-across-workspaces",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/datasources/across-workspaces",
      summary: "How many data connectors feed each source, per mapped workspace",
      tag,
      auth: "datasources:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      query: summaryQuery,
      response: dataSourceSummary.meta({ examples: [dataSourceSummaryExample] }),
      async handler(input) {
        const workspaces = await mappedLogAnalyticsWorkspaces(input, input.query.workspaceIds?.length ? input.query.workspaceIds : undefined);
        const connectors = await mapLimited(workspaces, WORKSPACE_CONCURRENCY, (w, signal) => input.logAnalytics.listDataConnectors(w.id, signal), input.signal);
        const sources = workspaces.flatMap((w, i) => {
          const counts = new Map<string, number>();
          for (const c of connectors[i]!) if (c.source !== null) counts.set(c.source, (counts.get(c.source) ?? 0) + 1);
          return [...counts]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([source, dataConnectorCount]) => ({ workspaceId: w.id, workspaceName: w.name, tenantId: w.tenantId, source, dataConnectorCount }));
        });
        return { data: { workspaces: workspaces.map((w) => w.id), sources } };
      },
    }),
    organizationRoute({
      method: "POST",
      path: "/datasources/across-workspaces/anomalies",
      summary: "Ingestion anomalies (no data, volume drops and spikes, latency) across mapped workspaces",
      tag,
      auth: "datasources:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      body: anomalyQueryBody,
      response: anomalyResult.meta({ examples: [anomalyResultExample] }),
      paginated: true,
      async handler(input) {
        const { data, pagination } = await searchAnomalies(input, input.body);
        return { data, pagination };
      },
    }),
  ],
};
