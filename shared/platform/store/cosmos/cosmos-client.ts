import https from "node:https";
import type { CosmosClient } from "@azure/cosmos";
import { ConfigError, type Config } from "../../config/config";

/**
 * A Cosmos client for the configured account: key auth when a key is given (local runs, tests),
 * otherwise Entra ID through `DefaultAzureCredential` (managed identity in Azure). The caller keeps
 * one client per process: the client holds the connection pool and the endpoint cache.
 *
 * @example
 * const client = createCosmosClient(loadConfig().cosmos);
 */
export function createCosmosClient(config: Config["cosmos"]): CosmosClient {
  if (!config.endpoint) throw new ConfigError("COSMOS_ENDPOINT is required for the Cosmos store.");
  // Loaded here, on first use, not at import: every cold start pays for what the function modules import.
  const { CosmosClient } = require("@azure/cosmos") as typeof import("@azure/cosmos");
  return new CosmosClient({
    endpoint: config.endpoint,
    ...(config.key ? { key: config.key } : { aadCredentials: defaultAzureCredential() }),
    // The account has one region (serverless accounts can have no other: infra/modules/cosmos.bicep),
    // so there is no other endpoint to discover: without this, the first request of every process
    // waits for a read of the database account's region list. A multi-region account turns it back on.
    connectionPolicy: { enableEndpointDiscovery: false },
    // Only for a local Cosmos-protocol server with a self-signed certificate. The relaxed agent is
    // this client's alone; TLS checks stay on for every other connection of the process.
    ...(config.trustSelfSigned && {
      agent: new https.Agent({ keepAlive: true, rejectUnauthorized: false }),
    }),
  });
}

/** Entra ID for a client without a key. @azure/identity (and MSAL) is loaded only then: with a key, never. */
function defaultAzureCredential(): import("@azure/identity").TokenCredential {
  const { DefaultAzureCredential } = require("@azure/identity") as typeof import("@azure/identity");
  return new DefaultAzureCredential();
}
