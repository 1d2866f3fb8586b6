import type {
  AccountRecord,
  AuditEventRecord,
  OrganizationalRole,
  ServiceAccountRecord,
  UserRecord,
  WorkspaceRecord,
} from "./records";

/**
 * A document with its version tag, for optimistic concurrency (Cosmos `_etag`). Values read from a
 * store are snapshots that may be shared and frozen (the memory adapter hands out its own frozen
 * copy): to change one, copy it (`structuredClone`) and write the copy.
 */
export interface Versioned<T> {
  value: T;
  etag: string;
}

/**
 * Keyset page request: items sorted by id, starting after `after`. The same cursor works on every
 * adapter, so a page token never depends on which store issued it.
 */
export interface PageRequest {
  limit: number;
  after?: string;
}

export interface Page<T> {
  items: T[];
  /** Id to continue after; absent on the last page. */
  nextAfter?: string;
}

export interface AccountStore {
  get(id: string): Promise<AccountRecord | undefined>;
  /** Accounts managed by a service provider. */
  listManagedBy(providerAccountId: string): Promise<AccountRecord[]>;
  upsert(account: AccountRecord): Promise<void>;
}

export interface WorkspaceStore {
  get(id: string): Promise<WorkspaceRecord | undefined>;
  /** The workspaces among these ids that exist, in no particular order. */
  getMany(ids: readonly string[]): Promise<WorkspaceRecord[]>;
  listByAccounts(accountIds: readonly string[]): Promise<WorkspaceRecord[]>;
  upsert(workspace: WorkspaceRecord): Promise<void>;
}

/**
 * Writes that carry an etag fail with ApiError CONFLICT when the document changed since it was read;
 * create fails with CONFLICT when the id exists.
 */
export interface ServiceAccountStore {
  get(id: string): Promise<Versioned<ServiceAccountRecord> | undefined>;
  list(accountIds: readonly string[], page: PageRequest): Promise<Page<ServiceAccountRecord>>;
  create(record: ServiceAccountRecord): Promise<Versioned<ServiceAccountRecord>>;
  replace(record: ServiceAccountRecord, etag: string): Promise<Versioned<ServiceAccountRecord>>;
  delete(id: string, etag: string): Promise<void>;
}

export interface UserFilter {
  /** Exact match, case-insensitive. */
  email?: string;
  role?: OrganizationalRole;
}

export interface UserStore {
  /** The user with this id in any of the accounts, if any. */
  find(accountIds: readonly string[], id: string): Promise<Versioned<UserRecord> | undefined>;
  findByEmail(accountId: string, email: string): Promise<UserRecord | undefined>;
  list(accountIds: readonly string[], filter: UserFilter, page: PageRequest): Promise<Page<UserRecord>>;
  create(record: UserRecord): Promise<Versioned<UserRecord>>;
  replace(record: UserRecord, etag: string): Promise<Versioned<UserRecord>>;
  delete(accountId: string, id: string, etag: string): Promise<void>;
}

export interface AuditStore {
  append(event: AuditEventRecord): Promise<void>;
  /** The newest events of an account, newest first. (The paged export comes with its endpoint.) */
  listRecent(accountId: string, limit: number): Promise<AuditEventRecord[]>;
}

export interface Stores {
  accounts: AccountStore;
  workspaces: WorkspaceStore;
  serviceAccounts: ServiceAccountStore;
  users: UserStore;
  audit: AuditStore;
}
