/**
 * The azd hooks of azure.yaml (run by scripts/azd-hook.mjs, with the azd environment's values as
 * environment variables: main.bicep's outputs, AZURE_SUBSCRIPTION_ID, and whatever `azd env set` put there).
 *
 * preprovision: after `azd down` the environment's Key Vault is soft-deleted (purge protection keeps
 * it, and its name, for 90 days); creating it again would fail, so KEY_VAULT_CREATE_MODE=recover
 * makes the next deployment recover it, keys included. A JSON variable left empty (CLOUD_SUBSCRIPTIONS,
 * …) becomes `{}`, which azd accepts; EXTRA_APP_SETTINGS is checked before anything is deployed; and the
 * availability test is kept off while the environment has no app (a first `azd up`, or after `azd down`).
 *
 * postprovision: creates each key the app needs (SECRET_HASH_KEY..., PORTAL_SESSION_KEY) in Key Vault if
 * it is missing — 32 random bytes, never printed —, warns about a configured bridge (vendor, playbook
 * automation, ticketing) whose Authorization header secret is missing, prints the Microsoft Graph
 * grant the directory logs need and, until the portal's sign-in is set up, the commands that register
 * it in Entra ID and require MFA (no deployment can make either), restarts the app when keys were
 * created (Key Vault references resolve at start), and with BOOTSTRAP_ACCOUNT_NAME set creates the
 * organization's first admin once (scripts/bootstrap.ts), and the first person as Admin when
 * BOOTSTRAP_ADMIN_USER_OBJECT_ID names one.
 *
 * postdeploy: turns the availability test of /api/v2/health on once the code is deployed, and records
 * it (AVAILABILITY_TEST_ENABLED=true) so that later provisions keep it on.
 *
 * Key Vault and Azure Resource Manager are called over their REST APIs with azd's own sign-in
 * (AzureDeveloperCliCredential): nothing else needs installing or logging in to.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { isApiError } from "../shared/platform/errors/api-error";
import { ConfigError, configSettingNames, loadConfig } from "../shared/platform/config/config";
import type { BootstrapOutput } from "./bootstrap";
import { sourceSettingKey, sources } from "../shared/model/sources";

const KEY_VAULT_API = "7.4";

/** Per cloud (environment().name): the audience of a managed identity's federated tokens, and Microsoft Graph. */
const CLOUD_SERVICES: Record<string, { tokenExchangeAudience: string; graphBaseUrl: string }> = {
  AzureCloud: { tokenExchangeAudience: "api://AzureADTokenExchange", graphBaseUrl: "https://graph.microsoft.com" },
  AzureUSGovernment: { tokenExchangeAudience: "api://AzureADTokenExchangeUSGov", graphBaseUrl: "https://graph.microsoft.us" },
  AzureChinaCloud: { tokenExchangeAudience: "api://AzureADTokenExchangeChina", graphBaseUrl: "https://microsoftgraph.chinacloudapi.cn" },
};

/**
 * The endpoints of the cloud deployed to, from the deployment's outputs (the template's environment():
 * ARM_ENDPOINT, KEY_VAULT_DNS_SUFFIX, ENTRA_AUTHORITY_HOST, AZURE_CLOUD_NAME); the public cloud's before
 * the first provision, when no hook needs more than azd's own sign-in.
 */
export function cloudOf(env: NodeJS.ProcessEnv) {
  const armEndpoint = (env.ARM_ENDPOINT || "https://management.azure.com/").replace(/\/+$/, "");
  const keyVaultDnsSuffix = env.KEY_VAULT_DNS_SUFFIX || ".vault.azure.net";
  const services = CLOUD_SERVICES[env.AZURE_CLOUD_NAME || "AzureCloud"] ?? CLOUD_SERVICES.AzureCloud!;
  return {
    armEndpoint,
    armScope: `${armEndpoint}/.default`,
    keyVaultScope: `https://${keyVaultDnsSuffix.replace(/^\./, "")}/.default`,
    authorityHost: (env.ENTRA_AUTHORITY_HOST || "https://login.microsoftonline.com/").replace(/\/+$/, ""),
    ...services,
  };
}
/** Role assignments made by the deployment can take minutes to reach Key Vault and Cosmos DB. */
const ACCESS_RETRY = { attempts: 18, delayMs: 10_000 };

/**
 * The bridges whose Authorization header the operator keeps in Key Vault: the azd variable (and app
 * setting) that turns each on, and its secret, the names infra/resources.bicep references.
 */
export const BRIDGE_HEADER_SECRETS: readonly { bridge: string; urlSetting: string; secret: string }[] = [
  ...sources.map((source) => {
    const key = sourceSettingKey(source);
    return { bridge: source, urlSetting: `SOURCE_${key}_URL`, secret: `source-${key.toLowerCase()}-auth-header` };
  }),
  { bridge: "Playbook automation", urlSetting: "PLAYBOOK_AUTOMATION_URL", secret: "playbook-automation-auth-header" },
  { bridge: "Ticketing", urlSetting: "TICKETING_URL", secret: "ticketing-auth-header" },
];

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Microsoft Graph's application id, the same in every tenant. */
const GRAPH_APP_ID = "00000003-0000-0000-c000-000000000000";
/**
 * The Graph application permissions (app roles) the directory logs need, by their ids, which are the
 * same in every tenant: auditLogs/signIns requires both, auditLogs/directoryAudits AuditLog.Read.All.
 */
