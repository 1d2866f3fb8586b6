import type { AccountStore, AuditStore, ServiceAccountStore, Stores, UserStore, WorkspaceStore } from "../ports";
import type { AccountRecord, AuditEventRecord, ServiceAccountRecord, UserRecord, WorkspaceRecord } from "../records";
import { VersionedMap, pageById } from "./versioned-map";

/** The embedded default: every store in this process's memory. */
export function createMemoryStores(): Stores {
  return {
    accounts: memoryAccounts(),
    workspaces: memoryWorkspaces(),
    serviceAccounts: memoryServiceAccounts(),
    users: memoryUsers(),
    audit: memoryAudit(),
  };
}

function memoryAccounts(): AccountStore {
  const map = new VersionedMap<AccountRecord>("account");
  return {
    async get(id) {
      return map.get(id)?.value;
    },
    async listManagedBy(providerId) {
      return map.values().filter((a) => a.managedByAccountId === providerId);
    },
    async upsert(account) {
      map.upsert(account.id, account);
    },
  };
}

function memoryWorkspaces(): WorkspaceStore {
  const map = new VersionedMap<WorkspaceRecord>("workspace");
  return {
    async get(id) {
      return map.get(id)?.value;
    },
    async getMany(ids) {
      return [...new Set(ids)].flatMap((id) => map.get(id)?.value ?? []);
    },
    async listByAccounts(accountIds) {
      return map.values().filter((w) => accountIds.includes(w.accountId));
    },
    async upsert(workspace) {
      map.upsert(workspace.id, workspace);
    },
  };
}

function memoryServiceAccounts(): ServiceAccountStore {
  const map = new VersionedMap<ServiceAccountRecord>("service account");
  return {
    async get(id) {
      return map.get(id);
    },
    async list(accountIds, page) {
      return pageById(
        map.values().filter((s) => accountIds.includes(s.accountId)),
        page,
      );
    },
    async create(record) {
      return map.create(record.id, record);
    },
    async replace(record, etag) {
      return map.replace(record.id, record, etag);
    },
    async delete(id, etag) {
      map.delete(id, etag);
    },
  };
}

function memoryUsers(): UserStore {
  const map = new VersionedMap<UserRecord>("user");
  const key = (accountId: string, id: string) => `${accountId}/${id}`;
  return {
    async find(accountIds, id) {
      for (const accountId of accountIds) {
        const found = map.get(key(accountId, id));
        if (found) return found;
      }
      return undefined;
    },
    async findByEmail(accountId, email) {
      const wanted = email.toLowerCase();
      return map.values().find((u) => u.accountId === accountId && u.email.toLowerCase() === wanted);
    },
    async list(accountIds, filter, page) {
      const email = filter.email?.toLowerCase();
      return pageById(
        map
          .values()
          .filter(
            (u) =>
              accountIds.includes(u.accountId) &&
              (email === undefined || u.email.toLowerCase() === email) &&
              (filter.role === undefined || u.organizationalRole === filter.role),
          ),
        page,
      );
    },
    async create(record) {
      return map.create(key(record.accountId, record.id), record);
    },
    async replace(record, etag) {
      return map.replace(key(record.accountId, record.id), record, etag);
    },
    async delete(accountId, id, etag) {
      map.delete(key(accountId, id), etag);
    },
  };
}

function memoryAudit(): AuditStore {
  const events: AuditEventRecord[] = [];
  return {
    async append(event) {
      events.push(structuredClone(event));
    },
    async listRecent(accountId, limit) {
      return events
        .filter((e) => e.accountId === accountId)
        .sort((a, b) => (a.timeGenerated < b.timeGenerated ? 1 : a.timeGenerated > b.timeGenerated ? -1 : 0))
        .slice(0, limit)
        .map((e) => structuredClone(e));
    },
  };
}
