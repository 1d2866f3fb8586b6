import { afterAll, beforeAll } from "vitest";
import type { Source } from "../../shared/model/sources";
import { createAzureLogAnalytics } from "../../shared/systems/log-analytics/azure/azure-log-analytics";
import { dataConnectorResourceId, startLogAnalyticsWireServer, type LogAnalyticsWireServer } from "../support/bridges/log-analytics-wire-server";
import { stubCredential } from "../support/bridges/stub-credential";
import { describeLogAnalyticsContract } from "./log-analytics-contract";

// The Azure adapter (its ARM and Logs SDK clients and its JSON client) over HTTPS, against the
// simulated workspaces served as Sentinel's ARM resources and the Logs query API serve them: both
// runs of the contract read the same workspaces.
const SUBSCRIPTION = "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
let azure: LogAnalyticsWireServer;

beforeAll(async () => {
  azure = await startLogAnalyticsWireServer();
});

afterAll(async () => {
  await azure?.close();
});

describeLogAnalyticsContract("Azure", async (system) => {
  const resourceIds = new Map(
    system.workspaces.map((w) => [w.id, `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg-soc-weu/providers/Microsoft.OperationalInsights/workspaces/${w.name}`]),
  );
  azure.serve(system.analytics.system, resourceIds);
  // The deployment's connector → source map, by connector name (ARM names the connectors by the system's ids).
  const connectorSources: Record<string, Source> = {};
  for (const w of system.workspaces) {
    for (const c of await system.analytics.system.listDataConnectors(w.id)) if (c.source) connectorSources[c.id] = c.source;
  }
  const logAnalytics = createAzureLogAnalytics({
    credential: stubCredential(),
    workspaces: resourceIds,
    connectorSources,
    armEndpoint: azure.origin,
    logsEndpoint: `${azure.origin}/v1`,
    timeoutMs: 10_000,
    tls: { ca: azure.certificate },
    now: () => system.clock.now,
  });
  return {
    logAnalytics,
    connectorId: (workspaceId, connectorId) => dataConnectorResourceId(resourceIds.get(workspaceId)!, connectorId),
    teardown: async () => {},
  };
});
