import { organizationRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { anomalyResultExample, dataSourceSummaryExample } from "./datasource-examples";
import { searchAnomalies } from "./anomaly-search";
import { anomalyQueryBody, anomalyResult, dataSourceSummary, summaryQuery } from "./datasource-schemas";
import { mappedLogAnalyticsWorkspaces } from "../../domain/organizations/mapped-workspaces";
import { readWorkspaces } from "./workspace-reads";

const tag = "Data sources";
const WORKSPACE_CONCURRENCY = 8;

/** What a page of either route means when some workspaces' Log Analytics fails. */
const WHEN_LOG_ANALYTICS_FAILS =
  "**When a workspace's Log Analytics fails.** The answer holds what the other workspaces give; `meta.unavailable` names each workspace it could not read, " +
  "with the problem code (`UPSTREAM_ERROR`, `TIMEOUT`, `RATE_LIMITED`, or the code a read of that workspace alone would answer) and, where known, `retryAfterSeconds`. " +
  "A reported workspace is not in `data.workspaces`. No workspace is waited on longer than the deployment's budget (2.5 s by default, from its own call's start): one unanswered by then is reported as `TIMEOUT`. " +
  "A workspace whose Log Analytics keeps failing is not called for a cool-down (`circuitOpen`). `meta.unavailable` is empty when every workspace was read.";

/** Data sources across the workspaces mapped to the credential (docs/contract.md §4.2). */
export const dataSourcesAcrossWorkspacesRoutes: RouteGroup = {
  name: "datasources-across-workspaces",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/datasources/across-workspaces",
      summary: "How many data connectors feed each source, per mapped workspace",
      description: `${WHEN_LOG_ANALYTICS_FAILS} Asking again tries the reported workspaces again.`,
      tag,
      auth: "datasources:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      query: summaryQuery,
      partial: "workspaces",
      response: dataSourceSummary.meta({ examples: [dataSourceSummaryExample] }),
      async handler(input) {
        const workspaces = await mappedLogAnalyticsWorkspaces(input, input.query.workspaceIds?.length ? input.query.workspaceIds : undefined);
        const { read, unavailable } = await readWorkspaces(input, workspaces, WORKSPACE_CONCURRENCY, (w, signal) => input.logAnalytics.listDataConnectors(w.id, signal));
        const sources = read.flatMap(({ workspace: w, value: connectors }) => {
          const counts = new Map<string, number>();
          for (const c of connectors) if (c.source !== null) counts.set(c.source, (counts.get(c.source) ?? 0) + 1);
          return [...counts]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([source, dataConnectorCount]) => ({ workspaceId: w.id, workspaceName: w.name, tenantId: w.tenantId, source, dataConnectorCount }));
        });
        return { data: { workspaces: read.map(({ workspace }) => workspace.id), sources }, unavailable };
      },
    }),
    organizationRoute({
      method: "POST",
      path: "/datasources/across-workspaces/anomalies",
      summary: "Ingestion anomalies (no data, volume drops and spikes, latency) across mapped workspaces",
      description:
        `${WHEN_LOG_ANALYTICS_FAILS} Every page computes the anomalies of the workspaces again, so a reported workspace contributes nothing to this page: ` +
        "the page lacks its anomalies. Reading the same page again (the same body and `continuationToken`) tries it again; the page's `continuationToken` " +
        "leads on after the anomalies shown, so those of a reported workspace that belong on this page are not on later ones.",
      tag,
      auth: "datasources:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      body: anomalyQueryBody,
      response: anomalyResult.meta({ examples: [anomalyResultExample] }),
      paginated: true,
      partial: "workspaces",
      async handler(input) {
        const { data, pagination, unavailable } = await searchAnomalies(input, input.body);
        return { data, pagination, unavailable };
      },
    }),
  ],
};
