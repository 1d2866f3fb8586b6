import { afterAll, beforeAll } from "vitest";
import { createGraphDirectoryLogs } from "../../shared/systems/directory-logs/graph/graph-directory-logs";
import { startGraphWireServer, type GraphWireServer } from "../support/bridges/directory-logs-wire-server";
import { stubCredential } from "../support/bridges/stub-credential";
import { describeDirectoryLogsContract } from "./directory-logs-contract";

// The Microsoft Graph adapter over real HTTP, against the simulated directory served as Graph serves
// its audit logs: both runs of the contract read the same directory.
let graph: GraphWireServer;

beforeAll(async () => {
  graph = await startGraphWireServer();
});

afterAll(async () => {
  await graph?.close();
});

describeDirectoryLogsContract("Microsoft Graph", async (system) => {
  graph.serve(system.directory.logs);
  const logs = createGraphDirectoryLogs({
    credential: stubCredential(),
    baseUrl: graph.origin,
    tenants: system.tenants.map((t) => t.tenantId),
    timeoutMs: 5_000,
    now: () => system.clock.now,
  });
  return { logs, teardown: async () => {} };
});
