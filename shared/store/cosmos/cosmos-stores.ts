import type { Container, Database, FeedOptions, ItemDefinition, PartitionKey, SqlParameter } from "@azure/cosmos";
import type {
  AccountStore,
  AuditStore,
  Page,
  PageRequest,
  ServiceAccountStore,
  Stores,
  UserStore,
  Versioned,
  WorkspaceStore,
} from "../ports";
import type { AccountRecord, AuditEventRecord, ServiceAccountRecord, UserRecord, WorkspaceRecord } from "../records";
import { containers } from "./containers";
import { translateCosmosError, type CosmosOperation } from "./cosmos-errors";

/**
 * Every store on Cosmos DB, with the memory adapter's semantics (the contract suite runs on both).
 * The containers must exist: `ensureContainers` locally, Bicep in Azure.
 */
export function createCosmosStores(database: Database): Stores {
  const collection = <T extends Document>(name: string, kind: string, partitionKeyOf: (doc: T) => string) =>
    new Collection<T>(database.container(name), kind, partitionKeyOf);
  return {
    accounts: cosmosAccounts(collection<AccountRecord>(containers.accounts.name, "account", (a) => a.id)),
    workspaces: cosmosWorkspaces(collection<WorkspaceRecord>(containers.workspaces.name, "workspace", (w) => w.id)),
    serviceAccounts: cosmosServiceAccounts(
      collection<ServiceAccountRecord>(containers.serviceAccounts.name, "service account", (s) => s.id),
    ),
    users: cosmosUsers(collection<UserRecord>(containers.users.name, "user", (u) => u.accountId)),
    audit: cosmosAudit(collection<AuditEventRecord>(containers.audit.name, "audit event", (e) => e.accountId)),
  };
}

function cosmosAccounts(accounts: Collection<AccountRecord>): AccountStore {
  return {
    async get(id) {
      return (await accounts.read(id, id))?.value;
    },
    async listManagedBy(providerAccountId) {
      return accounts.query("SELECT * FROM c WHERE c.managedByAccountId = @provider ORDER BY c.id", {
        "@provider": providerAccountId,
      });
    },
    async upsert(account) {
      await accounts.upsert(account);
    },
  };
}

function cosmosWorkspaces(workspaces: Collection<WorkspaceRecord>): WorkspaceStore {
  return {
    async get(id) {
      return (await workspaces.read(id, id))?.value;
    },
    async getMany(ids) {
      if (ids.length === 0) return [];
      return workspaces.query("SELECT * FROM c WHERE ARRAY_CONTAINS(@ids, c.id)", { "@ids": [...new Set(ids)] });
    },
    async listByAccounts(accountIds) {
      if (accountIds.length === 0) return [];
      return workspaces.query("SELECT * FROM c WHERE ARRAY_CONTAINS(@accountIds, c.accountId) ORDER BY c.id", {
        "@accountIds": [...accountIds],
      });
    },
    async upsert(workspace) {
      await workspaces.upsert(workspace);
    },
  };
}

function cosmosServiceAccounts(serviceAccounts: Collection<ServiceAccountRecord>): ServiceAccountStore {
  return {
    get: (id) => serviceAccounts.read(id, id),
    async list(accountIds, page) {
      if (accountIds.length === 0) return { items: [] };
      return serviceAccounts.page(["ARRAY_CONTAINS(@accountIds, c.accountId)"], { "@accountIds": [...accountIds] }, page);
    },
    create: (record) => serviceAccounts.create(record),
    replace: (record, etag) => serviceAccounts.replace(record, etag),
    delete: (id, etag) => serviceAccounts.delete(id, id, etag),
  };
}

function cosmosUsers(users: Collection<UserRecord>): UserStore {
  return {
    async find(accountIds, id) {
      // Point reads, one per account (the partition key), cheaper than a cross-partition query.
      // The first account in the caller's order wins, as in the memory adapter.
      const found = await Promise.all(accountIds.map((accountId) => users.read(id, accountId)));
      return found.find((user) => user !== undefined);
    },
    async findByEmail(accountId, email) {
      const [user] = await users.query(
        "SELECT TOP 1 * FROM c WHERE c.accountId = @accountId AND LOWER(c.email) = @email",
        { "@accountId": accountId, "@email": email.toLowerCase() },
        accountId,
      );
      return user;
    },
    async list(accountIds, filter, page) {
      if (accountIds.length === 0) return { items: [] };
      const where = ["ARRAY_CONTAINS(@accountIds, c.accountId)"];
      const parameters: Parameters = { "@accountIds": [...accountIds] };
      if (filter.email !== undefined) {
        where.push("LOWER(c.email) = @email");
        parameters["@email"] = filter.email.toLowerCase();
      }
      if (filter.role !== undefined) {
        where.push("c.organizationalRole = @role");
        parameters["@role"] = filter.role;
      }
      // One account (the usual case) is one partition: no fan-out.
      return users.page(where, parameters, page, accountIds.length === 1 ? accountIds[0] : undefined);
    },
    create: (record) => users.create(record),
    replace: (record, etag) => users.replace(record, etag),
    delete: (accountId, id, etag) => users.delete(id, accountId, etag),
  };
}