export const GRAPH_APP_ROLES = {
  "AuditLog.Read.All": "b0afded3-3588-46d8-8b3d-9842eff778da",
  "Directory.Read.All": "7ab1d382-f21e-4acd-a863-ba3e13f7da61",
} as const;

/**
 * The Key Vault secret holding the portal registration's client secret, when PORTAL_CLIENT_CREDENTIAL
 * is `secret` (infra/resources.bicep references it as PORTAL_CLIENT_SECRET).
 */
export const PORTAL_CLIENT_SECRET_NAME = "portal-client-secret";

/** The sign-in scopes the portal asks for (openid, profile, email), by their ids on Graph, the same in every tenant. */
export const PORTAL_SIGN_IN_SCOPES = {
  openid: "37f7f235-527c-4136-accd-4a02d197296e",
  profile: "14dad69e-099b-42c9-810b-d002981feec1",
  email: "64a6cdd6-aab1-4aaf-94b8-3cc8405e90d0",
} as const;

/** What the portal's sign-in instructions are written from: the azd environment, read by `portalSetupOf`. */
export interface PortalSetup {
  /** PORTAL_TENANT_ID: where people sign in; a tenant id, a domain, or `organizations`/`common`. */
  tenantId: string;
  /** AZURE_TENANT_ID: the app's managed identity's tenant. */
  identityTenantId?: string;
  /** APP_IDENTITY_PRINCIPAL_ID: the managed identity's object (principal) id. */
  identityPrincipalId?: string;
  /** PORTAL_REDIRECT_URI: the callback URL the registration must name. */
  redirectUri?: string;
  /** PORTAL_CLIENT_ID: set once the registration exists. */
  clientId?: string;
  /** PORTAL_CLIENT_CREDENTIAL: `secret` when the registration cannot trust the managed identity. */
  credential: "managed-identity" | "secret";
  /** PORTAL_MFA_AUTH_CONTEXT: the Conditional Access authentication context whose policy requires MFA. */
  mfaAuthContext?: string;
  /** AZURE_ENV_NAME: named in the registration's display name, so environments tell apart. */
  environmentName?: string;
  /** KEY_VAULT_NAME. */
  keyVaultName?: string;
  /** The cloud deployed to (its sign-in authority and token-exchange audience), once the deployment's outputs name it. */
  cloud?: ReturnType<typeof cloudOf>;
}

