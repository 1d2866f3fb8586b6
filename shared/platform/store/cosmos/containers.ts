import type { CosmosClient, Database, IndexingPolicy } from "@azure/cosmos";

export interface ContainerSpec {
  name: string;
  /**
   * Fixed for the container's lifetime: changing it means a new container and a data migration.
   * Always `/pk`: the adapter sets `pk` on every document it writes (`Collection`), so that a
   * document and the outbox records committed with it share a partition.
   */
  partitionKeyPath: "/pk";
  /** What `pk` holds, for readers of the templates and the code. */
  partitionedBy: string;
  /** Seconds; -1 turns TTL on with items living until their own `ttl`. Absent: TTL off. */
  defaultTtl?: number;
  /**
   * Only the paths the container's queries filter and sort on (`indexOnly`): a write's RU grows with
   * what it indexes, and payloads, bodies and audit details are never queried. Pinned against the
   * adapter's query texts by test/unit/cosmos-indexing.test.ts.
   */
  indexingPolicy: IndexingPolicy;
}

/**
 * What every container holding an outbox is queried on: the sweep's `docType = 'outbox' AND
 * IS_NULL(publishedAt) ORDER BY createdAt` across partitions, and one scope's records in its partition.
 */
const OUTBOX_PATHS = ["/docType", "/publishedAt", "/createdAt", "/pk", "/scope"] as const;

/**
 * An indexing policy that indexes the given paths (a scalar each, or `…/*` for everything under one)
 * and nothing else, with the composite indexes of the multi-field ORDER BYs. `id` is named where a
 * query uses it; Cosmos indexes it in any case.
 */
function indexOnly(paths: readonly string[], compositeIndexes?: IndexingPolicy["compositeIndexes"]): IndexingPolicy {
  return {
    indexingMode: "consistent",
    automatic: true,
    includedPaths: [...new Set(paths)].sort().map((path) => ({ path: path.endsWith("/*") ? path : `${path}/?` })),
    excludedPaths: [{ path: "/*" }],
    ...(compositeIndexes ? { compositeIndexes } : {}),
  };
}

/**
 * Every Cosmos container the service uses. This is the single source: the Cosmos adapter,
 * `ensureContainers` and the Bicep check all read it.
 */
