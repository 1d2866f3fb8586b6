/**
 * `npm run bootstrap -- --account-name "Contoso" [--account-id GUID] [--name "Platform admin"] [--force]
 *    [--admin-user-object-id GUID --admin-user-email ADDRESS [--admin-user-name NAME] [--admin-user-tenant-id GUID]]`
 *
 * How a real deployment gets its first credential: creates the organization's account record if it is
 * missing and a platform-managed Admin service account with every scope in the configured Cosmos
 * database, and prints its client id and secret once. Reads the same settings as the service
 * (STORE=cosmos, COSMOS_ENDPOINT, COSMOS_KEY or managed identity, SECRET_HASH_KEY, PAGE_TOKEN_KEY).
 *
 * With `--admin-user-object-id` it also registers the first person who signs in to the portal, as an
 * Admin with the Owner role on the organization's workspaces: their directory object id, e-mail
 * address, name (default: the address) and tenant (default: PORTAL_TENANT_ID). That part is
 * idempotent: a run that finds the person registered as asked writes nothing and says so. An account
 * that already has its admin service account then gets no second one (unless `--force`), instead of
 * stopping the run.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../shared/platform/config/config";
import { ensureAdminAccount } from "../shared/domain/organizations/admin-account";
import { ensureAdminPerson, type AdminPersonResult } from "../shared/domain/organizations/admin-person";
import { organizationAccountIds } from "../shared/platform/auth/organization-scope";
import { createServices } from "../shared/hosts/composition";
import { createCosmosClient } from "../shared/platform/store/cosmos/cosmos-client";
import { ensureContainers } from "../shared/platform/store/cosmos/containers";
import { createCosmosStores } from "../shared/platform/store/cosmos/cosmos-stores";
import { silentLogger } from "../shared/platform/logger";

export interface BootstrapOutput {
  accountId: string;
  /** The admin service account created by this run; absent when the account had one already. */
  clientId?: string;
  clientSecret?: string;
  /** The person registered as Admin, when one was asked for. */
  adminUser?: AdminPersonResult;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function runBootstrap(argv: string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<BootstrapOutput> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "account-id": { type: "string" },
      "account-name": { type: "string" },
      name: { type: "string", default: "Platform admin" },
      force: { type: "boolean", default: false },
      "admin-user-object-id": { type: "string" },
      "admin-user-tenant-id": { type: "string" },
      "admin-user-email": { type: "string" },
      "admin-user-name": { type: "string" },
    },
    strict: true,
  });
  const adminUser = adminUserOf(values, env);
  const config = loadConfig(env);
  if (config.store !== "cosmos") throw new ConfigError("bootstrap writes to a durable store: set STORE=cosmos and COSMOS_ENDPOINT.");

  const client = createCosmosClient(config.cosmos);
  // With a key the database and containers can be created here; with managed identity Bicep made them.
  const database = config.cosmos.key ? await ensureContainers(client, config.cosmos.database) : client.database(config.cosmos.database);
  const services = createServices(config, { stores: createCosmosStores(database, { audit: { retentionDays: config.auditRetentionDays } }), logger: silentLogger });
  const { accounts, serviceAccounts, workspaces } = services.stores;

  const accountId = (values["account-id"] ?? randomUUID()).toLowerCase();
  const account = await accounts.get(accountId);
  if (!account) {
    if (!values["account-name"]) throw new ConfigError(`Account ${accountId} does not exist: give --account-name to create it.`);
    await accounts.upsert({ id: accountId, name: values["account-name"], kind: "ServiceProvider", managedByAccountId: null });
  }
  const existing = await serviceAccounts.list([accountId], { limit: 1000 });
  const admins = existing.items.filter((sa) => sa.isPlatformManaged && sa.organizationalRole === "Admin");
  const hasAdmin = admins.length > 0 && !values.force;
  const message = `Account ${accountId} already has a platform-managed admin (${admins.map((a) => a.id).join(", ")})`;
  // Alone, a second admin is what the run is for, and refusing it says why; with a person to register,
  // the existing admin is the usual case (the first provision created it) and the person is the point.
  if (hasAdmin && !adminUser) throw new ConfigError(`${message}; use --force to add another.`);
  const workspaceIds = (await workspaces.listByAccounts(await organizationAccountIds(accounts, accountId))).map((w) => w.id);

  const output: BootstrapOutput = { accountId };
  if (hasAdmin) {
    print(`${message}: no service account created (--force adds another).`);
  } else {
    const admin = await ensureAdminAccount(services, { accountId, name: values.name, workspaceIds });
    print(`Created platform-managed Admin service account in account ${accountId} (database ${config.cosmos.database}).`);
    print(`  clientId:     ${admin.clientId}`);
    print(`  clientSecret: ${admin.clientSecret}`);
    print("The secret is shown only now and stored only as a keyed hash: keep it in your secret store.");
    Object.assign(output, { clientId: admin.clientId, clientSecret: admin.clientSecret });
  }

  if (adminUser) {
    const result = await ensureAdminPerson(services, { accountId, ...adminUser, workspaceIds });
    const who = `${adminUser.displayName} <${adminUser.email}> (object id ${result.userId}, tenant ${adminUser.tenantId.toLowerCase()})`;
    print(
      result.outcome === "unchanged"
        ? `${who} is already an Admin of account ${accountId}: nothing changed.`
        : `${result.outcome === "created" ? "Registered" : "Updated"} ${who} as an Admin of account ${accountId}, Owner of ${workspaceIds.length} workspace(s): they can sign in to the portal.`,
    );
    output.adminUser = result;
  }
  return output;
}

/** The person to register, from the flags; checked before anything is read or written. */
function adminUserOf(
  values: { "admin-user-object-id"?: string; "admin-user-tenant-id"?: string; "admin-user-email"?: string; "admin-user-name"?: string },
  env: NodeJS.ProcessEnv,
): { objectId: string; tenantId: string; email: string; displayName: string } | undefined {
  const objectId = values["admin-user-object-id"];
  if (objectId === undefined) {
    const stray = (["admin-user-tenant-id", "admin-user-email", "admin-user-name"] as const).filter((flag) => values[flag] !== undefined);
    if (stray.length > 0) throw new ConfigError(`${stray.map((f) => `--${f}`).join(", ")} need --admin-user-object-id: the person's directory object id.`);
    return undefined;
  }
  if (!GUID.test(objectId)) throw new ConfigError("--admin-user-object-id must be the person's directory object id, a GUID.");
  // PORTAL_TENANT_ID may name a domain or `organizations`; a person's tenant is always one directory's id.
  const tenantId = values["admin-user-tenant-id"] ?? (GUID.test(env.PORTAL_TENANT_ID ?? "") ? env.PORTAL_TENANT_ID! : undefined);
  if (tenantId === undefined) throw new ConfigError("--admin-user-tenant-id is needed: the person's tenant id (a GUID), which PORTAL_TENANT_ID does not give.");
  if (!GUID.test(tenantId)) throw new ConfigError("--admin-user-tenant-id must be a tenant id, a GUID.");
  const email = values["admin-user-email"]?.trim();
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new ConfigError("--admin-user-email is needed with --admin-user-object-id: the person's e-mail address.");
  const displayName = values["admin-user-name"]?.trim() || email;
  return { objectId, tenantId, email, displayName };
}

if (require.main === module) {
  runBootstrap(process.argv.slice(2), process.env, (line) => process.stdout.write(line + "\n")).catch((error: unknown) => {
    process.stderr.write(`bootstrap failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
