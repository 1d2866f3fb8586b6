import { ApiError } from "../errors/api-error";
import type { Logger } from "../logger";
import { organizationAccountIds } from "./organization-scope";
import { isActiveAccount } from "../../model/organizations/account";
import type { Stores } from "../store/ports";
import { commit } from "../store/commit";
import type { CredentialRecord, ServiceAccountRecord } from "../../model/organizations/service-account";
import type { Versioned } from "../store/ports";
import { parseBasic } from "./basic";
import type { Principal } from "./principal";
import type { Scope } from "./scopes";
import { digestsEqual, SecretHasher } from "./secrets";

export interface AuthenticatorOptions {
  stores: Stores;
  secretHashKey: Buffer;
  /** How long a loaded service account is reused before it is read again. 0 disables the cache. */
  cacheTtlMs: number;
  now: () => Date;
  logger: Logger;
}

interface CacheEntry {
  account: ServiceAccountRecord;
  /** The version loaded, which a `lastUsedAt` write in the same request starts from. */
  etag: string;
  /** Whether the organization it belongs to is active: a deactivated one's service accounts are refused. */
  organizationActive: boolean;
  /** The account's credentials, in its order, with what each request compares worked out once per load. */
  credentials: LoadedCredential[];
  organizationAccountIds: string[];
  loadedAt: number;
  /** Principals built from this load, per credential id: the account is a frozen snapshot, so they stay valid. */
  principals: Map<string, Principal>;
}

interface LoadedCredential {
  record: CredentialRecord;
  /** The stored hash as bytes. */
  hash: Buffer;
  expiresAtMs: number;
}

/** `lastUsedAt` is written at most this often per credential, so reads stay reads. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** A hash compared when the client id is unknown, so that an unknown id costs as much as a known one. */
const DECOY_HASH = Buffer.alloc(32);

