import { randomUUID } from "node:crypto";
import type { CosmosClient, Database } from "@azure/cosmos";
import { afterAll, beforeAll } from "vitest";
import { containers, ensureContainers } from "../../shared/platform/store/cosmos/containers";
import { createCosmosClient } from "../../shared/platform/store/cosmos/cosmos-client";
import { startCosmosServer, type CosmosServer } from "./cosmos-server";

export interface CosmosDatabase {
  server: CosmosServer;
  /** One client for the file, as in production. */
  client: CosmosClient;
  /** The file's database, with every container the service uses. */
  database: Database;
  /**
   * Deletes every document of every container. A test that needs empty containers calls it in its
   * `beforeEach`: emptying the few documents a test wrote is far cheaper than creating a database
   * of eleven containers for each test.
   */
  empty(): Promise<void>;
}

/**
 * One in-process Cosmos-protocol server, client and database for the test file that calls it (at
 * its top level): started before its tests, closed after them. Read the fields inside tests and
 * hooks, once `beforeAll` has run.
 */
export function useCosmosDatabase(): CosmosDatabase {
  const held = {} as CosmosDatabase;
  beforeAll(async () => {
    held.server = await startCosmosServer();
    held.client = createCosmosClient({ endpoint: held.server.endpoint, key: held.server.key, database: "unused", trustSelfSigned: true });
    held.database = await ensureContainers(held.client, `test-${randomUUID()}`);
    held.empty = () => emptyContainers(held.database);
  });
  afterAll(async () => {
    held.client?.dispose();
    await held.server?.close();
  });
  return held;
}

async function emptyContainers(database: Database): Promise<void> {
  await Promise.all(
    Object.values(containers).map(async ({ name }) => {
      const container = database.container(name);
      const { resources } = await container.items.query<{ id: string; pk: string }>("SELECT c.id, c.pk FROM c").fetchAll();
      await Promise.all(resources.map(({ id, pk }) => container.item(id, pk).delete()));
    }),
  );
}
