import type { Database } from "@azure/cosmos";
import type {
  AccountStore,
  ServiceAccountStore,
  Stores,
  UserStore,
  WorkspaceStore,
  ReconcilerStore,
} from "../ports";
import { cosmosDeliveryLogs, cosmosWebhooks } from "./cosmos-webhook-stores";
import type { OutboxScope } from "../../events/outbox-record";
import type { AccountRecord } from "../../../model/organizations/account";
import type { DeliveryLogRecord } from "../../../model/webhooks/delivery-log";
import type { IncidentStateRecord } from "../../../model/incidents/incident-state-record";
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

/**
 * Every store on Cosmos DB, with the memory adapter's semantics (the contract suite runs on both).
 * The containers must exist: `ensureContainers` locally, Bicep in Azure.
 */
export function createCosmosStores(database: Database, options: CosmosStoreOptions = {}): Stores {
  const collection = <T extends Document>(name: string, kind: string, partitionKeyOf: (doc: T) => string, outboxScopeOf?: (pk: string) => OutboxScope) =>
    new Collection<T>(database.container(name), kind, partitionKeyOf, outboxScopeOf);
  const workspaceItems = database.container(containers.workspaceItems.name);
  return {
    accounts: cosmosAccounts(collection<AccountRecord>(containers.accounts.name, "account", (a) => a.id, outboxScope.account)),
    workspaces: cosmosWorkspaces(collection<WorkspaceRecord>(containers.workspaces.name, "workspace", (w) => w.id, outboxScope.workspaceRecord)),
    serviceAccounts: cosmosServiceAccounts(
      collection<ServiceAccountRecord>(containers.serviceAccounts.name, "service account", (s) => s.id, outboxScope.serviceAccount),
    ),
    users: cosmosUsers(collection<UserRecord>(containers.users.name, "user", (u) => u.accountId, outboxScope.users)),
    audit: cosmosAudit(database.container(containers.audit.name), options.audit),
    incidents: cosmosIncidents(new Collection<IncidentStateRecord>(workspaceItems, "incident state", (s) => s.workspaceId, outboxScope.workspace)),
    outbox: cosmosOutbox({
      workspace: workspaceItems,
      "service-account": database.container(containers.serviceAccounts.name),
      users: database.container(containers.users.name),
      webhook: database.container(containers.webhooks.name),
      account: database.container(containers.accounts.name),
      "workspace-record": database.container(containers.workspaces.name),
    }),
    webhooks: cosmosWebhooks(collection<WebhookRecord>(containers.webhooks.name, "webhook", (w) => w.id, outboxScope.webhook)),
    deliveryLogs: cosmosDeliveryLogs(
      collection<DeliveryLogRecord>(containers.deliveryLogs.name, "delivery log entry", (e) => e.partitionKey),
    ),
    reconciler: cosmosReconciler(
      collection<ReconcilerStateRecord>(containers.reconciler.name, "reconciler state", (r) => r.workspaceId),
    ),
    gamebookRuns: cosmosGamebookRuns(new Collection(workspaceItems, "gamebook run", (r) => r.workspaceId, outboxScope.workspace)),
    playbookCatalogues: cosmosPlaybookCatalogues(new Collection(workspaceItems, "playbook catalogue", (c) => c.workspaceId, outboxScope.workspace)),
    agentConfigurations: cosmosAgentConfigurations(new Collection(workspaceItems, "agent configuration", (r) => r.workspaceId, outboxScope.workspace)),
    sops: cosmosSops(new Collection(workspaceItems, "SOP document", (r) => r.workspaceId, outboxScope.workspace)),
    integrations: cosmosIntegrations(new Collection(workspaceItems, "workspace integrations", (r) => r.workspaceId, outboxScope.workspace)),
    ticketLinks: cosmosTicketLinks(new Collection(workspaceItems, "ticket link", (r) => r.workspaceId, outboxScope.workspace)),
    idempotencyKeys: cosmosIdempotencyKeys(
      collection<StoredIdempotencyRecord>(containers.idempotencyKeys.name, "idempotency record", (r) => r.scope),
      options.now ?? Date.now,
    ),
  };
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
