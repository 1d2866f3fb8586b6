import { randomUUID } from "node:crypto";
import type { CosmosClient } from "@azure/cosmos";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containers, ensureContainers } from "../../shared/platform/store/cosmos/containers";
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

// What Cosmos drops an idempotency record by: the rest of its key's lifetime, renewed by each write.
describe("cosmos idempotency records", () => {
  it("are stored in the caller's partition with a ttl of what is left of the key's lifetime, at each write", async () => {
    const database = await ensureContainers(client, `idempotency-${randomUUID()}`);
    try {
      let clock = Date.parse("2026-03-05T00:00:00.000Z");
      const keys = createCosmosStores(database, { now: () => clock }).idempotencyKeys;
      const record = { id: "k1", scope: "person:acct-1:u-1", fingerprint: "f", createdAt: "2026-03-05T00:00:00.000Z", expiresAt: "2026-03-06T00:00:00.000Z" };
      const created = await keys.create(record);
      expect(created.value).toStrictEqual(record);
      const raw = async () => (await database.container(containers.idempotencyKeys.name).item("k1", "person:acct-1:u-1").read<{ ttl: number; pk: string }>()).resource!;
      expect(await raw()).toMatchObject({ ttl: 86_400, pk: "person:acct-1:u-1" });
      clock += 3_600_000;
      await keys.replace(record, created.etag);
      expect((await raw()).ttl).toBe(82_800);
      expect((await keys.get("person:acct-1:u-1", "k1"))?.value).toStrictEqual(record);
    } finally {
      await database.delete();
    }
  });
});
