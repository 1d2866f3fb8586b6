import { auditEvent as auditEventFixture } from "../support/audit-events";
import { describe, expect, it, vi } from "vitest";
import type { AuditEventRecord } from "../../shared/model/audit/audit-event";
import { createStores } from "../../shared/hosts/composition";
import { ConfigError, loadConfig } from "../../shared/platform/config/config";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { sources } from "../../shared/model/sources";

describe("configuration", () => {
  it("has embedded defaults that need no setting at all", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 7071, store: "memory", principalCacheTtlMs: 30_000 });
    expect(config.secretHashKey).toHaveLength(32);
  });

  it("refuses a Cosmos store without its endpoint and stable keys, naming each setting", () => {
    expect(() => loadConfig({ STORE: "cosmos" })).toThrow(ConfigError);
    try {
      loadConfig({ STORE: "cosmos" });
    } catch (error) {
      expect((error as Error).message).toMatch(/COSMOS_ENDPOINT/);
      expect((error as Error).message).toMatch(/SECRET_HASH_KEY/);
      expect((error as Error).message).toMatch(/PAGE_TOKEN_KEY/);
      expect((error as Error).message).toMatch(/WEBHOOK_SECRETS_KEY/);
    }
  });

  it("reads each source's settings under the names deployments set (SOURCE_A_… for the first source, in the contract's order)", () => {
    const letters = ["A", "B", "C", "D", "E", "F", "G"];
    expect(sources).toHaveLength(letters.length);
    const env = Object.fromEntries(
      letters.flatMap((x, i) => [
        [`SOURCE_${x}_URL`, `https://bridge.example/${x}`],
        [`SOURCE_${x}_AUTH_HEADER`, `Bearer ${x}`],
        [`SOURCE_${x}_TIMEOUT_MS`, String(1000 + i)],
        [`SOURCE_${x}_MAX_CONCURRENCY`, String(10 + i)],
        [`SOURCE_${x}_MAX_RPS`, String(20 + i)],
      ]),
    );
    const config = loadConfig(env);
    sources.forEach((source, i) => {
      const x = letters[i]!;
      expect(config.httpSources[source]).toEqual({ baseUrl: `https://bridge.example/${x}`, authHeader: `Bearer ${x}`, timeoutMs: 1000 + i });
      expect(config.sourceLimits[source]).toEqual({ maxConcurrency: 10 + i, maxRequestsPerSecond: 20 + i });
    });
    expect(loadConfig({}).httpSources).toEqual({});
    expect(loadConfig({ SOURCE_B_DISPLAY_NAME: "  Falconridge XDR " }).sourceDisplayNames).toEqual({ SourceB: "Falconridge XDR" });
    expect(loadConfig({}).sourceDisplayNames).toEqual({});
    expect(() => loadConfig({ SOURCE_C_DISPLAY_NAME: "x".repeat(65) })).toThrow(/SOURCE_C_DISPLAY_NAME/);
    expect(loadConfig({}).sourceLimits[sources[0]]).toEqual({ maxConcurrency: 32, maxRequestsPerSecond: undefined });
    expect(() => loadConfig({ SOURCE_G_MAX_RPS: "0" })).toThrow(/SOURCE_G_MAX_RPS/);
    // Limits per vendor tenant only where the deployment sets them: a tenant's concurrency defaults to the source's.
    expect(loadConfig({ SOURCE_B_TENANT_MAX_CONCURRENCY: "4", SOURCE_B_TENANT_MAX_RPS: "2.5" }).sourceLimits.SourceB.perTenant).toEqual({ maxConcurrency: 4, maxRequestsPerSecond: 2.5 });
    expect(loadConfig({ SOURCE_B_MAX_CONCURRENCY: "12", SOURCE_B_TENANT_MAX_RPS: "1" }).sourceLimits.SourceB.perTenant).toEqual({ maxConcurrency: 12, maxRequestsPerSecond: 1 });
    expect(loadConfig({ SOURCE_B_TENANT_MAX_CONCURRENCY: "4" }).sourceLimits.SourceA.perTenant).toBeUndefined();
    expect(() => loadConfig({ SOURCE_C_TENANT_MAX_CONCURRENCY: "0" })).toThrow(/SOURCE_C_TENANT_MAX_CONCURRENCY/);
  });

  it("keeps audit events AUDIT_RETENTION_DAYS from their recording, a year unless set and at most Cosmos's largest ttl, and builds the stores with it", async () => {
    expect(loadConfig({}).auditRetentionDays).toBe(365);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: "2555" }).auditRetentionDays).toBe(2555);
    for (const value of ["0", "24856", "1.5", "a year"]) expect(() => loadConfig({ AUDIT_RETENTION_DAYS: value }), value).toThrow(/AUDIT_RETENTION_DAYS/);

    vi.useFakeTimers({ now: Date.parse("2026-11-26T10:00:00.000Z") });
    try {
      const { audit } = createStores(loadConfig({ AUDIT_RETENTION_DAYS: "2" }));
      await audit.append({ ...auditEvent, id: "e1" });
      vi.setSystemTime(Date.parse("2026-11-28T09:59:59.999Z"));
      expect((await audit.listRecent("acct-1", 10)).map((e) => e.id)).toEqual(["e1"]);
      vi.setSystemTime(Date.parse("2026-11-28T10:00:00.000Z"));
      expect(await audit.listRecent("acct-1", 10)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses short keys and malformed values", () => {
    expect(() => loadConfig({ SECRET_HASH_KEY: "c2hvcnQ=" })).toThrow(/SECRET_HASH_KEY/);
    expect(() => loadConfig({ PORT: "http" })).toThrow(/PORT/);
    expect(() => loadConfig({ LOCAL_ADMIN_CLIENT_ID: "admin" })).toThrow(/LOCAL_ADMIN_CLIENT_ID/);
  });

  it("refuses a Key Vault reference the platform left unresolved, naming each setting and never its value", () => {
    const reference = "@Microsoft.KeyVault(VaultName=kv-abc;SecretName=source-a-auth-header)";
    const key = Buffer.alloc(32, 1).toString("base64");
    const env = {
      STORE: "cosmos",
      COSMOS_ENDPOINT: "https://cosmos-abc.documents.azure.com:443/",
      SECRET_HASH_KEY: "@Microsoft.KeyVault(VaultName=kv-abc;SecretName=secret-hash-key)",
      PAGE_TOKEN_KEY: key,
      WEBHOOK_SECRETS_KEY: key,
      SOURCE_A_URL: "https://bridge.example/a",
      SOURCE_A_AUTH_HEADER: reference,
      TICKETING_URL: "https://tickets.example",
      TICKETING_AUTH_HEADER: " @microsoft.keyvault (SecretUri=https://kv-abc.vault.azure.net/secrets/ticketing-auth-header/)",
    };
    let message = "";
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message.split("\n").slice(1).map((line) => line.trim().split(":")[0])).toEqual(["SECRET_HASH_KEY", "SOURCE_A_AUTH_HEADER", "TICKETING_AUTH_HEADER"]);
    expect(message).toContain("Key Vault reference the platform could not resolve");
    expect(message).not.toMatch(/VaultName|SecretName|SecretUri|kv-abc|auth-header\)/);
    // Resolved, the same settings are accepted; a setting the service does not read is not its business.
    expect(loadConfig({ ...env, SECRET_HASH_KEY: key, SOURCE_A_AUTH_HEADER: "Bearer a", TICKETING_AUTH_HEADER: "Bearer t" }).httpSources).toHaveProperty("SourceA");
    expect(() => loadConfig({ SOME_OTHER_SETTING: reference })).not.toThrow();
    // Text that merely mentions a reference is a value like any other.
    expect(loadConfig({ SOURCE_A_URL: "https://bridge.example/a", SOURCE_A_AUTH_HEADER: `Bearer ${reference}` }).httpSources.SourceA?.authHeader).toBe(`Bearer ${reference}`);
  });

  it("derives the same demo ids from the same seed, and other ids from another", () => {
    const a = buildDemoData("seed-1", new Date());
    const b = buildDemoData("seed-1", new Date(0));
    const c = buildDemoData("seed-2", new Date());
    const ids = (d: typeof a) => [d.provider.id, ...d.customers.map((x) => x.id), ...d.workspaces.map((w) => w.id), ...d.users.map((u) => u.id)];
    expect(ids(a)).toEqual(ids(b));
    expect(ids(a).filter((id) => ids(c).includes(id))).toEqual([]);
    expect(a.workspaces.length).toBeGreaterThanOrEqual(4);
    expect(new Set(a.workspaces.map((w) => w.accountId)).size).toBeGreaterThanOrEqual(2);
    for (const id of ids(a)) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

const auditEvent: AuditEventRecord = auditEventFixture("", { timeGenerated: "2026-11-26T10:00:00.000Z" });
