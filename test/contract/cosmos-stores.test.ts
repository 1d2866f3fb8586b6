import { randomUUID } from "node:crypto";
import type { CosmosClient } from "@azure/cosmos";
import { afterAll, beforeAll } from "vitest";
import { ensureContainers } from "../../shared/platform/store/cosmos/containers";
import { createCosmosClient } from "../../shared/platform/store/cosmos/cosmos-client";
import { createCosmosStores } from "../../shared/platform/store/cosmos/cosmos-stores";
import { startCosmosServer, type CosmosServer } from "../support/cosmos-server";
import { describeStoreContract } from "./store-contract";

// One in-process cosmosdb-server and one client (as in production) for the file; every test gets a
// database of its own, so tests share no documents.
let server: CosmosServer;
let client: CosmosClient;

beforeAll(async () => {
  server = await startCosmosServer();
  client = createCosmosClient({ endpoint: server.endpoint, key: server.key, database: "unused", trustSelfSigned: true });
});

afterAll(async () => {
  client?.dispose();
  await server?.close();
});

describeStoreContract("cosmos", async () => {
  const database = await ensureContainers(client, `contract-${randomUUID()}`);
  return {
    // One process and one session on a server without replicas: no replica to wait for, so readers
    // go up to the newest mark at once (the settling itself: cosmos-audit.test.ts).
    stores: createCosmosStores(database, { audit: { settleMs: 0 } }),
    teardown: async () => {
      await database.delete();
    },
  };
});