/**
 * HTTP Basic authentication of service accounts. Every failure is the same 401, whatever the cause
 * (unknown id, wrong secret, revoked or expired credential, inactive account), so the answer is no
 * oracle. Service accounts are cached briefly per instance; a change made on this instance evicts
 * its entry at once.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly hasher: SecretHasher;

  constructor(private readonly options: AuthenticatorOptions) {
    this.hasher = new SecretHasher(options.secretHashKey);
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const basic = parseBasic(authorization);
    if (!basic) throw unauthorized();
    // GUIDs compare case-insensitively; one spelling per account keeps eviction effective.
    const clientId = basic.clientId.toLowerCase();
    const cached = this.cache.get(clientId);
    const fresh = !(cached && Date.now() - cached.loadedAt < this.options.cacheTtlMs);
    const entry = fresh ? await this.load(clientId) : cached;
    const presented = this.hasher.digest(basic.clientSecret);
    const now = this.options.now();
    let match: LoadedCredential | undefined;
    for (const credential of entry?.credentials ?? []) {
      if (digestsEqual(credential.hash, presented)) match = credential;
    }
    if (!entry) digestsEqual(DECOY_HASH, presented);
    if (!entry || !match || !entry.account.isActive || !entry.organizationActive || !isUsable(match, now)) throw unauthorized();
    // An account loaded by this request is current: the write needs no read of its own first.
    this.recordUse(entry.account.id, match.record.id, now, fresh ? { value: entry.account, etag: entry.etag } : undefined);
    let principal = entry.principals.get(match.record.id);
    if (!principal) {
      principal = toPrincipal(entry, match.record);
      entry.principals.set(match.record.id, principal);
    }
    return principal;
  }

  /** Drops the cached copy of a service account after a change, so it takes effect at once. */
  evict(serviceAccountId: string): void {
    this.cache.delete(serviceAccountId);
  }

  /**
   * Drops every cached service account whose organization includes the account, after the account
   * changed (created under a provider, deactivated, reactivated), so it takes effect at once here.
   */
  evictOrganization(accountId: string): void {
    for (const [clientId, entry] of this.cache) if (entry.organizationAccountIds.includes(accountId)) this.cache.delete(clientId);
  }

  private async load(clientId: string): Promise<CacheEntry | undefined> {
    // A client id that is not a GUID cannot name a service account; do not ask the store.
    if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(clientId)) return undefined;
    const loadedAt = Date.now();
    const found = await this.options.stores.serviceAccounts.get(clientId);
    if (!found) {
      this.cache.delete(clientId);
      return undefined;
    }
    const [organization, owner] = await Promise.all([
      organizationAccountIds(this.options.stores.accounts, found.value.accountId),
      this.options.stores.accounts.get(found.value.accountId),
    ]);
    const entry: CacheEntry = {
      account: found.value,
      etag: found.etag,
      organizationActive: !owner || isActiveAccount(owner),
      credentials: found.value.credentials.map((record) => ({
        record,
        hash: Buffer.from(record.secretHash, "hex"),
        expiresAtMs: Date.parse(record.expirationDate),
      })),
      organizationAccountIds: organization,
      loadedAt,
      principals: new Map(),
    };
    if (this.options.cacheTtlMs > 0) this.cache.set(clientId, entry);
    return entry;
  }

  /** Records when a credential was last used, at most once a minute, off the request path. */
  private recordUse(serviceAccountId: string, credentialId: string, now: Date, loaded: Versioned<ServiceAccountRecord> | undefined): void {
    const last = this.lastUsedWritten.get(credentialId);
    if (last !== undefined && now.getTime() - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(credentialId, now.getTime());
    // The service's own bookkeeping, not the request's change: no deadline of the request's applies.
    void this.writeLastUsed(serviceAccountId, credentialId, now.toISOString(), loaded).catch((error: unknown) => {
      this.options.logger.warn("lastUsedAt update failed", { serviceAccountId, credentialId, error: String(error) });
    });
  }

  private async writeLastUsed(serviceAccountId: string, credentialId: string, at: string, loaded: Versioned<ServiceAccountRecord> | undefined): Promise<void> {
    const store = this.options.stores.serviceAccounts;
    // Someone else may write the account meanwhile: a lost race is read again and reapplied. The
    // first attempt starts from the version this request loaded, when it loaded one (a cold start's
    // first request): a write on it fails if the account changed since, like one on a fresh read.
    await commit({
      deadline: undefined,
      async read(attempt) {
        const current = attempt === 1 && loaded ? loaded : await store.get(serviceAccountId);
        return current?.value.credentials.some((c) => c.id === credentialId) ? current : null;
      },
      change(draft) {
        draft.credentials.find((c) => c.id === credentialId)!.lastUsedAt = at;
        draft.lastUsedAt = at;
      },
      write: (draft, etag) => store.replace(draft, etag!),
      maxAttempts: 3,
    });
  }
}

function isUsable(credential: LoadedCredential, now: Date): boolean {
  // An unparseable expiry is NaN, which is never later than now: not usable.
  return credential.record.status === "Active" && credential.expiresAtMs > now.getTime();
}

function toPrincipal(entry: CacheEntry, credential: CredentialRecord): Principal {
  const account = entry.account;
  return {
    serviceAccountId: account.id,
    name: account.name,
    accountId: account.accountId,
    organizationalRole: account.organizationalRole,
    credentialId: credential.id,
    rateLimitKey: `credential:${credential.id}`,
    scopes: new Set(credential.scopes as Scope[]),
    workspaceRoles: new Map(account.workspaceAssignments.map((a) => [a.workspaceId, a.role])),
    organizationAccountIds: entry.organizationAccountIds,
  };
}

function unauthorized(): ApiError {
  return new ApiError("UNAUTHORIZED", "Authenticate with HTTP Basic: the service account id and an active client secret.", {
    headers: { "WWW-Authenticate": 'Basic realm="api", charset="UTF-8"' },
  });
}