export interface HookDeps {
  env: NodeJS.ProcessEnv;
  print(line: string): void;
  /** A bearer token for a scope (azd's sign-in). */
  token(scope: string): Promise<string>;
  fetch: typeof fetch;
  /** `azd env set NAME VALUE`: kept in the azd environment for the next steps and runs. */
  setEnv(name: string, value: string): Promise<void>;
  /** scripts/bootstrap.ts's runBootstrap. */
  bootstrap(argv: string[], env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<BootstrapOutput>;
  /** Azure Resource Manager's base URL. */
  armEndpoint: string;
  sleep(ms: number): Promise<void>;
  /** A new key: 32 random bytes, base64 (what shared/platform/config/config.ts accepts). */
  newKey(): string;
}

export class HookError extends Error {
  override name = "HookError";
}

/**
 * The azd variables that fill object parameters of infra/main.bicep (main.parameters.json). azd parses
 * each as JSON: unset, the parameter keeps its default (`{}`), but an empty string stops the provision
 * ("not valid JSON").
 */
export const JSON_OBJECT_VARIABLES = ["CLOUD_SUBSCRIPTIONS", "AZURE_LOG_ANALYTICS_WORKSPACES", "AZURE_LOG_ANALYTICS_CONNECTOR_SOURCES", "EXTRA_APP_SETTINGS"] as const;

/**
 * The app settings infra/ sets itself, from its resources and its own parameters: EXTRA_APP_SETTINGS
 * may not name them (the templates' value would win, or, for one set only when its parameter is, a
 * secret would bypass Key Vault). The cloud endpoints are not here: those it may replace.
 */
export const TEMPLATE_APP_SETTINGS: readonly string[] = [
  "STORE",
  "COSMOS_ENDPOINT",
  "COSMOS_DATABASE",
  "QUEUE",
  "SERVICEBUS__fullyQualifiedNamespace",
  "SERVICEBUS__credential",
  "SERVICEBUS__clientId",
  "AZURE_CLIENT_ID",
  "SECRET_HASH_KEY",
  "PAGE_TOKEN_KEY",
  "WEBHOOK_SECRETS_KEY",
  "PORTAL_SESSION_KEY",
  "SOP_BLOB_ACCOUNT_URL",
  "SOP_BLOB_CONTAINER",
  "SOP_MAX_BYTES",
  "CLOUD_INVENTORY",
  "CLOUD_SUBSCRIPTIONS",
  ...sources.flatMap((source) => [`SOURCE_${sourceSettingKey(source)}_URL`, `SOURCE_${sourceSettingKey(source)}_AUTH_HEADER`]),
  "PLAYBOOK_AUTOMATION_URL",
  "PLAYBOOK_AUTOMATION_AUTH_HEADER",
  "TICKETING_URL",
  "TICKETING_AUTH_HEADER",
  "DIRECTORY_LOGS_TENANT_IDS",
  "LOG_ANALYTICS_WORKSPACES",
  "LOG_ANALYTICS_CONNECTOR_SOURCES",
  "PORTAL_TENANT_ID",
  "PORTAL_CLIENT_ID",
  "PORTAL_CLIENT_ASSERTION",
  "PORTAL_CLIENT_SECRET",
  "PORTAL_REDIRECT_URI",
  "PORTAL_MFA_AUTH_CONTEXT",
  "PORTAL_SESSION_HOURS",
  "AzureWebJobsStorage__blobServiceUri",
  "AzureWebJobsStorage__tableServiceUri",
  "AzureWebJobsStorage__credential",
  "AzureWebJobsStorage__clientId",
  "APPLICATIONINSIGHTS_CONNECTION_STRING",
  "APPLICATIONINSIGHTS_AUTHENTICATION_STRING",
  // One figure with the platform's per-instance HTTP concurrency: the `httpPerInstanceConcurrency` parameter.
  "AzureFunctionsJobHost__extensions__http__maxConcurrentRequests",
  "MAX_CONCURRENT_REQUESTS",
];

/**
 * Settings Flex Consumption refuses or ignores (the runtime, its version, the content share, run from
 * package, scale-out: each is a property of the app there, set by the templates): a provision carrying
 * one fails, or the setting does nothing.
 */
export const FLEX_REFUSED_SETTINGS: readonly string[] = [
  "FUNCTIONS_EXTENSION_VERSION",
  "FUNCTIONS_WORKER_RUNTIME",
  "FUNCTIONS_WORKER_RUNTIME_VERSION",
  "FUNCTIONS_MAX_HTTP_CONCURRENCY",
  "FUNCTIONS_WORKER_PROCESS_COUNT",
  "FUNCTIONS_WORKER_DYNAMIC_CONCURRENCY_ENABLED",
  "SCM_DO_BUILD_DURING_DEPLOYMENT",
  "ENABLE_ORYX_BUILD",
  "WEBSITE_CONTENTAZUREFILECONNECTIONSTRING",
  "WEBSITE_CONTENTOVERVNET",
  "WEBSITE_CONTENTSHARE",
  "WEBSITE_DNS_SERVER",
  "WEBSITE_MAX_DYNAMIC_APPLICATION_SCALE_OUT",
  "WEBSITE_NODE_DEFAULT_VERSION",
  "WEBSITE_RUN_FROM_PACKAGE",
  "WEBSITE_SKIP_CONTENTSHARE_VALIDATION",
  "WEBSITE_VNET_ROUTE_ALL",
];

/** An app setting name Linux app settings keep as it is: letters, digits and underscores. */
const APP_SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * EXTRA_APP_SETTINGS, checked before it is deployed: a JSON object of string values, no setting the
 * templates set, and values the app accepts (a value it refuses would stop the app at start, after a
 * successful provision). A name the app does not read is only warned about: it may be the host's.
 */
export function checkExtraAppSettings(json: string | undefined, print: (line: string) => void): void {
  if (json === undefined || json.trim() === "") return;
  let settings: unknown;
  try {
    settings = JSON.parse(json);
  } catch {
    throw new HookError('EXTRA_APP_SETTINGS is not JSON: give an object of settings, e.g. azd env set EXTRA_APP_SETTINGS \'{"LOG_LEVEL":"debug"}\'.');
  }
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
    throw new HookError('EXTRA_APP_SETTINGS must be a JSON object of settings, e.g. {"LOG_LEVEL":"debug"}.');
  }
  const entries = Object.entries(settings);
  const problems: string[] = [];
  for (const [name, value] of entries) {
    if (!APP_SETTING_NAME.test(name)) problems.push(`${name}: not an app setting name (letters, digits and underscores)`);
    else if (typeof value !== "string") problems.push(`${name}: give its value as a string ("${String(value)}")`);
    else if (TEMPLATE_APP_SETTINGS.includes(name)) problems.push(`${name}: set by the templates (its own parameter, or the deployment's resources), not here`);
    else if (FLEX_REFUSED_SETTINGS.includes(name)) problems.push(`${name}: Flex Consumption does not take it (the runtime, deployment and scaling are properties of the app, set by the templates)`);
  }
  if (problems.length > 0) throw new HookError(`EXTRA_APP_SETTINGS:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  try {
    loadConfig(Object.fromEntries(entries) as Record<string, string>);
  } catch (error) {
    if (error instanceof ConfigError) throw new HookError(`EXTRA_APP_SETTINGS holds a value the app refuses, and would stop it at start. ${error.message}`);
    throw error;
  }
  const unknown = entries.map(([name]) => name).filter((name) => !configSettingNames.includes(name));
  if (unknown.length > 0) {
    print(`Warning: EXTRA_APP_SETTINGS: the app reads no setting named ${unknown.join(", ")} (docs/operating.md, "Configuration"); set anyway, for the Functions host or the platform.`);
  }
}

// --- preprovision ----------------------------------------------------------------------------------

export async function preprovision(deps: HookDeps): Promise<void> {
  const { env } = deps;
  for (const variable of JSON_OBJECT_VARIABLES) {
    if (env[variable] === undefined || env[variable].trim() !== "") continue;
    await deps.setEnv(variable, "{}");
    deps.print(`${variable} was empty: set to {} (none), which azd accepts as JSON.`);
  }
  checkExtraAppSettings(env.EXTRA_APP_SETTINGS, deps.print);
  await pinZoneRedundancy(deps);

  const name = env.KEY_VAULT_NAME;
  let mode: "default" | "recover" = "default";
  if (name && env.AZURE_SUBSCRIPTION_ID && env.AZURE_LOCATION) {
    const url = `${deps.armEndpoint}/subscriptions/${env.AZURE_SUBSCRIPTION_ID}/providers/Microsoft.KeyVault/locations/${env.AZURE_LOCATION}/deletedVaults/${name}?api-version=2023-07-01`;
    const res = await deps.fetch(url, { headers: { authorization: `Bearer ${await deps.token(cloudOf(deps.env).armScope)}` } });
    if (res.status === 200) mode = "recover";
    else if (res.status !== 404) throw new HookError(`Could not check for a deleted Key Vault ${name}: HTTP ${res.status}.`);
    await res.body?.cancel();
  }
  if (mode === "recover") deps.print(`Key Vault ${name} was deleted with the environment: this deployment recovers it, keys included.`);
  if (env.KEY_VAULT_CREATE_MODE !== mode) await deps.setEnv("KEY_VAULT_CREATE_MODE", mode);

  // Deployed before the code, the availability test would fail from every location and alert until
  // the package arrives: it stays off until the postdeploy hook turns it on.
  if (env.AVAILABILITY_TEST_ENABLED === "true" && !(await functionAppExists(deps))) {
    await deps.setEnv("AVAILABILITY_TEST_ENABLED", "false");
  }
}

/**
 * ZONE_REDUNDANT, once per environment: zone redundancy is fixed when Cosmos DB, the storage accounts
 * and Service Bus are created, and a provision that asks to change it fails. An environment provisioned
 * before (it has a Cosmos DB endpoint) keeps what it was created with, which before the parameter was
 * no zones; a new one gets the default, zones. An explicitly empty value counts as unset.
 */
async function pinZoneRedundancy(deps: HookDeps): Promise<void> {
  const value = deps.env.ZONE_REDUNDANT?.trim();
  if (value === "true" || value === "false") return;
  if (value) throw new HookError(`ZONE_REDUNDANT is "${value}": give true or false.`);
  const existing = Boolean(deps.env.COSMOS_ENDPOINT);
  await deps.setEnv("ZONE_REDUNDANT", existing ? "false" : "true");
  deps.print(
    existing
      ? "ZONE_REDUNDANT set to false: this environment's data services were created without zone redundancy, which cannot be turned on in place (docs/operating.md, \"Zone redundancy\")."
      : "ZONE_REDUNDANT set to true: Cosmos DB, storage and Service Bus are created zone-redundant where the region has availability zones.",
  );
}

/** Whether the environment's function app exists (with the code an earlier deploy gave it). */
async function functionAppExists(deps: HookDeps): Promise<boolean> {
  const { env } = deps;
  if (!env.AZURE_SUBSCRIPTION_ID || !env.AZURE_RESOURCE_GROUP || !env.SERVICE_API_NAME) return false;
  const url = `${deps.armEndpoint}/subscriptions/${env.AZURE_SUBSCRIPTION_ID}/resourceGroups/${env.AZURE_RESOURCE_GROUP}/providers/Microsoft.Web/sites/${env.SERVICE_API_NAME}?api-version=2024-04-01`;
  const res = await deps.fetch(url, { headers: { authorization: `Bearer ${await deps.token(cloudOf(deps.env).armScope)}` } });
  await res.body?.cancel();
  if (res.status === 200) return true;
  if (res.status === 404) return false;
  throw new HookError(`Could not check for the function app ${env.SERVICE_API_NAME}: HTTP ${res.status}.`);
}

// --- postdeploy ------------------------------------------------------------------------------------

const WEBTEST_API = "2022-06-15";

/**
 * Turns the availability test on now that the code is deployed (a PUT of the test as it is, enabled),
 * and records AVAILABILITY_TEST_ENABLED=true, from which every later provision deploys it enabled.
 */
export async function postdeploy(deps: HookDeps): Promise<void> {
  const { env } = deps;
  if (env.AVAILABILITY_TEST_ENABLED === "true") return;
  if (!env.AVAILABILITY_TEST_ID) {
    // An environment last provisioned by templates whose test was always on: nothing to turn on yet.
    deps.print("AVAILABILITY_TEST_ID is not in the azd environment: the availability test is turned on after the next `azd provision` and deploy.");
    return;
  }
  const url = `${deps.armEndpoint}${env.AVAILABILITY_TEST_ID}?api-version=${WEBTEST_API}`;
  const headers = { authorization: `Bearer ${await deps.token(cloudOf(deps.env).armScope)}` };
  const res = await deps.fetch(url, { headers });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new HookError(`Could not read the availability test: HTTP ${res.status}.`);
  }
  const test = (await res.json()) as { location: string; kind?: string; tags?: Record<string, string>; properties: Record<string, unknown> };
  if (test.properties.Enabled !== true) {
    const { provisioningState: _readOnly, ...properties } = test.properties;
    const put = await deps.fetch(url, {
      method: "PUT",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ location: test.location, kind: test.kind, tags: test.tags, properties: { ...properties, Enabled: true } }),
    });
    await put.body?.cancel();
    if (!put.ok) throw new HookError(`Could not turn the availability test on: HTTP ${put.status}.`);
  }
  await deps.setEnv("AVAILABILITY_TEST_ENABLED", "true");
  deps.print("Availability test of /api/v2/health: on, now that the code is deployed.");
}

// --- postprovision ---------------------------------------------------------------------------------

export async function postprovision(deps: HookDeps): Promise<void> {
  const { env } = deps;
  const vault = required(env, "KEY_VAULT_URI").replace(/\/?$/, "/");
  const secretNames = JSON.parse(required(env, "KEY_VAULT_SECRET_NAMES")) as Record<string, string>;
  const keyVault = new KeyVaultSecrets(vault, deps);

  let created = 0;
  const values: Record<string, string> = {};
  for (const [setting, secret] of Object.entries(secretNames)) {
    const existing = await keyVault.get(secret);
    if (existing !== undefined) {
      values[setting] = existing;
      deps.print(`Key Vault: ${secret} (${setting}) is set.`);
      continue;
    }
    values[setting] = deps.newKey();
    await keyVault.set(secret, values[setting]);
    created++;
    deps.print(`Key Vault: created ${secret} (${setting}).`);
  }

  for (const { bridge, urlSetting, secret } of BRIDGE_HEADER_SECRETS) {
    if (!env[urlSetting]) continue;
    if ((await keyVault.get(secret)) !== undefined) continue;
    deps.print(
      `Warning: ${bridge} has a bridge (${urlSetting}) but no Key Vault secret ${secret}: its calls carry no valid Authorization header. ` +
        `Set it: az keyvault secret set --vault-name ${env.KEY_VAULT_NAME ?? "<vault>"} --name ${secret} --value "Bearer …"; then restart the app.`,
    );
  }

  if (env.DIRECTORY_LOGS_TENANT_IDS) printGraphGrant(deps);

  const portal = portalSetupOf(env);
  for (const line of portalSignInInstructions(portal)) deps.print(line);
  if (portal.clientId && portal.credential === "secret" && (await keyVault.get(PORTAL_CLIENT_SECRET_NAME)) === undefined) {
    deps.print(
      `Warning: portal sign-in uses a client secret (PORTAL_CLIENT_CREDENTIAL=secret) but Key Vault has no secret ${PORTAL_CLIENT_SECRET_NAME}: nobody can sign in. ` +
        `Set it: ${clientSecretCommands(portal.keyVaultName, portal.clientId).join("; ")}; then restart the app.`,
    );
  }

  if (created > 0) await restartApp(deps);

  if (env.BOOTSTRAP_ACCOUNT_NAME) await bootstrapOnce(deps, values);
}

/**
 * Directory logs read Microsoft Graph as the app's managed identity, with application permissions an
 * Entra administrator grants (app role assignments on Graph's service principal): no Bicep resource
 * makes them, and the deployer usually may not. Printed on every provision while directory logs are
 * on; granting twice only answers "already exists".
 */
function printGraphGrant(deps: HookDeps): void {
  const { env } = deps;
  const principalId = env.APP_IDENTITY_PRINCIPAL_ID ?? "<app identity principal id>";
  const tenant = env.AZURE_TENANT_ID;
  const roles = Object.keys(GRAPH_APP_ROLES).join(" and ");
  deps.print(
    `Directory logs: the app's identity (${principalId}) needs the Microsoft Graph application permissions ${roles}. ` +
      `If they are not granted yet, a Privileged Role Administrator (or Global Administrator) of tenant ${tenant ?? "<tenant>"} runs, once:`,
  );
  deps.print(`  GRAPH_SP=$(az ad sp show --id ${GRAPH_APP_ID} --query id -o tsv)`);
  for (const [role, appRoleId] of Object.entries(GRAPH_APP_ROLES)) {
    deps.print(
      `  az rest --method POST --uri "${cloudOf(env).graphBaseUrl}/v1.0/servicePrincipals/$GRAPH_SP/appRoleAssignedTo" --headers Content-Type=application/json ` +
        `--body '{"principalId":"${principalId}","resourceId":"'"$GRAPH_SP"'","appRoleId":"${appRoleId}"}'   # ${role}`,
    );
  }
  // A managed identity gets tokens of its own tenant only, whatever tenant the app asks for.
  const listed = env.DIRECTORY_LOGS_TENANT_IDS!.split(",").map((t) => t.trim()).filter(Boolean);
  const foreign = tenant ? listed.filter((t) => t.toLowerCase() !== tenant.toLowerCase()) : [];
  if (foreign.length > 0) {
    deps.print(
      `Warning: DIRECTORY_LOGS_TENANT_IDS names ${foreign.join(", ")}, but the app's managed identity can read only its own tenant, ${tenant}: list that tenant alone.`,
    );
  }
}

