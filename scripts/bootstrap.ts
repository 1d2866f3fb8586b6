/**
 * `npm run bootstrap -- --account-name "Contoso" [--account-id GUID] [--name "Platform admin"] [--force]`
 *
 * How a real deployment gets its first credential: creates the organization's account record if it is
 * missing and a platform-managed Admin service account with every scope in the configured Cosmos
 * database, and prints its client id and secret once. Reads the same settings as the service
 * (STORE=cosmos, COSMOS_ENDPOINT, COSMOS_KEY or managed identity, SECRET_HASH_KEY, PAGE_TOKEN_KEY).
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../shared/platform/config/config";
import { ensureAdminAccount } from "../shared/domain/organizations/admin-account";
import { organizationAccountIds } from "../shared/domain/organizations/organization-scope";
import { createServices } from "../shared/hosts/composition";
import { createCosmosClient } from "../shared/platform/store/cosmos/cosmos-client";
import { ensureContainers } from "../shared/platform/store/cosmos/containers";
import { createCosmosStores } from "../shared/platform/store/cosmos/cosmos-stores";
import { silentLogger } from "../shared/platform/logger";

export interface BootstrapOutput {
  accountId: string;
  clientId: string;
  clientSecret: string;
}

export async function runBootstrap(argv: string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<BootstrapOutput> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "account-id": { type: "string" },
      "account-name": { type: "string" },
      name: { type: "string", default: "Platform admin" },
      force: { type: "boolean", default: false },
    },
    strict: true,
  });
  const config = loadConfig(env);
  if (config.store !== "cosmos") throw new ConfigError("bootstrap writes to a durable store: set STORE=cosmos and COSMOS_ENDPOINT.");

  const client = createCosmosClient(config.cosmos);
  // With a key the database and containers can be created here; with managed identity Bicep made them.
  const database = config.cosmos.key ? await ensureContainers(client, config.cosmos.database) : client.database(config.cosmos.database);
  const services = createServices(config, { stores: createCosmosStores(database), logger: silentLogger });
  const { accounts, serviceAccounts, workspaces } = services.stores;

  const accountId = (values["account-id"] ?? randomUUID()).toLowerCase();
  const account = await accounts.get(accountId);
  if (!account) {
    if (!values["account-name"]) throw new ConfigError(`Account ${accountId} does not exist: give --account-name to create it.`);
    await accounts.upsert({ id: accountId, name: values["account-name"], kind: "ServiceProvider", managedByAccountId: null });
  }
  const existing = await serviceAccounts.list([accountId], { limit: 1000 });
  const admins = existing.items.filter((sa) => sa.isPlatformManaged && sa.organizationalRole === "Admin");
  if (admins.length > 0 && !values.force) {
    throw new ConfigError(
      `Account ${accountId} already has a platform-managed admin (${admins.map((a) => a.id).join(", ")}); use --force to add another.`,
    );
  }
  const orgWorkspaces = await workspaces.listByAccounts(await organizationAccountIds(accounts, accountId));
  const admin = await ensureAdminAccount(services, {
    accountId,
    name: values.name,
    workspaceIds: orgWorkspaces.map((w) => w.id),
  });
  print(`Created platform-managed Admin service account in account ${accountId} (database ${config.cosmos.database}).`);
  print(`  clientId:     ${admin.clientId}`);
  print(`  clientSecret: ${admin.clientSecret}`);
  print("The secret is shown only now and stored only as a keyed hash: keep it in your secret store.");
  return { accountId, clientId: admin.clientId, clientSecret: admin.clientSecret };
}

if (require.main === module) {
  runBootstrap(process.argv.slice(2), process.env, (line) => process.stdout.write(line + "\n")).catch((error: unknown) => {
    process.stderr.write(`bootstrap failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
