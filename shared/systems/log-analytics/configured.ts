import type { Config } from "../../platform/config/config";
import { createAzureLogAnalytics } from "./azure/azure-log-analytics";
import { disabledLogAnalytics, type LogAnalytics } from "./port";

/**
 * The log analytics of the deployment: Azure (Resource Manager and Azure Monitor Logs) when
 * `LOG_ANALYTICS_WORKSPACES` is set, otherwise `fallback`. In Azure the fallback is the port's
 * disabled log analytics (a deployment never simulates); the local host passes its simulated
 * workspaces.
 */
export function createLogAnalytics(config: Config, fallback: () => LogAnalytics = disabledLogAnalytics): LogAnalytics {
  const la = config.logAnalytics;
  if (!la) return fallback();
  return createAzureLogAnalytics({
    workspaces: new Map(Object.entries(la.workspaces)),
    connectorSources: la.connectorSources,
    armEndpoint: la.armEndpoint,
    logsEndpoint: la.logsEndpoint,
    timeoutMs: la.timeoutMs,
  });
}
