import type { CosmosClient, Database, IndexingPolicy } from "@azure/cosmos";
import type { Stores } from "../ports";

export interface ContainerSpec {
  name: string;
  /** Fixed for the container's lifetime: changing it means a new container and a data migration. */
  partitionKeyPath: string;
  /** Seconds; -1 turns TTL on with items living until their own `ttl`. Absent: TTL off. */
  defaultTtl?: number;
  /** Absent: Cosmos's default (everything range-indexed), enough for single-field ORDER BY. */
  indexingPolicy?: IndexingPolicy;
}

/**
 * Every Cosmos container the service uses, one per store. This is the single source: the Cosmos
 * adapter, `ensureContainers` and the Bicep check all read it. Keyed by store so that adding a
 * store without its container does not compile.
 */
export const containers = {
  accounts: { name: "accounts", partitionKeyPath: "/id" },
  workspaces: { name: "workspaces", partitionKeyPath: "/id" },
  // The authentication hot path is a point read by client id, so the id is the partition key.
  serviceAccounts: { name: "serviceAccounts", partitionKeyPath: "/id" },
  // A user id is unique only within its account; listing an account's users stays in one partition.
  users: { name: "users", partitionKeyPath: "/accountId" },
  // Audit is read per account, newest first.
  audit: { name: "audit", partitionKeyPath: "/accountId" },
  // Incident state and its outbox events: one workspace is one partition, so a change and its events
  // commit in one transactional batch. TTL on, per item: published events expire, state never does.
  incidents: { name: "incidents", partitionKeyPath: "/workspaceId", defaultTtl: -1 },
  gamebookRuns: { name: "gamebookRuns", partitionKeyPath: "/workspaceId" },
  webhooks: { name: "webhooks", partitionKeyPath: "/id" },
  // One small document per workspace: the reconciler's lease (etag) and watermarks.
  reconciler: { name: "reconciler", partitionKeyPath: "/workspaceId" },
  agentConfigurations: { name: "agentConfigurations", partitionKeyPath: "/workspaceId" },
  // One partition per webhook and day (DESIGN §3); entries expire by their own `ttl`.
  deliveryLogs: {
    name: "deliveryLogs",
    partitionKeyPath: "/partitionKey",
    defaultTtl: -1,
    indexingPolicy: {
      compositeIndexes: [
        [
          { path: "/createdAt", order: "descending" },
          { path: "/id", order: "descending" },
        ],
      ],
    },
  },
} as const satisfies Record<keyof Stores, ContainerSpec>;

/**
 * Creates the database and every container that does not exist yet, for local runs and tests with
 * key auth. In Azure, Bicep creates them: a managed identity cannot create containers through the
 * data plane.
 */
export async function ensureContainers(client: CosmosClient, databaseName: string): Promise<Database> {
  const { database } = await client.databases.createIfNotExists({ id: databaseName });
  const specs: readonly ContainerSpec[] = Object.values(containers);
  // One at a time: Cosmos gives metadata operations a small request-rate budget of their own.
  for (const spec of specs) {
    await database.containers.createIfNotExists({
      id: spec.name,
      partitionKey: { paths: [spec.partitionKeyPath] },
      defaultTtl: spec.defaultTtl,
      indexingPolicy: spec.indexingPolicy,
    });
  }
  return database;
}
