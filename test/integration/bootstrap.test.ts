import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBootstrap } from "../../scripts/bootstrap";
import { loadConfig } from "../../shared/platform/config/config";
import { startLocalServer } from "../../shared/hosts/local/local-server";
import { silentLogger } from "../../shared/platform/logger";
import { allRoutes } from "../../shared/api/route-groups";
import { createServices } from "../../shared/hosts/composition";
import { startCosmosServer, type CosmosServer } from "../support/cosmos-server";

let cosmos: CosmosServer;
let env: Record<string, string>;
beforeAll(async () => {
  cosmos = await startCosmosServer();
  env = {
    STORE: "cosmos",
    COSMOS_ENDPOINT: cosmos.endpoint,
    COSMOS_KEY: cosmos.key,
    COSMOS_DATABASE: "bootstrap-test",
    COSMOS_TRUST_SELF_SIGNED: "true",
    SECRET_HASH_KEY: randomBytes(32).toString("base64"),
    PAGE_TOKEN_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
  };
});
afterAll(async () => cosmos?.close());

describe("bootstrap", () => {
  it("creates the first admin in Cosmos, prints its secret once, and the secret authenticates against the service", async () => {
    const lines: string[] = [];
    const out = await runBootstrap(["--account-name", "Contoso"], env, (l) => lines.push(l));
    expect(lines.join("\n")).toContain(out.clientSecret!);
    expect(lines.filter((l) => l.includes(out.clientSecret!))).toHaveLength(1);

    const services = createServices(loadConfig(env), { logger: silentLogger });
    const server = await startLocalServer(services, allRoutes(), 0);
    try {
      const res = await fetch(`${server.url}/api/v2/service-accounts/${out.clientId}`, {
        headers: { authorization: `Basic ${Buffer.from(`${out.clientId}:${out.clientSecret}`).toString("base64")}` },
      });
      expect(res.status).toBe(200);
      const data = ((await res.json()) as { data: Record<string, unknown> }).data;
      expect(data).toMatchObject({ accountId: out.accountId, organizationalRole: "Admin", isPlatformManaged: true });
      const stored = await services.stores.serviceAccounts.get(out.clientId!);
      expect(JSON.stringify(stored)).not.toContain(out.clientSecret!);
    } finally {
      await server.close();
    }
  });

  it("refuses a second admin for the same account unless forced, and a missing account without a name", async () => {
    const first = await runBootstrap(["--account-name", "Fabrikam"], env, () => {});
    await expect(runBootstrap(["--account-id", first.accountId], env, () => {})).rejects.toThrow(/already has a platform-managed admin/);
    const forced = await runBootstrap(["--account-id", first.accountId, "--force"], env, () => {});
    expect(forced.clientId).not.toBe(first.clientId);
    await expect(runBootstrap([], env, () => {})).rejects.toThrow(/--account-name/);
    await expect(runBootstrap(["--account-name", "x"], { ...env, STORE: "memory" }, () => {})).rejects.toThrow(/STORE=cosmos/);
  });

  describe("the first person, as Admin", () => {
    const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const person = ["--admin-user-object-id", "5D3C1B2A-9E8F-4A7B-8C6D-1E2F3A4B5C6D", "--admin-user-email", "ana@contoso.example", "--admin-user-name", "Ana Lima"];
    const objectId = "5d3c1b2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d";

    it("registers them with the service account, Admin and Owner of the organization's workspaces, where the sign-in gate finds them", async () => {
      const services = createServices(loadConfig(env), { logger: silentLogger });
      const lines: string[] = [];
      const out = await runBootstrap(["--account-name", "Northwind", ...person, "--admin-user-tenant-id", tenant], env, (l) => lines.push(l));
      expect(out.clientId).toBeDefined();
      expect(out.adminUser).toEqual({ userId: objectId, outcome: "created" });
      expect(lines.at(-1)).toBe(`Registered Ana Lima <ana@contoso.example> (object id ${objectId}, tenant ${tenant}) as an Admin of account ${out.accountId}, Owner of 0 workspace(s): they can sign in to the portal.`);

      // The gate matches a signed-in person by tenant and object id, in any account.
      const [found] = await services.stores.users.findByDirectoryIdentity(tenant, objectId);
      expect(found).toMatchObject({ id: objectId, accountId: out.accountId, tenantId: tenant, email: "ana@contoso.example", displayName: "Ana Lima", organizationalRole: "Admin", isActive: true, workspaceAssignments: [] });
    });

    it("changes nothing on a second run and says so; a later workspace or a new name is an update", async () => {
      const services = createServices(loadConfig(env), { logger: silentLogger });
      const first = await runBootstrap(["--account-name", "Tailspin", ...person, "--admin-user-tenant-id", tenant], env, () => {});
      const before = await services.stores.users.find([first.accountId], objectId);

      const lines: string[] = [];
      const again = await runBootstrap(["--account-id", first.accountId, ...person, "--admin-user-tenant-id", tenant], env, (l) => lines.push(l));
      // The account's admin service account exists: no second one, and no refusal either.
      expect(again).toEqual({ accountId: first.accountId, adminUser: { userId: objectId, outcome: "unchanged" } });
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^Account ${first.accountId} already has a platform-managed admin \\(${first.clientId}\\): no service account created`)),
        `Ana Lima <ana@contoso.example> (object id ${objectId}, tenant ${tenant}) is already an Admin of account ${first.accountId}: nothing changed.`,
      ]);
      expect((await services.stores.users.find([first.accountId], objectId))!.etag).toBe(before!.etag);
      expect((await services.stores.serviceAccounts.list([first.accountId], { limit: 10 })).items).toHaveLength(1);

      const workspaceId = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
      await services.stores.workspaces.upsert({ id: workspaceId, name: "Tailspin SOC", tenantId: tenant, accountId: first.accountId });
      const renamed = await runBootstrap(["--account-id", first.accountId, ...person.slice(0, 4), "--admin-user-name", "Ana L.", "--admin-user-tenant-id", tenant], env, () => {});
      expect(renamed.adminUser).toEqual({ userId: objectId, outcome: "updated" });
      expect((await services.stores.users.find([first.accountId], objectId))!.value).toMatchObject({
        displayName: "Ana L.",
        workspaceAssignments: [{ workspaceId, role: "Owner" }],
        createdAt: before!.value.createdAt,
      });
    });

    it("takes the tenant from PORTAL_TENANT_ID, and refuses what cannot be a person before it connects to anything", async () => {
      const out = await runBootstrap(["--account-name", "Wingtip", ...person], { ...env, PORTAL_TENANT_ID: tenant.toUpperCase() }, () => {});
      expect(out.adminUser?.outcome).toBe("created");
      const services = createServices(loadConfig(env), { logger: silentLogger });
      expect((await services.stores.users.find([out.accountId], objectId))!.value.tenantId).toBe(tenant);

      // STORE=memory would stop the run itself: each refusal below comes first, from the flags alone.
      const refused = (argv: string[], why: RegExp, extra: Record<string, string> = {}) =>
        expect(runBootstrap(["--account-name", "Refused", ...argv], { ...env, STORE: "memory", ...extra }, () => {})).rejects.toThrow(why);
      await refused(person, /--admin-user-tenant-id is needed/);
      await refused(person, /--admin-user-tenant-id is needed/, { PORTAL_TENANT_ID: "organizations" });
      await refused([...person, "--admin-user-tenant-id", "contoso.example"], /must be a tenant id/);
      await refused(["--admin-user-object-id", "ana", "--admin-user-email", "ana@contoso.example"], /a GUID/);
      await refused(["--admin-user-object-id", objectId, "--admin-user-tenant-id", tenant], /--admin-user-email is needed/);
      await refused(["--admin-user-email", "ana@contoso.example"], /need --admin-user-object-id/);
      await refused([...person, "--admin-user-tenant-id", tenant], /STORE=cosmos/);
    });

    it("refuses an address another user of the account already has", async () => {
      const first = await runBootstrap(["--account-name", "Adatum", ...person, "--admin-user-tenant-id", tenant], env, () => {});
      const other = ["--admin-user-object-id", "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", "--admin-user-email", "ANA@contoso.example", "--admin-user-tenant-id", tenant];
      await expect(runBootstrap(["--account-id", first.accountId, ...other], env, () => {})).rejects.toThrow(/Another user of account .* has the e-mail address/);
    });
  });
});