/** The portal's sign-in settings in the azd environment. */
export function portalSetupOf(env: NodeJS.ProcessEnv): PortalSetup {
  return {
    tenantId: env.PORTAL_TENANT_ID || env.AZURE_TENANT_ID || "<tenant>",
    identityTenantId: env.AZURE_TENANT_ID,
    identityPrincipalId: env.APP_IDENTITY_PRINCIPAL_ID,
    redirectUri: env.PORTAL_REDIRECT_URI,
    clientId: env.PORTAL_CLIENT_ID || undefined,
    credential: env.PORTAL_CLIENT_CREDENTIAL === "secret" ? "secret" : "managed-identity",
    mfaAuthContext: env.PORTAL_MFA_AUTH_CONTEXT || undefined,
    environmentName: env.AZURE_ENV_NAME,
    keyVaultName: env.KEY_VAULT_NAME,
    // Only once the deployment has said which cloud it is in.
    cloud: env.ENTRA_AUTHORITY_HOST ? cloudOf(env) : undefined,
  };
}

/**
 * What the operator still has to do for people to sign in to the portal, as lines to print: the
 * registration of the portal in Entra ID while PORTAL_CLIENT_ID is unset, and the Conditional Access
 * set-up for MFA while PORTAL_MFA_AUTH_CONTEXT is unset. Both are directory objects, which no
 * deployment can create (and the deployer usually may not). Printed on every provision until done;
 * nothing when sign-in is complete but one line saying so.
 */
