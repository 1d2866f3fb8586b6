import type { Config } from "../../platform/config/config";
import { createGraphDirectoryLogs } from "./graph/graph-directory-logs";
import { disabledDirectoryLogs, type DirectoryLogs } from "./port";

/**
 * The directory logs of the deployment: Microsoft Graph when `DIRECTORY_LOGS_TENANT_IDS` is set,
 * otherwise `fallback`. In Azure the fallback is the port's disabled directory logs (a deployment
 * never simulates); the local host passes its simulated directories.
 */
export function createDirectoryLogs(config: Config, fallback: () => DirectoryLogs = disabledDirectoryLogs): DirectoryLogs {
  const graph = config.directoryLogs;
  if (!graph) return fallback();
  return createGraphDirectoryLogs({ baseUrl: graph.graphBaseUrl, tenants: graph.tenants, timeoutMs: graph.timeoutMs });
}
