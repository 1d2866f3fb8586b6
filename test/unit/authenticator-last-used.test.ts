import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Authenticator } from "../../shared/platform/auth/authenticator";
import { hashSecret } from "../../shared/platform/auth/secrets";
import { silentLogger } from "../../shared/platform/logger";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import type { Stores } from "../../shared/platform/store/ports";
import type { ServiceAccountRecord } from "../../shared/model/organizations/service-account";

/*
 * A cold authentication writes the credential's `lastUsedAt` on the version it has just loaded,
 * without reading the account again; a change written in between must not be lost by that write.
 */
const key = randomBytes(32);
const secret = "soms_" + randomBytes(32).toString("base64url");
const now = new Date("2026-03-02T09:00:00.000Z");

function account(): ServiceAccountRecord {
  const at = "2026-03-01T09:00:00.000Z";
  return {
    id: randomUUID(),
    accountId: randomUUID(),
    name: "probe",
    description: "before",
    isActive: true,
    isPlatformManaged: false,
    organizationalRole: "Admin",
    workspaceAssignments: [],
    credentials: [
      { id: randomUUID(), secretHash: hashSecret(key, secret), clientSecretPrefix: secret.slice(0, 11), status: "Active", expirationDate: "2027-03-01T09:00:00.000Z", lastUsedAt: null, createdAt: at, revokedAt: null, scopes: [] },
    ],
    lastUsedAt: null,
    createdAt: at,
    lastModifiedAt: at,
  };
}

function authenticator(stores: Stores): Authenticator {
  return new Authenticator({ stores, secretHashKey: key, cacheTtlMs: 60_000, now: () => now, logger: silentLogger });
}

const basic = (id: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

async function lastUsedWritten(stores: Stores, id: string): Promise<ServiceAccountRecord> {
  for (let i = 0; i < 100; i++) {
    const found = (await stores.serviceAccounts.get(id))!.value;
    if (found.lastUsedAt !== null) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("lastUsedAt was never written");
}

describe("Authenticator: lastUsedAt on a cold load", () => {
  it("writes on the version it loaded: one read of the account in all", async () => {
    const stores = createMemoryStores();
    const record = account();
    await stores.serviceAccounts.create(record);
    let reads = 0;
    const get = stores.serviceAccounts.get.bind(stores.serviceAccounts);
    stores.serviceAccounts.get = (id) => ((reads += 1), get(id));
    await authenticator(stores).authenticate(basic(record.id));
    stores.serviceAccounts.get = get;
    const written = await lastUsedWritten(stores, record.id);
    expect(written.credentials[0]!.lastUsedAt).toBe(now.toISOString());
    expect(reads).toBe(1);
  });

  it("keeps a change written between the load and its write: the lost race is read again and reapplied", async () => {
    const stores = createMemoryStores();
    const record = account();
    await stores.serviceAccounts.create(record);
    const get = stores.serviceAccounts.get.bind(stores.serviceAccounts);
    let changed = false;
    stores.serviceAccounts.get = async (id) => {
      const found = await get(id);
      if (found && !changed) {
        // Someone else writes the account right after authentication has read it.
        changed = true;
        await stores.serviceAccounts.replace({ ...found.value, description: "after" }, found.etag);
      }
      return found;
    };
    await authenticator(stores).authenticate(basic(record.id));
    const written = await lastUsedWritten(stores, record.id);
    expect(written.description).toBe("after");
    expect(written.credentials[0]!.lastUsedAt).toBe(now.toISOString());
  });
});