export function portalSignInInstructions(setup: PortalSetup): string[] {
  const lines: string[] = [];
  const tenant = setup.tenantId;
  const multiTenant = /^(organizations|common)$/i.test(tenant);
  // Entra accepts a managed identity as the credential of a registration in the identity's own tenant
  // only. Told apart by id: a domain name for the same tenant is not taken for another one.
  const foreignTenant = GUID.test(tenant) && GUID.test(setup.identityTenantId ?? "") && tenant.toLowerCase() !== setup.identityTenantId!.toLowerCase();
  const registrationTenant = multiTenant ? (setup.identityTenantId ?? "<tenant>") : tenant;

  if (!setup.clientId) {
    lines.push(
      `Portal sign-in is off: PORTAL_CLIENT_ID is not set. To turn it on, register the portal in Entra ID once, ` +
        `signed in with az login to tenant ${registrationTenant} as an Application Administrator or Cloud Application Administrator:`,
    );
    if (foreignTenant && setup.credential !== "secret") {
      lines.push(
        `  (A registration in ${tenant}, not the app's tenant ${setup.identityTenantId}, cannot trust the app's managed identity: it gets a client secret, ` +
          `kept in the app's Key Vault; sign in to ${setup.identityTenantId} for the az keyvault command.)`,
      );
    }
    const scopes = Object.values(PORTAL_SIGN_IN_SCOPES).map((id) => ({ id, type: "Scope" }));
    // ID tokens come from the token endpoint in exchange for the code (PKCE): the implicit grant,
    // which --enable-id-token-issuance would turn on, is never used. `email` and `acrs` are the
    // optional claims the sign-in reads (the address, and the authentication context that shows MFA).
    lines.push(
      `  APP_ID=$(az ad app create --display-name "SecOps portal (${setup.environmentName ?? "<environment>"})" ` +
        `--sign-in-audience ${multiTenant ? "AzureADMultipleOrgs" : "AzureADMyOrg"} ` +
        `--web-redirect-uris "${setup.redirectUri ?? "<PORTAL_REDIRECT_URI>"}" --enable-id-token-issuance false ` +
        `--optional-claims '${JSON.stringify({ idToken: [{ name: "email" }, { name: "acrs" }] })}' ` +
        `--required-resource-accesses '${JSON.stringify([{ resourceAppId: GRAPH_APP_ID, resourceAccess: scopes }])}' --query appId -o tsv)`,
      `  az ad sp create --id "$APP_ID"`,
      `  az ad app permission admin-consent --id "$APP_ID"`,
    );
    if (setup.credential === "secret" || foreignTenant) {
      lines.push(...clientSecretCommands(setup.keyVaultName, "$APP_ID").map((command) => `  ${command}`), `  azd env set PORTAL_CLIENT_CREDENTIAL secret`);
    } else {
      const credential = {
        name: "app-managed-identity",
        // The managed identity's tokens name its tenant by id.
        issuer: `${setup.cloud?.authorityHost ?? "https://login.microsoftonline.com"}/${setup.identityTenantId ?? registrationTenant}/v2.0`,
        subject: setup.identityPrincipalId ?? "<APP_IDENTITY_PRINCIPAL_ID>",
        audiences: [setup.cloud?.tokenExchangeAudience ?? "api://AzureADTokenExchange"],
        // No apostrophe: the JSON is single-quoted in the shell.
        description: "The SecOps API redeems sign-ins as its managed identity, with no client secret.",
      };
      lines.push(`  az ad app federated-credential create --id "$APP_ID" --parameters '${JSON.stringify(credential)}'`);
    }
    lines.push(
      `  azd env set PORTAL_CLIENT_ID "$APP_ID"`,
      `  azd env set BOOTSTRAP_ADMIN_USER_OBJECT_ID "$(az ad signed-in-user show --query id -o tsv)"   # optional: you, as the first Admin`,
      `  azd env set BOOTSTRAP_ADMIN_USER_EMAIL "<your e-mail address>"                                # (with BOOTSTRAP_ACCOUNT_NAME set)`,
      `  azd provision`,
    );
  } else if (setup.credential === "managed-identity" && foreignTenant) {
    lines.push(
      `Warning: the portal's registration is in tenant ${tenant}, but the app's managed identity is in ${setup.identityTenantId}: Entra accepts the identity as the credential of a registration in its own tenant only, so sign-ins fail. ` +
        `Register the portal in ${setup.identityTenantId}, or give it a client secret: ${[...clientSecretCommands(setup.keyVaultName, setup.clientId), "azd env set PORTAL_CLIENT_CREDENTIAL secret", "azd provision"].join("; ")}.`,
    );
  }

  if (!setup.mfaAuthContext) {
    const context = "c1";
    lines.push(
      `${setup.clientId ? "Warning: portal sign-in is on, but nobody gets in yet" : "Then require MFA"}: Entra's ID tokens show that a sign-in passed MFA only through a Conditional Access ` +
        `authentication context, so until PORTAL_MFA_AUTH_CONTEXT is set the portal refuses every sign-in (MFA_REQUIRED); a policy on the app alone does not show in the token. ` +
        `A Conditional Access Administrator of tenant ${multiTenant ? "<each tenant people sign in from>" : tenant}, once, in the Microsoft Entra admin center:`,
      `  1. Conditional Access > Authentication contexts > New: ID ${context} (or another unused one, c1 to c25), "Publish to apps" checked.`,
      `  2. Conditional Access > Policies > New: Users: the people who use the portal (or All users); Target resources: Authentication context ${context}; Grant: Require multifactor authentication (or an authentication strength); Enable policy: On.`,
      `  3. azd env set PORTAL_MFA_AUTH_CONTEXT ${context}`,
      `     azd provision`,
    );
  }

  if (setup.clientId && setup.mfaAuthContext && !(setup.credential === "managed-identity" && foreignTenant)) {
    lines.push(`Portal sign-in: on (client ${setup.clientId}, tenant ${tenant}, ${setup.credential}), MFA through authentication context ${setup.mfaAuthContext}.`);
  }
  return lines;
}