function cosmosAudit(audit: Collection<AuditEventRecord>): AuditStore {
  return {
    async append(event) {
      // Create, not upsert: an audit event is never overwritten.
      await audit.create(event);
    },
    async listRecent(accountId, limit) {
      if (limit <= 0) return [];
      return audit.query(
        "SELECT TOP @top * FROM c WHERE c.accountId = @accountId ORDER BY c.timeGenerated DESC",
        { "@top": limit, "@accountId": accountId },
        accountId,
      );
    },
  };
}

type Document = { id: string };
type Parameters = Record<string, SqlParameter["value"]>;

/** The properties Cosmos adds to every document; callers get back exactly what they wrote. */
const systemProperties = ["_rid", "_self", "_etag", "_attachments", "_ts"] as const;

/**
 * One container of one document type: point operations with etags, queries, and keyset pages.
 * Every SDK failure goes through `translateCosmosError`.
 */
class Collection<T extends Document> {
  constructor(
    private readonly container: Container,
    private readonly kind: string,
    private readonly partitionKeyOf: (doc: T) => string,
  ) {}

  async read(id: string, partitionKey: string): Promise<Versioned<T> | undefined> {
    // The SDK answers a missing item with resource undefined (status 404), not an exception.
    const { resource } = await this.attempt("read", id, () => this.container.item(id, partitionKey).read<T>());
    return resource && versioned(resource);
  }

  async create(doc: T): Promise<Versioned<T>> {
    const { resource } = await this.attempt("create", doc.id, () => this.container.items.create<T>(doc));
    return versioned(written(resource));
  }

  async upsert(doc: T): Promise<void> {
    await this.attempt("upsert", doc.id, () => this.container.items.upsert<T>(doc));
  }

  async replace(doc: T, etag: string): Promise<Versioned<T>> {
    const { resource } = await this.attempt("replace", doc.id, () =>
      this.container.item(doc.id, this.partitionKeyOf(doc)).replace<T>(doc, ifMatch(etag)),
    );
    return versioned(written(resource));
  }

  async delete(id: string, partitionKey: string, etag: string): Promise<void> {
    await this.attempt("delete", id, () => this.container.item(id, partitionKey).delete(ifMatch(etag)));
  }

  /**
   * Runs a parameterised query. Conditions on the partition key must be in the WHERE clause even
   * when `partitionKey` is given: the option only routes the query (cosmosdb-server ignores it).
   */
  async query(query: string, parameters: Parameters, partitionKey?: PartitionKey): Promise<T[]> {
    const options: FeedOptions = partitionKey === undefined ? {} : { partitionKey };
    const spec = { query, parameters: Object.entries(parameters).map(([name, value]) => ({ name, value })) };
    const { resources } = await this.attempt("query", undefined, () =>
      this.container.items.query<T & ItemDefinition>(spec, options).fetchAll(),
    );
    return resources.map(withoutSystemProperties);
  }

  /**
   * Keyset page by id, the same cursor as the memory adapter's `pageById`. Asks for one item more
   * than the limit to learn whether another page exists (OFFSET/LIMIT would also be slower on Cosmos,
   * and cosmosdb-server does not support it).
   */
  async page(where: string[], parameters: Parameters, page: PageRequest, partitionKey?: PartitionKey): Promise<Page<T>> {
    const conditions = [...where];
    const all: Parameters = { ...parameters, "@top": page.limit + 1 };
    if (page.after !== undefined) {
      conditions.push("c.id > @after");
      all["@after"] = page.after;
    }
    const items = await this.query(
      `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.id`,
      all,
      partitionKey,
    );
    const slice = items.slice(0, page.limit);
    const more = items.length > page.limit;
    return { items: slice, nextAfter: more ? slice[slice.length - 1]?.id : undefined };
  }

  private async attempt<R>(operation: CosmosOperation, id: string | undefined, call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (error) {
      throw translateCosmosError(error, { operation, kind: this.kind, id });
    }
  }
}

function ifMatch(etag: string) {
  return { accessCondition: { type: "IfMatch", condition: etag } };
}

function versioned<T extends Document>(resource: T & { _etag?: string }): Versioned<T> {
  if (resource._etag === undefined) throw new Error("Cosmos returned a document without _etag.");
  return { value: withoutSystemProperties(resource), etag: resource._etag };
}

/** A successful write always returns the stored document; its absence is an SDK contract breach. */
function written<T>(resource: T | undefined): T {
  if (resource === undefined) throw new Error("Cosmos acknowledged a write without returning the document.");
  return resource;
}

function withoutSystemProperties<T extends Document>(resource: T): T {
  const doc: Record<string, unknown> = { ...resource };
  for (const name of systemProperties) delete doc[name];
  return doc as T;
}
