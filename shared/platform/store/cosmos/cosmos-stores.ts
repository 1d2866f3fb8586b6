import type { Container, Database } from "@azure/cosmos";
import type {
  AccountStore,
  ServiceAccountStore,
  Stores,
  UserStore,
  WorkspaceStore,
  ReconcilerStore,
} from "../ports";
import { READS_WITHIN } from "../ports";
import { cosmosDeliveryLogs, cosmosWebhooks } from "./cosmos-webhook-stores";
import type { OutboxScope } from "../../events/outbox-record";
import type { AccountRecord } from "../../../model/organizations/account";
import type { DeliveryLogRecord } from "../../../model/webhooks/delivery-log";
import type { ReconcilerStateRecord } from "../../../model/reconciler/reconciler-state";
import type { WebhookRecord } from "../../../model/webhooks/webhook";
import type { ServiceAccountRecord } from "../../../model/organizations/service-account";
import type { UserRecord } from "../../../model/organizations/user";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { outboxScope } from "../outbox-scope";
import { cosmosOutbox } from "./cosmos-outbox";
import { containers } from "./containers";
import { Collection, type Document, type Parameters } from "./collection";
import { cosmosGamebookRuns, cosmosIncidents, cosmosPlaybookCatalogues } from "./cosmos-incident-stores";
import { cosmosAudit, type CosmosAuditOptions } from "./cosmos-audit";
import { cosmosIdempotencyKeys, type StoredIdempotencyRecord } from "./cosmos-idempotency";
import { cosmosAgentConfigurations, cosmosIntegrations, cosmosSops, cosmosTicketLinks } from "./cosmos-workspace-data-stores";