/**
 * Creates a client secret for the registration and stores it in the vault, never on screen. Two
 * commands: the registration and the vault may be in different tenants, signed in to in turn.
 */
function clientSecretCommands(keyVaultName: string | undefined, appId: string): string[] {
  return [
    `SECRET=$(az ad app credential reset --id "${appId}" --display-name secops-api --years 1 --query password -o tsv)`,
    `az keyvault secret set --vault-name ${keyVaultName ?? "<vault>"} --name ${PORTAL_CLIENT_SECRET_NAME} --value "$SECRET" -o none && unset SECRET`,
  ];
}

/** Key Vault references resolve when the app starts: after creating keys it must start again. */
async function restartApp(deps: HookDeps): Promise<void> {
  const { env } = deps;
  const site = `${deps.armEndpoint}/subscriptions/${required(env, "AZURE_SUBSCRIPTION_ID")}/resourceGroups/${required(env, "AZURE_RESOURCE_GROUP")}/providers/Microsoft.Web/sites/${required(env, "SERVICE_API_NAME")}`;
  const res = await deps.fetch(`${site}/restart?api-version=2024-04-01`, {
    method: "POST",
    headers: { authorization: `Bearer ${await deps.token(cloudOf(deps.env).armScope)}` },
  });
  await res.body?.cancel();
  if (!res.ok) throw new HookError(`Restarting ${env.SERVICE_API_NAME} failed: HTTP ${res.status}.`);
  deps.print(`Restarted ${env.SERVICE_API_NAME}, so that it reads the new keys.`);
}

