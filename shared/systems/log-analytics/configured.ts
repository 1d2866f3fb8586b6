import type { Config } from "../../platform/config/config";
import type { CircuitBreakers } from "../../platform/upstream/circuit-breaker";
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

/** The breakers' system name of every log analytics call (`/health`, the logs). */
export const LOG_ANALYTICS_SYSTEM = "LogAnalytics";

/**
 * `logAnalytics` as the service uses it: every call of a workspace goes through the breakers of Log
 * Analytics and of that workspace, so that each caller (the per-workspace endpoints, the
 * cross-workspace summary and anomaly search, the KQL tool) shares them without remembering to. A
 * workspace without log analytics answers EXTENSION_NOT_ENABLED as the port says, whatever its
 * breaker's state: that is the deployment's answer, not an upstream's failure.
 */
export function withCircuitBreakers(logAnalytics: LogAnalytics, breakers: CircuitBreakers): LogAnalytics {
  const guarded = <T>(workspaceId: string, call: (signal?: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> =>
    logAnalytics.isEnabled(workspaceId) ? breakers.call({ system: LOG_ANALYTICS_SYSTEM, workspaceId }, call, signal) : call(signal);
  return {
    isEnabled: (workspaceId) => logAnalytics.isEnabled(workspaceId),
    listDataConnectors: (workspaceId, signal) => guarded(workspaceId, (s) => logAnalytics.listDataConnectors(workspaceId, s), signal),
    ingestionVolumes: (query, signal) => guarded(query.workspaceId, (s) => logAnalytics.ingestionVolumes(query, s), signal),
    listTables: (workspaceId, signal) => guarded(workspaceId, (s) => logAnalytics.listTables(workspaceId, s), signal),
  };
}