export interface CosmosStoreOptions {
  /** The audit trail's retention (and, for tests, its clock). */
  audit?: CosmosAuditOptions;
  /** The clock an idempotency record's `ttl` is counted by, in milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
}

/** The stores a request reads through (`READS_WITHIN`): each built on collections that take a read signal. */
type ReadableStores = Omit<Stores, typeof READS_WITHIN | "audit" | "outbox" | "idempotencyKeys">;
type ReadSignal = (() => AbortSignal) | undefined;

/**
 * Every store on Cosmos DB, with the memory adapter's semantics (the contract suite runs on both).
 * The containers must exist: `ensureContainers` locally, Bicep in Azure. Seen through a request
 * (`storesWithin`), the aggregates' stores read with its signal; each is built on first use, so a
 * request pays only for the stores it reads. The audit trail, the outbox and the idempotency keys are
 * the service's bookkeeping, one per process (the audit trail's sequencing runs once per trail).
 */
export function createCosmosStores(database: Database, options: CosmosStoreOptions = {}): Stores {
  // One client object per container, whichever view's collections use it.
  const made = new Map<string, Container>();
  const container = (name: string) => made.get(name) ?? made.set(name, database.container(name)).get(name)!;
  const collection =
    <T extends Document>(name: string, kind: string, partitionKeyOf: (doc: T) => string, outboxScopeOf?: (pk: string) => OutboxScope) =>
    (readSignal: ReadSignal) =>
      new Collection<T>(container(name), kind, partitionKeyOf, outboxScopeOf, readSignal);
  const workspaceItem = <T extends Document & { workspaceId: string }>(kind: string, readSignal: ReadSignal) =>
    new Collection<T>(container(containers.workspaceItems.name), kind, (d) => d.workspaceId, outboxScope.workspace, readSignal);
  const accounts = collection<AccountRecord>(containers.accounts.name, "account", (a) => a.id, outboxScope.account);
  const workspaces = collection<WorkspaceRecord>(containers.workspaces.name, "workspace", (w) => w.id, outboxScope.workspaceRecord);
  const serviceAccounts = collection<ServiceAccountRecord>(containers.serviceAccounts.name, "service account", (s) => s.id, outboxScope.serviceAccount);
  const users = collection<UserRecord>(containers.users.name, "user", (u) => u.accountId, outboxScope.users);
  const webhooks = collection<WebhookRecord>(containers.webhooks.name, "webhook", (w) => w.id, outboxScope.webhook);
  const deliveryLogs = collection<DeliveryLogRecord>(containers.deliveryLogs.name, "delivery log entry", (e) => e.partitionKey);
  const reconciler = collection<ReconcilerStateRecord>(containers.reconciler.name, "reconciler state", (r) => r.workspaceId);
  const readable: { [K in keyof ReadableStores]: (readSignal: ReadSignal) => ReadableStores[K] } = {
    accounts: (r) => cosmosAccounts(accounts(r)),
    workspaces: (r) => cosmosWorkspaces(workspaces(r)),
    serviceAccounts: (r) => cosmosServiceAccounts(serviceAccounts(r)),
    users: (r) => cosmosUsers(users(r)),
    incidents: (r) => cosmosIncidents(workspaceItem("incident state", r)),
    webhooks: (r) => cosmosWebhooks(webhooks(r)),
    deliveryLogs: (r) => cosmosDeliveryLogs(deliveryLogs(r)),
    reconciler: (r) => cosmosReconciler(reconciler(r)),
    gamebookRuns: (r) => cosmosGamebookRuns(workspaceItem("gamebook run", r)),
    playbookCatalogues: (r) => cosmosPlaybookCatalogues(workspaceItem("playbook catalogue", r)),
    agentConfigurations: (r) => cosmosAgentConfigurations(workspaceItem("agent configuration", r)),
    sops: (r) => cosmosSops(workspaceItem("SOP document", r)),
    integrations: (r) => cosmosIntegrations(workspaceItem("workspace integrations", r)),
    ticketLinks: (r) => cosmosTicketLinks(workspaceItem("ticket link", r)),
  };
  const bookkeeping = {
    audit: cosmosAudit(container(containers.audit.name), options.audit),
    outbox: cosmosOutbox({
      workspace: container(containers.workspaceItems.name),
      "service-account": container(containers.serviceAccounts.name),
      users: container(containers.users.name),
      webhook: container(containers.webhooks.name),
      account: container(containers.accounts.name),
      "workspace-record": container(containers.workspaces.name),
    }),
    idempotencyKeys: cosmosIdempotencyKeys(
      collection<StoredIdempotencyRecord>(containers.idempotencyKeys.name, "idempotency record", (r) => r.scope)(undefined),
      options.now ?? Date.now,
    ),
  };
  const stores: Stores = { ...built(readable, undefined), ...bookkeeping };
  stores[READS_WITHIN] = viewsThrough(readable, bookkeeping);
  return stores;
}

function built(readable: { [K in keyof ReadableStores]: (readSignal: ReadSignal) => ReadableStores[K] }, readSignal: ReadSignal): ReadableStores {
  return Object.fromEntries(Object.entries(readable).map(([name, build]) => [name, build(readSignal)])) as unknown as ReadableStores;
}

/**
 * A request's view of the stores: the aggregates' stores as getters on one prototype, each building its
 * store with the request's read signal on first use and keeping it on the view; the bookkeeping stores
 * as they are. Making a view is one object; a request that reads one store builds one.
 */
function viewsThrough(
  readable: { [K in keyof ReadableStores]: (readSignal: ReadSignal) => ReadableStores[K] },
  bookkeeping: Pick<Stores, "audit" | "outbox" | "idempotencyKeys">,
): (signal: () => AbortSignal) => Stores {
  const prototype: object = { ...bookkeeping };
  for (const [name, build] of Object.entries(readable) as [string, (readSignal: ReadSignal) => unknown][]) {
    Object.defineProperty(prototype, name, {
      enumerable: true,
      get(this: { readSignal: () => AbortSignal }) {
        const store = build(this.readSignal);
        Object.defineProperty(this, name, { value: store, enumerable: true });
        return store;
      },
    });
  }
  return (signal) => Object.assign(Object.create(prototype) as Stores, { readSignal: signal });
}

function cosmosAccounts(accounts: Collection<AccountRecord>): AccountStore {
  return {
    async get(id) {
      return (await accounts.read(id, id))?.value;
    },
    read: (id) => accounts.read(id, id),
    async listManagedBy(providerAccountId) {
      // Every authentication of a new caller asks this. Sorted here, not by ORDER BY: Cosmos's gateway
      // answers a cross-partition query that only filters itself, where one with ORDER BY is refused
      // until the SDK has the query plan and the partition ranges, round trips one after another.
      const managed = await accounts.query("SELECT * FROM c WHERE c.managedByAccountId = @provider", {
        "@provider": providerAccountId,
      });
      return managed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    create: (account, outbox = []) => accounts.create(account, outbox),
    replace: (account, etag, outbox = []) => accounts.replace(account, etag, outbox),
    async upsert(account) {
      await accounts.upsert(account);
    },
  };
}

/**
 * Workspace records share their container with their outbox records (`docType` "outbox"), so every
 * query names workspaces by a field only they have (`accountId`, or the record's shape); an offboarded
 * one (`offboarded` set) is left out of every read but `read` and `listOffboarded`.
 */
const ONBOARDED = "NOT IS_DEFINED(c.docType) AND NOT IS_DEFINED(c.offboarded)";

function cosmosWorkspaces(workspaces: Collection<WorkspaceRecord>): WorkspaceStore {
  return {
    async get(id) {
      const found = (await workspaces.read(id, id))?.value;
      return found && !found.offboarded ? found : undefined;
    },
    read: (id) => workspaces.read(id, id),
    async getMany(ids) {
      if (ids.length === 0) return [];
      return workspaces.query(`SELECT * FROM c WHERE ARRAY_CONTAINS(@ids, c.id) AND ${ONBOARDED}`, { "@ids": [...new Set(ids)] });
    },
    async listByAccounts(accountIds) {
      if (accountIds.length === 0) return [];
      return workspaces.query(`SELECT * FROM c WHERE ARRAY_CONTAINS(@accountIds, c.accountId) AND ${ONBOARDED} ORDER BY c.id`, {
        "@accountIds": [...accountIds],
      });
    },
    async listAll() {
      return workspaces.query(`SELECT * FROM c WHERE ${ONBOARDED} ORDER BY c.id`, {});
    },
    async listOffboarded(accountIds) {
      if (accountIds.length === 0) return [];
      return workspaces.query("SELECT * FROM c WHERE ARRAY_CONTAINS(@accountIds, c.accountId) AND IS_DEFINED(c.offboarded) ORDER BY c.id", {
        "@accountIds": [...accountIds],
      });
    },
    create: (workspace, outbox = []) => workspaces.create(workspace, outbox),
    replace: (workspace, etag, outbox = []) => workspaces.replace(workspace, etag, outbox),
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
    create: (record, outbox = []) => serviceAccounts.create(record, outbox),
    replace: (record, etag, outbox = []) => serviceAccounts.replace(record, etag, outbox),
    delete: (id, etag, outbox = []) => serviceAccounts.delete(id, id, etag, outbox),
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
    async findByDirectoryIdentity(tenantId, id) {
      // Once per sign-in and per expired cache entry, not per request: a cross-partition query by id is fine.
      const found = await users.query(
        "SELECT * FROM c WHERE c.id = @id AND LOWER(c.tenantId) = @tenantId",
        { "@id": id, "@tenantId": tenantId.toLowerCase() },
      );
      return found.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
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
      if (filter.workspaceId !== undefined) {
        // Partial match: an assignment with this workspace, whatever its role.
        where.push("ARRAY_CONTAINS(c.workspaceAssignments, {workspaceId: @workspaceId}, true)");
        parameters["@workspaceId"] = filter.workspaceId;
      }
      // One account (the usual case) is one partition: no fan-out.
      return users.page(where, parameters, page, accountIds.length === 1 ? accountIds[0] : undefined);
    },
    create: (record, outbox = []) => users.create(record, outbox),
    replace: (record, etag, outbox = []) => users.replace(record, etag, outbox),
    delete: (accountId, id, etag, outbox = []) => users.delete(id, accountId, etag, outbox),
  };
}

function cosmosReconciler(states: Collection<ReconcilerStateRecord>): ReconcilerStore {
  return {
    get: (workspaceId) => states.read(workspaceId, workspaceId),
    create: (record) => states.create(record),
    replace: (record, etag) => states.replace(record, etag),
  };
}