/**
 * The first admin of the organization named BOOTSTRAP_ACCOUNT_NAME, once: the account id is kept in
 * the azd environment (BOOTSTRAP_ACCOUNT_ID), and a later run finds the admin there and stops.
 */
async function bootstrapOnce(deps: HookDeps, keys: Record<string, string>): Promise<void> {
  const { env } = deps;
  let accountId = env.BOOTSTRAP_ACCOUNT_ID;
  if (!accountId) {
    accountId = randomUUID();
    await deps.setEnv("BOOTSTRAP_ACCOUNT_ID", accountId);
  }
  const bootstrapEnv: NodeJS.ProcessEnv = {
    STORE: "cosmos",
    COSMOS_ENDPOINT: required(env, "COSMOS_ENDPOINT"),
    COSMOS_DATABASE: required(env, "COSMOS_DATABASE"),
    SECRET_HASH_KEY: keys.SECRET_HASH_KEY,
    PAGE_TOKEN_KEY: keys.PAGE_TOKEN_KEY,
    WEBHOOK_SECRETS_KEY: keys.WEBHOOK_SECRETS_KEY,
  };
  const argv = ["--account-name", required(env, "BOOTSTRAP_ACCOUNT_NAME"), "--account-id", accountId];
  if (env.BOOTSTRAP_ADMIN_USER_OBJECT_ID) {
    // The first person, as Admin: registered once, and found registered on every later provision.
    argv.push("--admin-user-object-id", env.BOOTSTRAP_ADMIN_USER_OBJECT_ID);
    // A person's tenant is one directory's id; PORTAL_TENANT_ID may be `organizations` or a domain.
    const tenant = env.BOOTSTRAP_ADMIN_USER_TENANT_ID || [env.PORTAL_TENANT_ID, env.AZURE_TENANT_ID].find((t) => GUID.test(t ?? ""));
    if (tenant) argv.push("--admin-user-tenant-id", tenant);
    if (env.BOOTSTRAP_ADMIN_USER_EMAIL) argv.push("--admin-user-email", env.BOOTSTRAP_ADMIN_USER_EMAIL);
    if (env.BOOTSTRAP_ADMIN_USER_NAME) argv.push("--admin-user-name", env.BOOTSTRAP_ADMIN_USER_NAME);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.bootstrap(argv, bootstrapEnv, deps.print);
      return;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/already has a platform-managed admin/.test(message)) {
        deps.print(`Bootstrap: account ${accountId} already has its admin; nothing to do.`);
        return;
      }
      // The deployer's Cosmos DB data role may not have reached the account yet.
      if (isApiError(error) && error.code === "UPSTREAM_ERROR" && attempt < ACCESS_RETRY.attempts) {
        deps.print(`Bootstrap: Cosmos DB refused the request (access may still be propagating); retrying in ${ACCESS_RETRY.delayMs / 1000} s.`);
        await deps.sleep(ACCESS_RETRY.delayMs);
        continue;
      }
      throw error;
    }
  }
}

