import { describeLogAnalyticsContract } from "./log-analytics-contract";

describeLogAnalyticsContract("simulated", async (system) => ({
  logAnalytics: system.analytics.system,
  connectorId: (_workspaceId, connectorId) => connectorId,
  teardown: async () => {},
}));
