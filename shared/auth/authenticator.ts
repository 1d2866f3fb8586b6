import { ApiError } from "../errors/api-error";
import type { Logger } from "../logger";
import { organizationAccountIds } from "../organizations/organization-scope";
import type { Stores } from "../store/ports";
import { retryOnConflict } from "../store/read-modify-write";
import type { CredentialRecord, ServiceAccountRecord } from "../store/records";
import { parseBasic } from "./basic";
import type { Principal } from "./principal";
import type { Scope } from "./scopes";
import { hashSecret, hashesEqual } from "./secrets";

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
  organizationAccountIds: string[];
  loadedAt: number;
  /** Principals built from this load, per credential id: the account is a frozen snapshot, so they stay valid. */
  principals: Map<string, Principal>;
}

/** `lastUsedAt` is written at most this often per credential, so reads stay reads. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** A hash compared when the client id is unknown, so that an unknown id costs as much as a known one. */
const DECOY_HASH = "0".repeat(64);

/**
 * HTTP Basic authentication of service accounts. Every failure is the same 401, whatever the cause
 * (unknown id, wrong secret, revoked or expired credential, inactive account), so the answer is no
 * oracle. Service accounts are cached briefly per instance; a change made on this instance evicts
 * its entry at once.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(private readonly options: AuthenticatorOptions) {}

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const basic = parseBasic(authorization);
    if (!basic) throw unauthorized();
    const entry = await this.load(basic.clientId);
    const presented = hashSecret(this.options.secretHashKey, basic.clientSecret);
    const now = this.options.now();
    let match: CredentialRecord | undefined;
    for (const credential of entry?.account.credentials ?? []) {
      if (hashesEqual(credential.secretHash, presented)) match = credential;
    }
    if (!entry) hashesEqual(DECOY_HASH, presented);
    if (!entry || !match || !entry.account.isActive || !isUsable(match, now)) throw unauthorized();
    this.recordUse(entry.account.id, match.id, now);
    let principal = entry.principals.get(match.id);
    if (!principal) {
      principal = toPrincipal(entry, match);
      entry.principals.set(match.id, principal);
    }
    return principal;
  }

  /** Drops the cached copy of a service account after a change, so it takes effect at once. */
  evict(serviceAccountId: string): void {
    this.cache.delete(serviceAccountId);
  }

  private async load(rawClientId: string): Promise<CacheEntry | undefined> {
    // GUIDs compare case-insensitively; one spelling per account keeps eviction effective.
    const clientId = rawClientId.toLowerCase();
    const nowMs = Date.now();
    const cached = this.cache.get(clientId);
    if (cached && nowMs - cached.loadedAt < this.options.cacheTtlMs) return cached;
    // A client id that is not a GUID cannot name a service account; do not ask the store.
    if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(clientId)) return undefined;
    const found = await this.options.stores.serviceAccounts.get(clientId);
    if (!found) {
      this.cache.delete(clientId);
      return undefined;
    }
    const entry: CacheEntry = {
      account: found.value,
      organizationAccountIds: await organizationAccountIds(this.options.stores.accounts, found.value.accountId),
      loadedAt: nowMs,
      principals: new Map(),
    };
    if (this.options.cacheTtlMs > 0) this.cache.set(clientId, entry);
    return entry;
  }

  /** Records when a credential was last used, at most once a minute, off the request path. */
  private recordUse(serviceAccountId: string, credentialId: string, now: Date): void {
    const last = this.lastUsedWritten.get(credentialId);
    if (last !== undefined && now.getTime() - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(credentialId, now.getTime());
    void this.writeLastUsed(serviceAccountId, credentialId, now.toISOString()).catch((error: unknown) => {
      this.options.logger.warn("lastUsedAt update failed", { serviceAccountId, credentialId, error: String(error) });
    });
  }

  private async writeLastUsed(serviceAccountId: string, credentialId: string, at: string): Promise<void> {
    const store = this.options.stores.serviceAccounts;
    // Someone else may write the account meanwhile: a lost race is read again and reapplied.
    await retryOnConflict(
      async () => {
        const current = await store.get(serviceAccountId);
        if (!current) return;
        const draft = structuredClone(current.value);
        const credential = draft.credentials.find((c) => c.id === credentialId);
        if (!credential) return;
        credential.lastUsedAt = at;
        draft.lastUsedAt = at;
        await store.replace(draft, current.etag);
      },
      { maxAttempts: 3 },
    );
  }
}

function isUsable(credential: CredentialRecord, now: Date): boolean {
  return credential.status === "Active" && Date.parse(credential.expirationDate) > now.getTime();
}

function toPrincipal(entry: CacheEntry, credential: CredentialRecord): Principal {
  const account = entry.account;
  return {
    serviceAccountId: account.id,
    name: account.name,
    accountId: account.accountId,
    organizationalRole: account.organizationalRole,
    credentialId: credential.id,
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