/** The Key Vault secrets REST API, retrying while the deployer's data role propagates (403). */
class KeyVaultSecrets {
  constructor(
    private readonly vault: string,
    private readonly deps: HookDeps,
  ) {}

  async get(name: string): Promise<string | undefined> {
    const res = await this.call("GET", name);
    if (res.status === 404) return (await res.body?.cancel(), undefined);
    return ((await res.json()) as { value: string }).value;
  }

  async set(name: string, value: string): Promise<void> {
    const res = await this.call("PUT", name, { value, contentType: "base64 key, 32 bytes" });
    await res.body?.cancel();
  }

  private async call(method: "GET" | "PUT", name: string, body?: unknown): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const res = await this.deps.fetch(`${this.vault}secrets/${encodeURIComponent(name)}?api-version=${KEY_VAULT_API}`, {
        method,
        headers: { authorization: `Bearer ${await this.deps.token(cloudOf(this.deps.env).keyVaultScope)}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (res.ok || (method === "GET" && res.status === 404)) return res;
      await res.body?.cancel();
      if (res.status === 403 && attempt < ACCESS_RETRY.attempts) {
        if (attempt === 1) this.deps.print(`Key Vault: access not granted yet (role assignments take a few minutes); retrying every ${ACCESS_RETRY.delayMs / 1000} s.`);
        await this.deps.sleep(ACCESS_RETRY.delayMs);
        continue;
      }
      // The name and the status only: the error body could echo what was sent.
      throw new HookError(`Key Vault ${method} ${name} failed: HTTP ${res.status}.`);
    }
  }
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new HookError(`${name} is not in the azd environment: run \`azd provision\` first.`);
  return value;
}

// --- entry -----------------------------------------------------------------------------------------

export const hooks = { preprovision, postprovision, postdeploy } as const;

/** The real dependencies: azd's sign-in, `azd env set`, the real bootstrap. */
export function defaultDeps(env: NodeJS.ProcessEnv, print: (line: string) => void): HookDeps {
  const { AzureDeveloperCliCredential } = require("@azure/identity") as typeof import("@azure/identity");
  const credential = new AzureDeveloperCliCredential({ tenantId: env.AZURE_TENANT_ID });
  return {
    env,
    print,
    async token(scope) {
      const token = await credential.getToken(scope);
      if (!token) throw new HookError(`No token for ${scope}: run \`azd auth login\`.`);
      return token.token;
    },
    fetch: (input, init) => fetch(input, init),
    setEnv: (name, value) =>
      new Promise((resolve, reject) => {
        const child = spawn("azd", ["env", "set", name, value], { stdio: "inherit", shell: process.platform === "win32" });
        child.on("error", reject);
        child.on("close", (code) => (code === 0 ? resolve() : reject(new HookError(`azd env set ${name} failed (${code}).`))));
      }),
    bootstrap: (argv, bootstrapEnv, out) => (require("./bootstrap") as typeof import("./bootstrap")).runBootstrap(argv, bootstrapEnv, out),
    armEndpoint: cloudOf(env).armEndpoint,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    newKey: () => randomBytes(32).toString("base64"),
  };
}

export async function runHook(name: string, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<number> {
  const hook = hooks[name as keyof typeof hooks];
  if (!hook) {
    print(`unknown hook "${name}": one of ${Object.keys(hooks).join(", ")}`);
    return 2;
  }
  try {
    await hook(defaultDeps(env, print));
    return 0;
  } catch (error) {
    print(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