export const containers = {
  // An account and a workspace record each commit their outbox records beside them (their audit
  // events): TTL on, per item, so carried-out records expire and the records themselves never do.
  // A provider's managed accounts are found by `managedByAccountId`.
  accounts: { name: "accounts", partitionKeyPath: "/pk", partitionedBy: "the account id (with its outbox)", defaultTtl: -1, indexingPolicy: indexOnly(["/managedByAccountId", ...OUTBOX_PATHS]) },
  // Listed by id and account; outbox records and offboarded records are told apart by `docType` and `offboarded`.
  workspaces: {
    name: "workspaces",
    partitionKeyPath: "/pk",
    partitionedBy: "the workspace id (with its record's outbox)",
    defaultTtl: -1,
    indexingPolicy: indexOnly(["/id", "/accountId", "/offboarded", ...OUTBOX_PATHS]),
  },
  // The authentication hot path is a point read by client id, so the id is the partition key.
  serviceAccounts: {
    name: "serviceAccounts",
    partitionKeyPath: "/pk",
    partitionedBy: "the service account id (with its outbox)",
    defaultTtl: -1,
    indexingPolicy: indexOnly(["/id", "/accountId", ...OUTBOX_PATHS]),
  },
  // A user id is unique only within its account; listing an account's users stays in one partition.
  // Containers that hold an outbox have TTL on, per item: carried-out records expire, the rest never does.
  // Found by email and directory identity; the people listing filters by role and workspace assignment.
  users: {
    name: "users",
    partitionKeyPath: "/pk",
    partitionedBy: "the account id (with its users' outbox)",
    defaultTtl: -1,
    indexingPolicy: indexOnly(["/id", "/accountId", "/email", "/tenantId", "/organizationalRole", "/workspaceAssignments/*", ...OUTBOX_PATHS]),
  },
  // Audit events, one partition per trail and UTC day (`workspace:<id>|2026-11-26`, `account:<id>|…`),
  // so that no partition nears Cosmos's 20 GB cap; each trail's sequencer document in a partition of
  // its own (`workspace:<id>`), beside the events recorded before days split the trail. TTL on, per
  // item: events expire by their own `ttl` (the retention); the sequencer and events without a `ttl`
  // never do. The sequencer takes a trail's unsequenced events oldest first (ORDER BY timeGenerated,
  // id); the search lists an organization's events newest first (ORDER BY timeGenerated DESC, id
  // DESC). Cosmos would serve the second from the first's index read backwards, but the
  // Cosmos-protocol server of the tests needs an index in the query's own direction.
  audit: {
    name: "audit",
    partitionKeyPath: "/pk",
    partitionedBy: "the audit trail and the UTC day of the event (`<trail>|yyyy-mm-dd`); the trail alone for its sequencer",
    defaultTtl: -1,
    // The events' `details` (and every other field) are not queried: not indexed.
    indexingPolicy: indexOnly(
      ["/id", "/pk", "/docType", "/trail", "/sequence", "/allocatedAt", "/timeGenerated", "/accountId", "/actorId", "/activityType", "/activityAction"],
      [
        [
          { path: "/timeGenerated", order: "ascending" },
          { path: "/id", order: "ascending" },
        ],
        [
          { path: "/timeGenerated", order: "descending" },
          { path: "/id", order: "descending" },
        ],
      ],
    ),
  },
  // Everything the service keeps per workspace — incident state, gamebook runs, the playbook catalogue,
  // the agent configuration, SOP records, integration switches, ticket links — with the outbox
  // records committed beside it: one workspace is one partition, so a change and its events are one
  // transactional batch. TTL on, per item: carried-out outbox records expire, the rest never does.
  // Gamebook runs are listed newest first (history), per incident, newest first (by-incident,
  // last-gamebook), waiting for approval, soonest to expire first (the approval queue and its
  // expiry sweep), and, decided, newest decision first (decided approvals): one composite index for
  // each ORDER BY.
  workspaceItems: {
    name: "workspaceItems",
    partitionKeyPath: "/pk",
    partitionedBy: "the workspace id",
    defaultTtl: -1,
    // Incident state (indicators, comments), run steps and outputs, SOP and catalogue bodies are not
    // queried: not indexed. `indicators` is only tested for being non-empty (ARRAY_LENGTH), which Cosmos
    // evaluates on the documents the indexed conditions select.
    indexingPolicy: indexOnly(
      [
        "/id",
        "/pk",
        "/docType",
        "/status",
        "/deletedAt",
        "/sla/startedAt",
        "/source",
        "/incidentId",
        "/creationDate",
        "/searchText",
        "/isQueued",
        "/approval/expiresAt",
        "/approval/decidedAt",
        "/approval/decision",
        "/ticketId",
        ...OUTBOX_PATHS,
      ],
      [
        [
          { path: "/creationDate", order: "descending" },
          { path: "/id", order: "descending" },
        ],
        [
          { path: "/incidentId", order: "ascending" },
          { path: "/creationDate", order: "descending" },
          { path: "/id", order: "descending" },
        ],
        [
          { path: "/approval/expiresAt", order: "ascending" },
          { path: "/id", order: "ascending" },
        ],
        [
          { path: "/approval/decidedAt", order: "descending" },
          { path: "/id", order: "descending" },
        ],
      ],
    ),
  },
  // Listed by the account they deliver to.
  webhooks: { name: "webhooks", partitionKeyPath: "/pk", partitionedBy: "the webhook id (with its outbox)", defaultTtl: -1, indexingPolicy: indexOnly(["/id", "/targetAccountId", ...OUTBOX_PATHS]) },
  // One small document per workspace: the reconciler's watermarks, read and written by id only.
  reconciler: { name: "reconciler", partitionKeyPath: "/pk", partitionedBy: "the workspace id", indexingPolicy: indexOnly([]) },
  // Requests sent with an Idempotency-Key, one record per caller and key, read and written by id in
  // the caller's partition (no query); each expires by its own `ttl`, the rest of the key's lifetime.
  idempotencyKeys: {
    name: "idempotencyKeys",
    partitionKeyPath: "/pk",
    partitionedBy: "the caller (`service-account:<id>` or `person:<id>`, with its organization)",
    defaultTtl: -1,
    indexingPolicy: indexOnly([]),
  },
  // One partition per webhook and day (DESIGN §3); entries expire by their own `ttl`.
  deliveryLogs: {
    name: "deliveryLogs",
    partitionKeyPath: "/pk",
    partitionedBy: "`<webhookId>:<yyyy-mm-dd>` of createdAt",
    defaultTtl: -1,
    // Request and response bodies and headers are not queried: not indexed.
    indexingPolicy: indexOnly(
      ["/id", "/pk", "/createdAt", "/status", "/httpStatusCode"],
      [
        [
          { path: "/createdAt", order: "descending" },
          { path: "/id", order: "descending" },
        ],
      ],
    ),
  },
} as const satisfies Record<string, ContainerSpec>;

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
