import { describe, expect, it } from "vitest";
import { containers } from "../../shared/platform/store/cosmos/containers";
import { createCosmosStores } from "../../shared/platform/store/cosmos/cosmos-stores";
import { useCosmosDatabase } from "../support/cosmos-database";
import { describeStoreContract, workspace } from "./store-contract";
import { storesWithin, wrapStore } from "../../shared/platform/store/ports";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";

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

// A request's view of the stores (`storesWithin`): the same documents, reads that stop at its deadline.
describe("cosmos stores as a request reads them", () => {
  it("see and write the same documents as the stores themselves, and share the bookkeeping stores", async () => {
    await cosmos.empty();
    const stores = createCosmosStores(cosmos.database, { audit: { settleMs: 0 } });
    const view = storesWithin(stores, { signal: new AbortController().signal });
    expect(view).not.toBe(stores);
    await stores.workspaces.create(workspace("ws-1", "acct-1"));
    expect((await view.workspaces.get("ws-1"))?.id).toBe("ws-1");
    await view.workspaces.create(workspace("ws-2", "acct-1"));
    expect((await stores.workspaces.get("ws-2"))?.id).toBe("ws-2");
    expect([view.audit, view.outbox, view.idempotencyKeys]).toEqual([stores.audit, stores.outbox, stores.idempotencyKeys]);
    // Built once per view, on first use.
    expect(view.workspaces).toBe(view.workspaces);
  });

  it("abort a read once the request's signal is aborted (its deadline passed), where the stores themselves read on", async () => {
    await cosmos.empty();
    const stores = createCosmosStores(cosmos.database, { audit: { settleMs: 0 } });
    await stores.workspaces.create(workspace("ws-1", "acct-1"));
    const deadline = new AbortController();
    const view = storesWithin(stores, deadline);
    deadline.abort(new Error("deadline passed"));
    await expect(view.workspaces.get("ws-1")).rejects.toThrow();
    await expect(view.workspaces.listAll()).rejects.toThrow();
    expect((await stores.workspaces.get("ws-1"))?.id).toBe("ws-1");
  });

  it("keep a wrapped store wrapped (wrapStore), seen through a request too", async () => {
    await cosmos.empty();
    const gets: string[] = [];
    const stores = wrapStore(createCosmosStores(cosmos.database, { audit: { settleMs: 0 } }), "workspaces", (inner) => ({
      ...inner,
      get: (id) => (gets.push(id), inner.get(id)),
    }));
    await stores.workspaces.create(workspace("ws-1", "acct-1"));
    const deadline = new AbortController();
    const view = storesWithin(stores, deadline);
    expect((await view.workspaces.get("ws-1"))?.id).toBe("ws-1");
    deadline.abort(new Error("deadline passed"));
    await expect(view.workspaces.get("ws-1")).rejects.toThrow();
    expect(gets).toEqual(["ws-1", "ws-1"]);
  });
});

describe("memory stores as a request reads them", () => {
  it("are the stores themselves: their reads take no signal", () => {
    const stores = createMemoryStores();
    expect(storesWithin(stores, { signal: new AbortController().signal })).toBe(stores);
  });
});
