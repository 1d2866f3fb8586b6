import { describe, expect, it } from "vitest";
import { containers } from "../../shared/platform/store/cosmos/containers";
import { createCosmosStores } from "../../shared/platform/store/cosmos/cosmos-stores";
import { useCosmosDatabase } from "../support/cosmos-database";
import { describeStoreContract } from "./store-contract";

// One in-process cosmosdb-server, client and database for the file (as in production, one client);
// every test starts from empty containers and fresh stores, so tests share no documents.
const cosmos = useCosmosDatabase();

describeStoreContract("cosmos", async () => {
  await cosmos.empty();
  return {
    // One process and one session on a server without replicas: no replica to wait for, so readers
    // go up to the newest mark at once (the settling itself: cosmos-audit.test.ts).
    stores: createCosmosStores(cosmos.database, { audit: { settleMs: 0 } }),
    teardown: async () => {},
  };
});

// What Cosmos drops an idempotency record by: the rest of its key's lifetime, renewed by each write.
describe("cosmos idempotency records", () => {
  it("are stored in the caller's partition with a ttl of what is left of the key's lifetime, at each write", async () => {
    await cosmos.empty();
    const { database } = cosmos;
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
  });
});
