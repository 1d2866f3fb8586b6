import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  HookError,
  checkExtraAppSettings,
  cloudOf,
  FLEX_REFUSED_SETTINGS,
  portalSetupOf,
  portalSignInInstructions,
  postdeploy,
  postprovision,
  preprovision,
  type HookDeps,
  type PortalSetup,
} from "../../scripts/azd-hooks";
import { ConfigError } from "../../shared/platform/config/config";
import { ApiError } from "../../shared/platform/errors/api-error";

// Key Vault and Azure Resource Manager cannot be reached here: a local fake answers both REST APIs
// (secrets get/set, deleted vaults, site restart) and records what was asked of it.

interface Call {
  method: string;
  path: string;
  auth: string | undefined;
  body: string;
}

const secrets = new Map<string, string>();
const deletedVaults = new Set<string>();
const calls: Call[] = [];
/** Answers 403 to this many Key Vault calls first (a role assignment still propagating). */
let forbiddenFirst = 0;
/** Whether the environment's function app exists (Azure Resource Manager). */
let appExists = true;
/** Availability tests by name, as Azure Resource Manager holds them. */
const webtests = new Map<string, Record<string, unknown>>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await read(req);
    const url = new URL(req.url ?? "/", "http://fake");
    calls.push({ method: req.method ?? "", path: url.pathname, auth: req.headers.authorization, body });
    const secret = /^\/vault\/secrets\/([^/]+)$/.exec(url.pathname)?.[1];
    if (secret) {
      expect(url.searchParams.get("api-version")).toBe("7.4");
      if (forbiddenFirst > 0) return void (forbiddenFirst--, res.writeHead(403).end('{"error":{"code":"Forbidden"}}'));
      if (req.method === "PUT") {
        secrets.set(secret, (JSON.parse(body) as { value: string }).value);
        return void res.writeHead(200, { "content-type": "application/json" }).end("{}");
      }
      const value = secrets.get(secret);
      if (value === undefined) return void res.writeHead(404).end('{"error":{"code":"SecretNotFound"}}');
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ value, id: `x/${secret}` }));
    }
    const deleted = /^\/subscriptions\/sub-1\/providers\/Microsoft\.KeyVault\/locations\/westeurope\/deletedVaults\/([^/]+)$/.exec(url.pathname)?.[1];
    if (deleted) return void res.writeHead(deletedVaults.has(deleted) ? 200 : 404).end("{}");
    if (req.method === "POST" && url.pathname === "/subscriptions/sub-1/resourceGroups/rg-dev/providers/Microsoft.Web/sites/func-abc/restart") {
      return void res.writeHead(200).end();
    }
    if (req.method === "GET" && url.pathname === "/subscriptions/sub-1/resourceGroups/rg-dev/providers/Microsoft.Web/sites/func-abc") {
      return void res.writeHead(appExists ? 200 : 404).end("{}");
    }
    const webtest = /^\/subscriptions\/sub-1\/resourceGroups\/rg-dev\/providers\/Microsoft\.Insights\/webtests\/([^/]+)$/.exec(url.pathname)?.[1];
    if (webtest) {
      expect(url.searchParams.get("api-version")).toBe("2022-06-15");
      if (req.method === "PUT") {
        webtests.set(webtest, JSON.parse(body) as Record<string, unknown>);
        return void res.writeHead(200, { "content-type": "application/json" }).end(body);
      }
      const test = webtests.get(webtest);
      if (!test) return void res.writeHead(404).end('{"error":{"code":"ResourceNotFound"}}');
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(test));
    }
    res.writeHead(400).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());
beforeEach(() => {
  secrets.clear();
  deletedVaults.clear();
  calls.length = 0;
  forbiddenFirst = 0;
  appExists = true;
  webtests.clear();
});

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => resolve(text));
  });
}

const outputs = {
  AZURE_SUBSCRIPTION_ID: "sub-1",
  AZURE_LOCATION: "westeurope",
  AZURE_RESOURCE_GROUP: "rg-dev",
  SERVICE_API_NAME: "func-abc",
  KEY_VAULT_NAME: "kv-abc",
  COSMOS_ENDPOINT: "https://cosmos-abc.documents.azure.com:443/",
  COSMOS_DATABASE: "secops",
  // Pinned by an earlier preprovision.
  ZONE_REDUNDANT: "false",
  KEY_VAULT_SECRET_NAMES: JSON.stringify({
    SECRET_HASH_KEY: "secret-hash-key",
    PAGE_TOKEN_KEY: "page-token-key",
    WEBHOOK_SECRETS_KEY: "webhook-secrets-key",
    PORTAL_SESSION_KEY: "portal-session-key",
  }),
};
const keySecrets = ["secret-hash-key", "page-token-key", "webhook-secrets-key", "portal-session-key"];

function fakeDeps(env: Record<string, string> = {}) {
  const printed: string[] = [];
  const envSet: [string, string][] = [];
  const bootstraps: { argv: string[]; env: NodeJS.ProcessEnv }[] = [];
  const slept: number[] = [];
  let keys = 0;
  const deps: HookDeps & { bootstrapError?: unknown } = {
    env: { ...outputs, KEY_VAULT_URI: `${base}/vault/`, ...env },
    print: (line) => printed.push(line),
    token: async (scope) => `token-for ${scope}`,
    fetch: (input, init) => fetch(input, init),
    setEnv: async (name, value) => void envSet.push([name, value]),
    async bootstrap(argv, bootstrapEnv) {
      bootstraps.push({ argv, env: bootstrapEnv });
      if (deps.bootstrapError) {
        const error = deps.bootstrapError;
        deps.bootstrapError = undefined;
        throw error;
      }
      return { accountId: argv[3]!, clientId: "c", clientSecret: "s" };
    },
    armEndpoint: base,
    sleep: async (ms) => void slept.push(ms),
    newKey: () => Buffer.alloc(32, ++keys).toString("base64"),
  };
  return { deps, printed, envSet, bootstraps, slept };
}

describe("postprovision hook", () => {
  it("creates the missing keys, keeps those already set, never prints a value, and restarts the app", async () => {
    secrets.set("page-token-key", "existing-page-token-key-value");
    const { deps, printed } = fakeDeps();
    await postprovision(deps);

    expect([...secrets.keys()].sort()).toEqual([...keySecrets].sort());
    expect(secrets.get("page-token-key")).toBe("existing-page-token-key-value");
    // 32 bytes each (what shared/platform/config/config.ts requires), and different keys.
    for (const name of ["secret-hash-key", "webhook-secrets-key", "portal-session-key"]) expect(Buffer.from(secrets.get(name)!, "base64")).toHaveLength(32);
    expect(new Set(["secret-hash-key", "webhook-secrets-key", "portal-session-key"].map((n) => secrets.get(n))).size).toBe(3);
    const everything = printed.join("\n");
    for (const value of secrets.values()) expect(everything).not.toContain(value);
    expect(printed).toContain("Key Vault: created secret-hash-key (SECRET_HASH_KEY).");
    expect(printed).toContain("Key Vault: page-token-key (PAGE_TOKEN_KEY) is set.");
    // The portal's session key, like the others: every instance reads the same one.
    expect(printed).toContain("Key Vault: created portal-session-key (PORTAL_SESSION_KEY).");

    expect(calls.filter((c) => c.method === "POST").map((c) => c.path)).toEqual(["/subscriptions/sub-1/resourceGroups/rg-dev/providers/Microsoft.Web/sites/func-abc/restart"]);
    expect(calls.find((c) => c.path.startsWith("/vault/"))!.auth).toBe("Bearer token-for https://vault.azure.net/.default");
    expect(calls.find((c) => c.method === "POST")!.auth).toBe("Bearer token-for https://management.azure.com/.default");
  });

  it("changes nothing and does not restart the app when every key is set", async () => {
    for (const name of keySecrets) secrets.set(name, `${name}-value`);
    await postprovision(fakeDeps().deps);
    expect(calls.every((c) => c.method === "GET")).toBe(true);
    expect(secrets.get("secret-hash-key")).toBe("secret-hash-key-value");
  });

  it("waits for its Key Vault access to propagate (403) instead of failing", async () => {
    forbiddenFirst = 2;
    const { deps, slept, printed } = fakeDeps();
    await postprovision(deps);
    expect(slept).toEqual([10_000, 10_000]);
    expect(printed[0]).toMatch(/access not granted yet/);
    expect(secrets.size).toBe(4);
  });

  it("warns about a configured vendor bridge without its Authorization header secret, and only about that one", async () => {
    secrets.set("source-b-auth-header", "Bearer b");
    const { deps, printed } = fakeDeps({ SOURCE_A_URL: "https://bridge.example/a", SOURCE_B_URL: "https://bridge.example/b" });
    await postprovision(deps);
    const warnings = printed.filter((l) => l.startsWith("Warning"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("SourceA");
    expect(warnings[0]).toContain("--name source-a-auth-header");
    expect(warnings[0]).not.toContain("Bearer b");
  });

  it("warns likewise about the playbook automation and ticketing bridges, by their own secrets", async () => {
    secrets.set("ticketing-auth-header", "Bearer t");
    const { deps, printed } = fakeDeps({ PLAYBOOK_AUTOMATION_URL: "https://automation.example", TICKETING_URL: "https://tickets.example" });
    await postprovision(deps);
    const warnings = printed.filter((l) => l.startsWith("Warning"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("Playbook automation has a bridge (PLAYBOOK_AUTOMATION_URL) but no Key Vault secret playbook-automation-auth-header");
    expect(warnings[0]).toContain("az keyvault secret set --vault-name kv-abc --name playbook-automation-auth-header");

    secrets.delete("ticketing-auth-header");
    const { deps: again, printed: second } = fakeDeps({ TICKETING_URL: "https://tickets.example" });
    await postprovision(again);
    expect(second.filter((l) => l.startsWith("Warning"))).toEqual([expect.stringContaining("--name ticketing-auth-header")]);
  });

  it("prints the Microsoft Graph grant for the app's identity while directory logs are on, and only then", async () => {
    const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const principal = "5d3c1b2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d";
    const { deps, printed } = fakeDeps({ DIRECTORY_LOGS_TENANT_IDS: tenant, AZURE_TENANT_ID: tenant, APP_IDENTITY_PRINCIPAL_ID: principal });
    await postprovision(deps);
    const grant = printed.slice(printed.findIndex((l) => l.startsWith("Directory logs:")));
    expect(grant[0]).toContain(`the app's identity (${principal}) needs the Microsoft Graph application permissions AuditLog.Read.All and Directory.Read.All`);
    expect(grant[0]).toContain(`Privileged Role Administrator (or Global Administrator) of tenant ${tenant}`);
    expect(grant[1]).toBe("  GRAPH_SP=$(az ad sp show --id 00000003-0000-0000-c000-000000000000 --query id -o tsv)");
    // One app role assignment on Graph's service principal per permission, by the permission's fixed id.
    for (const [i, [role, id]] of [["AuditLog.Read.All", "b0afded3-3588-46d8-8b3d-9842eff778da"], ["Directory.Read.All", "7ab1d382-f21e-4acd-a863-ba3e13f7da61"]].entries()) {
      const line = grant[2 + i]!;
      expect(line).toMatch(/^ {2}az rest --method POST --uri "https:\/\/graph\.microsoft\.com\/v1\.0\/servicePrincipals\/\$GRAPH_SP\/appRoleAssignedTo" --headers Content-Type=application\/json --body '/);
      expect(line.endsWith(`# ${role}`)).toBe(true);
      // What the shell hands to az rest once $GRAPH_SP is substituted: the documented appRoleAssignment body.
      const body = /--body '(.*)'\s+#/.exec(line)![1]!.replace(`'"$GRAPH_SP"'`, "graph-sp-object-id");
      expect(JSON.parse(body)).toEqual({ principalId: principal, resourceId: "graph-sp-object-id", appRoleId: id });
    }
    expect(printed.filter((l) => l.startsWith("Warning"))).toEqual([]);

    const { deps: off, printed: none } = fakeDeps({ AZURE_TENANT_ID: tenant, APP_IDENTITY_PRINCIPAL_ID: principal });
    await postprovision(off);
    expect(none.join("\n")).not.toContain("Microsoft Graph");
  });

  it("warns when directory logs name a tenant other than the managed identity's own, or any tenant (*)", async () => {
    const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const other = "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
    for (const listed of [`${tenant.toUpperCase()}, ${other}`, "*"]) {
      const { deps, printed } = fakeDeps({ DIRECTORY_LOGS_TENANT_IDS: listed, AZURE_TENANT_ID: tenant });
      await postprovision(deps);
      const warnings = printed.filter((l) => l.startsWith("Warning"));
      expect(warnings).toEqual([
        `Warning: DIRECTORY_LOGS_TENANT_IDS names ${listed === "*" ? "*" : other}, but the app's managed identity can read only its own tenant, ${tenant}: list that tenant alone.`,
      ]);
    }
  });

  it("runs the bootstrap once with the vault's keys, remembering the account id in the azd environment", async () => {
    const first = fakeDeps({ BOOTSTRAP_ACCOUNT_NAME: "Contoso Managed Security" });
    await postprovision(first.deps);
    expect(first.envSet).toEqual([["BOOTSTRAP_ACCOUNT_ID", expect.stringMatching(/^[0-9a-f-]{36}$/)]]);
    const accountId = first.envSet[0]![1];
    expect(first.bootstraps).toHaveLength(1);
    expect(first.bootstraps[0]!.argv).toEqual(["--account-name", "Contoso Managed Security", "--account-id", accountId]);
    expect(first.bootstraps[0]!.env).toEqual({
      STORE: "cosmos",
      COSMOS_ENDPOINT: outputs.COSMOS_ENDPOINT,
      COSMOS_DATABASE: "secops",
      SECRET_HASH_KEY: secrets.get("secret-hash-key"),
      PAGE_TOKEN_KEY: secrets.get("page-token-key"),
      WEBHOOK_SECRETS_KEY: secrets.get("webhook-secrets-key"),
    });

    // The next provision: same account, which already has its admin.
    const again = fakeDeps({ BOOTSTRAP_ACCOUNT_NAME: "Contoso Managed Security", BOOTSTRAP_ACCOUNT_ID: accountId });
    again.deps.bootstrapError = new ConfigError(`Account ${accountId} already has a platform-managed admin (x); use --force to add another.`);
    await postprovision(again.deps);
    expect(again.envSet).toEqual([]);
    expect(again.printed).toContain(`Bootstrap: account ${accountId} already has its admin; nothing to do.`);
  });

  it("hands the bootstrap the first person to register as Admin, with their tenant (the portal's, or the deployment's)", async () => {
    const person = { BOOTSTRAP_ADMIN_USER_OBJECT_ID: "5d3c1b2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d", BOOTSTRAP_ADMIN_USER_EMAIL: "ana@contoso.example" };
    const account = { BOOTSTRAP_ACCOUNT_NAME: "Contoso", BOOTSTRAP_ACCOUNT_ID: "a" };
    const portalTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const argvOf = async (env: Record<string, string>) => {
      const run = fakeDeps({ ...account, ...env });
      await postprovision(run.deps);
      return run.bootstraps[0]!.argv;
    };
    expect(await argvOf({ ...person, PORTAL_TENANT_ID: portalTenant, BOOTSTRAP_ADMIN_USER_NAME: "Ana Lima" })).toEqual([
      "--account-name", "Contoso", "--account-id", "a",
      "--admin-user-object-id", person.BOOTSTRAP_ADMIN_USER_OBJECT_ID, "--admin-user-tenant-id", portalTenant,
      "--admin-user-email", "ana@contoso.example", "--admin-user-name", "Ana Lima",
    ]);
    // A multi-tenant registration names no tenant: the deployment's; an explicit one wins over both.
    expect(await argvOf({ ...person, PORTAL_TENANT_ID: "organizations", AZURE_TENANT_ID: "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e" })).toContain("0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
    expect(await argvOf({ ...person, PORTAL_TENANT_ID: portalTenant, BOOTSTRAP_ADMIN_USER_TENANT_ID: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" })).toContain("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d");
    expect(await argvOf({ PORTAL_TENANT_ID: portalTenant })).toEqual(["--account-name", "Contoso", "--account-id", "a"]);
  });

  it("prints what the portal's sign-in still needs, and warns when its client secret is missing from the vault", async () => {
    const env = { AZURE_TENANT_ID: tenantId, PORTAL_TENANT_ID: tenantId, APP_IDENTITY_PRINCIPAL_ID: principalId, PORTAL_REDIRECT_URI: redirectUri, AZURE_ENV_NAME: "secops-prod" };
    const off = fakeDeps(env);
    await postprovision(off.deps);
    const expected = portalSignInInstructions(portalSetupOf(off.deps.env));
    expect(expected[0]).toMatch(/^Portal sign-in is off/);
    const at = off.printed.indexOf(expected[0]!);
    expect(off.printed.slice(at, at + expected.length)).toEqual(expected);

    const withSecret = { ...env, PORTAL_CLIENT_ID: appId, PORTAL_CLIENT_CREDENTIAL: "secret", PORTAL_MFA_AUTH_CONTEXT: "c1" };
    const missing = fakeDeps(withSecret);
    await postprovision(missing.deps);
    expect(missing.printed.filter((l) => l.startsWith("Warning"))).toEqual([
      `Warning: portal sign-in uses a client secret (PORTAL_CLIENT_CREDENTIAL=secret) but Key Vault has no secret portal-client-secret: nobody can sign in. ` +
        `Set it: SECRET=$(az ad app credential reset --id "${appId}" --display-name secops-api --years 1 --query password -o tsv); ` +
        `az keyvault secret set --vault-name kv-abc --name portal-client-secret --value "$SECRET" -o none && unset SECRET; then restart the app.`,
    ]);
    secrets.set("portal-client-secret", "the-client-secret");
    const present = fakeDeps(withSecret);
    await postprovision(present.deps);
    expect(present.printed.filter((l) => l.startsWith("Warning"))).toEqual([]);
    expect(present.printed).toContain(`Portal sign-in: on (client ${appId}, tenant ${tenantId}, secret), MFA through authentication context c1.`);
    expect(present.printed.join("\n")).not.toContain("the-client-secret");
  });

  it("retries the bootstrap while Cosmos DB still refuses the deployer, and fails on anything else", async () => {
    const retried = fakeDeps({ BOOTSTRAP_ACCOUNT_NAME: "Contoso", BOOTSTRAP_ACCOUNT_ID: "a" });
    retried.deps.bootstrapError = new ApiError("UPSTREAM_ERROR", "The store is unavailable.");
    await postprovision(retried.deps);
    expect(retried.bootstraps).toHaveLength(2);
    expect(retried.slept).toEqual([10_000]);

    const broken = fakeDeps({ BOOTSTRAP_ACCOUNT_NAME: "Contoso", BOOTSTRAP_ACCOUNT_ID: "a" });
    broken.deps.bootstrapError = new ConfigError("Invalid configuration");
    await expect(postprovision(broken.deps)).rejects.toThrow("Invalid configuration");
  });

  it("refuses to run before a provision produced its outputs", async () => {
    const { deps } = fakeDeps();
    delete deps.env.KEY_VAULT_URI;
    await expect(postprovision(deps)).rejects.toThrow(/KEY_VAULT_URI .*azd provision/);
  });
});

const tenantId = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const principalId = "5d3c1b2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d";
const redirectUri = "https://func-abc.azurewebsites.net/api/v2/portal/auth/callback";
const appId = "11111111-2222-4333-8444-555555555555";

describe("portal sign-in instructions", () => {
  const setup: PortalSetup = {
    tenantId,
    identityTenantId: tenantId,
    identityPrincipalId: principalId,
    redirectUri,
    credential: "managed-identity",
    environmentName: "secops-prod",
    keyVaultName: "kv-abc",
  };
  const mfaSteps = [
    `  1. Conditional Access > Authentication contexts > New: ID c1 (or another unused one, c1 to c25), "Publish to apps" checked.`,
    `  2. Conditional Access > Policies > New: Users: the people who use the portal (or All users); Target resources: Authentication context c1; Grant: Require multifactor authentication (or an authentication strength); Enable policy: On.`,
    `  3. azd env set PORTAL_MFA_AUTH_CONTEXT c1`,
    `     azd provision`,
  ];
  const mfaReason =
    "Entra's ID tokens show that a sign-in passed MFA only through a Conditional Access authentication context, so until PORTAL_MFA_AUTH_CONTEXT is set the portal refuses every sign-in (MFA_REQUIRED); " +
    `a policy on the app alone does not show in the token. A Conditional Access Administrator of tenant ${tenantId}, once, in the Microsoft Entra admin center:`;

  it("registers the portal with its callback, the sign-in scopes and claims, and the app's managed identity as its credential; then MFA", () => {
    expect(portalSignInInstructions(setup)).toEqual([
      `Portal sign-in is off: PORTAL_CLIENT_ID is not set. To turn it on, register the portal in Entra ID once, signed in with az login to tenant ${tenantId} as an Application Administrator or Cloud Application Administrator:`,
      `  APP_ID=$(az ad app create --display-name "SecOps portal (secops-prod)" --sign-in-audience AzureADMyOrg --web-redirect-uris "${redirectUri}" --enable-id-token-issuance false ` +
        `--optional-claims '{"idToken":[{"name":"email"},{"name":"acrs"}]}' ` +
        `--required-resource-accesses '[{"resourceAppId":"00000003-0000-0000-c000-000000000000","resourceAccess":[{"id":"37f7f235-527c-4136-accd-4a02d197296e","type":"Scope"},{"id":"14dad69e-099b-42c9-810b-d002981feec1","type":"Scope"},{"id":"64a6cdd6-aab1-4aaf-94b8-3cc8405e90d0","type":"Scope"}]}]' --query appId -o tsv)`,
      `  az ad sp create --id "$APP_ID"`,
      `  az ad app permission admin-consent --id "$APP_ID"`,
      `  az ad app federated-credential create --id "$APP_ID" --parameters '{"name":"app-managed-identity","issuer":"https://login.microsoftonline.com/${tenantId}/v2.0","subject":"${principalId}","audiences":["api://AzureADTokenExchange"],"description":"The SecOps API redeems sign-ins as its managed identity, with no client secret."}'`,
      `  azd env set PORTAL_CLIENT_ID "$APP_ID"`,
      `  azd env set BOOTSTRAP_ADMIN_USER_OBJECT_ID "$(az ad signed-in-user show --query id -o tsv)"   # optional: you, as the first Admin`,
      `  azd env set BOOTSTRAP_ADMIN_USER_EMAIL "<your e-mail address>"                                # (with BOOTSTRAP_ACCOUNT_NAME set)`,
      `  azd provision`,
      `Then require MFA: ${mfaReason}`,
      ...mfaSteps,
    ]);
  });

  it("writes JSON the CLI takes as it is: the federated credential Entra documents for a managed identity, and the claims and scopes", () => {
    const lines = portalSignInInstructions(setup);
    // Single-quoted in the shell: what is between the quotes reaches az as is, so each such argument
    // is whole JSON, ending at its closing quote.
    const quoted = (line: string, flag: string) => JSON.parse(new RegExp(`${flag} '([^']*)'(?: |$)`).exec(line)![1]!) as unknown;
    for (const line of lines.filter((l) => l.includes(" '"))) {
      for (const [, argument] of line.matchAll(/ '([^']*)'/g)) expect(() => JSON.parse(argument!), line).not.toThrow();
    }
    const create = lines.find((l) => l.includes("az ad app create"))!;
    expect(quoted(create, "--optional-claims")).toEqual({ idToken: [{ name: "email" }, { name: "acrs" }] });
    expect(quoted(create, "--required-resource-accesses")).toEqual([
      { resourceAppId: "00000003-0000-0000-c000-000000000000", resourceAccess: ["openid", "profile", "email"].map(() => ({ id: expect.any(String), type: "Scope" })) },
    ]);
    const federated = lines.find((l) => l.includes("federated-credential create"))!;
    // Issuer: the identity's tenant's v2.0 authority; subject: the identity's object (principal) id; the token exchange audience.
    expect(quoted(federated, "--parameters")).toMatchObject({
      issuer: `https://login.microsoftonline.com/${tenantId}/v2.0`,
      subject: principalId,
      audiences: ["api://AzureADTokenExchange"],
    });
  });

  it("asks for MFA alone once the registration exists, and says sign-in is on once both are set", () => {
    expect(portalSignInInstructions({ ...setup, clientId: appId })).toEqual([`Warning: portal sign-in is on, but nobody gets in yet: ${mfaReason}`, ...mfaSteps]);
    expect(portalSignInInstructions({ ...setup, clientId: appId, mfaAuthContext: "c3" })).toEqual([
      `Portal sign-in: on (client ${appId}, tenant ${tenantId}, managed-identity), MFA through authentication context c3.`,
    ]);
  });

  it("gives a registration in another tenant a client secret in the vault: a managed identity is trusted in its own tenant only", () => {
    const other = "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
    const lines = portalSignInInstructions({ ...setup, tenantId: other });
    expect(lines.join("\n")).not.toContain("federated-credential");
    expect(lines[1]).toBe(
      `  (A registration in ${other}, not the app's tenant ${tenantId}, cannot trust the app's managed identity: it gets a client secret, kept in the app's Key Vault; sign in to ${tenantId} for the az keyvault command.)`,
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        `  SECRET=$(az ad app credential reset --id "$APP_ID" --display-name secops-api --years 1 --query password -o tsv)`,
        `  az keyvault secret set --vault-name kv-abc --name portal-client-secret --value "$SECRET" -o none && unset SECRET`,
        `  azd env set PORTAL_CLIENT_CREDENTIAL secret`,
      ]),
    );
    // Already registered there with the identity as credential: a warning, with the way out.
    const [warning] = portalSignInInstructions({ ...setup, tenantId: other, clientId: appId, mfaAuthContext: "c1" });
    expect(warning).toMatch(new RegExp(`^Warning: the portal's registration is in tenant ${other}, but the app's managed identity is in ${tenantId}`));
    expect(warning).toContain("azd env set PORTAL_CLIENT_CREDENTIAL secret; azd provision.");
    // Chosen outright, the secret replaces the federated credential in the same tenant too.
    expect(portalSignInInstructions({ ...setup, credential: "secret" }).join("\n")).not.toContain("federated-credential");
  });

  it("registers a multi-tenant portal in the identity's tenant, and reads all of it from the azd environment", () => {
    const lines = portalSignInInstructions({ ...setup, tenantId: "organizations" });
    expect(lines[0]).toContain(`signed in with az login to tenant ${tenantId}`);
    expect(lines[1]).toContain("--sign-in-audience AzureADMultipleOrgs");
    expect(lines.find((l) => l.includes("federated-credential"))).toContain(`"issuer":"https://login.microsoftonline.com/${tenantId}/v2.0"`);

    expect(
      portalSetupOf({
        PORTAL_TENANT_ID: "organizations",
        AZURE_TENANT_ID: tenantId,
        APP_IDENTITY_PRINCIPAL_ID: principalId,
        PORTAL_REDIRECT_URI: redirectUri,
        PORTAL_CLIENT_ID: appId,
        PORTAL_CLIENT_CREDENTIAL: "secret",
        PORTAL_MFA_AUTH_CONTEXT: "c2",
        AZURE_ENV_NAME: "secops-prod",
        KEY_VAULT_NAME: "kv-abc",
      }),
    ).toEqual({ ...setup, tenantId: "organizations", clientId: appId, credential: "secret", mfaAuthContext: "c2" });
    // Empty values are unset ones (azd keeps a variable once set); the tenant falls back to the deployment's.
    expect(portalSetupOf({ AZURE_TENANT_ID: tenantId, PORTAL_CLIENT_ID: "", PORTAL_MFA_AUTH_CONTEXT: "" })).toMatchObject({ tenantId, credential: "managed-identity", clientId: undefined, mfaAuthContext: undefined });
  });
});

describe("the cloud deployed to", () => {
  it("takes Resource Manager, Key Vault, the sign-in authority and the token-exchange audience from the deployment's outputs, the public cloud's before them", () => {
    expect(cloudOf({})).toEqual({
      armEndpoint: "https://management.azure.com",
      armScope: "https://management.azure.com/.default",
      keyVaultScope: "https://vault.azure.net/.default",
      authorityHost: "https://login.microsoftonline.com",
      tokenExchangeAudience: "api://AzureADTokenExchange",
      graphBaseUrl: "https://graph.microsoft.com",
    });
    // What environment() gives in US Government (outputs ARM_ENDPOINT, KEY_VAULT_DNS_SUFFIX, ENTRA_AUTHORITY_HOST, AZURE_CLOUD_NAME).
    const gov = { ARM_ENDPOINT: "https://management.usgovcloudapi.net/", KEY_VAULT_DNS_SUFFIX: ".vault.usgovcloudapi.net", ENTRA_AUTHORITY_HOST: "https://login.microsoftonline.us/", AZURE_CLOUD_NAME: "AzureUSGovernment" };
    expect(cloudOf(gov)).toEqual({
      armEndpoint: "https://management.usgovcloudapi.net",
      armScope: "https://management.usgovcloudapi.net/.default",
      keyVaultScope: "https://vault.usgovcloudapi.net/.default",
      authorityHost: "https://login.microsoftonline.us",
      tokenExchangeAudience: "api://AzureADTokenExchangeUSGov",
      graphBaseUrl: "https://graph.microsoft.us",
    });
    const tenantId = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const lines = portalSignInInstructions(portalSetupOf({ ...gov, AZURE_TENANT_ID: tenantId, APP_IDENTITY_PRINCIPAL_ID: "5d3c1b2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d" })).join("\n");
    expect(lines).toContain(`"issuer":"https://login.microsoftonline.us/${tenantId}/v2.0"`);
    expect(lines).toContain(`"audiences":["api://AzureADTokenExchangeUSGov"]`);
  });
});

describe("preprovision hook", () => {
  it("recovers the environment's Key Vault when it was deleted with the environment", async () => {
    deletedVaults.add("kv-abc");
    const { deps, envSet, printed } = fakeDeps();
    await preprovision(deps);
    expect(envSet).toEqual([["KEY_VAULT_CREATE_MODE", "recover"]]);
    expect(printed[0]).toMatch(/recovers it/);
  });

  it("creates the vault normally when none was deleted, or on a first provision", async () => {
    const existing = fakeDeps({ KEY_VAULT_CREATE_MODE: "recover" });
    await preprovision(existing.deps);
    expect(existing.envSet).toEqual([["KEY_VAULT_CREATE_MODE", "default"]]);

    const first = fakeDeps();
    delete first.deps.env.KEY_VAULT_NAME;
    await preprovision(first.deps);
    expect(first.envSet).toEqual([["KEY_VAULT_CREATE_MODE", "default"]]);
    expect(calls).toHaveLength(1);
  });
});

describe("preprovision hook: the azd environment's values", () => {
  it("turns an empty JSON variable into {}, which azd parses, and leaves set and unset ones alone", async () => {
    const { deps, envSet, printed } = fakeDeps({
      CLOUD_SUBSCRIPTIONS: "",
      AZURE_LOG_ANALYTICS_WORKSPACES: "  ",
      AZURE_LOG_ANALYTICS_CONNECTOR_SOURCES: '{"AzureActiveDirectory":"SourceA"}',
    });
    await preprovision(deps);
    expect(envSet).toEqual([
      ["CLOUD_SUBSCRIPTIONS", "{}"],
      ["AZURE_LOG_ANALYTICS_WORKSPACES", "{}"],
      ["KEY_VAULT_CREATE_MODE", "default"],
    ]);
    expect(printed.filter((line) => line.includes("was empty"))).toHaveLength(2);
  });

  it("accepts extra app settings the app reads, as strings, and warns about a name it does not read", () => {
    const printed: string[] = [];
    checkExtraAppSettings(JSON.stringify({ LOG_LEVEL: "debug", SOURCE_A_MAX_RPS: "5", CROSS_WORKSPACE_BUDGET_MS: "4000", GRAPH_BASE_URL: "https://dod-graph.microsoft.us" }), (l) => printed.push(l));
    expect(printed).toEqual([]);
    checkExtraAppSettings(JSON.stringify({ AzureFunctionsJobHost__logging__logLevel__default: "Warning" }), (l) => printed.push(l));
    expect(printed).toEqual([expect.stringMatching(/^Warning: EXTRA_APP_SETTINGS: the app reads no setting named AzureFunctionsJobHost__logging__logLevel__default/)]);
    for (const empty of [undefined, "", " "]) expect(() => checkExtraAppSettings(empty, () => {})).not.toThrow();
  });

  it("refuses extra app settings that are not an object of strings, that the templates set, or that the app would refuse at start", () => {
    const refusal = (json: string) => {
      try {
        checkExtraAppSettings(json, () => {});
      } catch (error) {
        expect(error).toBeInstanceOf(HookError);
        return (error as Error).message;
      }
      throw new Error(`accepted: ${json}`);
    };
    expect(refusal("LOG_LEVEL=debug")).toMatch(/not JSON/);
    expect(refusal('["LOG_LEVEL"]')).toMatch(/JSON object/);
    expect(refusal('{"SOURCE_A_MAX_RPS":5}')).toMatch(/SOURCE_A_MAX_RPS: give its value as a string/);
    expect(refusal('{"my-setting":"x"}')).toMatch(/my-setting: not an app setting name/);
    // Set by the templates: one would be ignored, the other would put a bridge's secret outside Key Vault.
    const owned = refusal('{"STORE":"memory","SOURCE_A_AUTH_HEADER":"Bearer x"}');
    expect(owned).toMatch(/STORE: set by the templates/);
    expect(owned).toMatch(/SOURCE_A_AUTH_HEADER: set by the templates/);
    expect(refusal('{"LOG_LEVEL":"verbose"}')).toMatch(/refuses[^]*LOG_LEVEL/);
  });

  it("checks extra app settings before anything else, and stops the provision on a bad one", async () => {
    const { deps, envSet } = fakeDeps({ EXTRA_APP_SETTINGS: '{"QUEUE":"inprocess"}' });
    await expect(preprovision(deps)).rejects.toThrow(/QUEUE: set by the templates/);
    expect(calls).toEqual([]);
    expect(envSet).toEqual([]);
  });

  it("pins ZONE_REDUNDANT once: true for a new environment, false for one whose data services exist without zones", async () => {
    const fresh = fakeDeps({ ZONE_REDUNDANT: "" });
    delete fresh.deps.env.COSMOS_ENDPOINT;
    delete fresh.deps.env.KEY_VAULT_NAME;
    await preprovision(fresh.deps);
    expect(fresh.envSet).toContainEqual(["ZONE_REDUNDANT", "true"]);
    expect(fresh.printed).toContainEqual(expect.stringMatching(/^ZONE_REDUNDANT set to true/));

    const existing = fakeDeps();
    delete existing.deps.env.ZONE_REDUNDANT;
    await preprovision(existing.deps);
    expect(existing.envSet).toContainEqual(["ZONE_REDUNDANT", "false"]);
    expect(existing.printed).toContainEqual(expect.stringMatching(/cannot be turned on in place/));

    // Once pinned, either way, left alone; anything else stops the provision before azd fails on it.
    for (const value of ["true", "false"]) {
      const pinned = fakeDeps({ ZONE_REDUNDANT: value });
      await preprovision(pinned.deps);
      expect(pinned.envSet.filter(([name]) => name === "ZONE_REDUNDANT")).toEqual([]);
    }
    await expect(preprovision(fakeDeps({ ZONE_REDUNDANT: "yes" }).deps)).rejects.toThrow(/ZONE_REDUNDANT is "yes"/);
  });

  it("refuses extra app settings Flex Consumption does not take, instead of letting the provision fail on them", () => {
    for (const name of ["FUNCTIONS_WORKER_RUNTIME", "WEBSITE_RUN_FROM_PACKAGE", "WEBSITE_NODE_DEFAULT_VERSION", "FUNCTIONS_EXTENSION_VERSION"]) {
      expect(FLEX_REFUSED_SETTINGS).toContain(name);
      expect(() => checkExtraAppSettings(JSON.stringify({ [name]: "x" }), () => {}), name).toThrow(new RegExp(`${name}: Flex Consumption does not take it`));
    }
  });

  it("keeps the availability test off while the environment has no app, so that a provision before the code cannot alert", async () => {
    appExists = false;
    const gone = fakeDeps({ AVAILABILITY_TEST_ENABLED: "true" });
    await preprovision(gone.deps);
    expect(gone.envSet).toContainEqual(["AVAILABILITY_TEST_ENABLED", "false"]);

    appExists = true;
    const deployed = fakeDeps({ AVAILABILITY_TEST_ENABLED: "true" });
    await preprovision(deployed.deps);
    expect(deployed.envSet.filter(([name]) => name === "AVAILABILITY_TEST_ENABLED")).toEqual([]);

    // A first provision: no app name yet, nothing to ask.
    const first = fakeDeps({ AVAILABILITY_TEST_ENABLED: "true" });
    delete first.deps.env.SERVICE_API_NAME;
    calls.length = 0;
    await preprovision(first.deps);
    expect(first.envSet).toContainEqual(["AVAILABILITY_TEST_ENABLED", "false"]);
    expect(calls.filter((c) => c.path.endsWith("/sites/func-abc"))).toEqual([]);
  });
});

describe("postdeploy hook", () => {
  const id = "/subscriptions/sub-1/resourceGroups/rg-dev/providers/Microsoft.Insights/webtests/health-appi-abc";
  const deployed = {
    location: "westeurope",
    kind: "standard",
    tags: { "hidden-link:/subscriptions/sub-1/resourceGroups/rg-dev/providers/Microsoft.Insights/components/appi-abc": "Resource" },
    properties: { SyntheticMonitorId: "health-appi-abc", Name: "GET /api/v2/health", Enabled: false, Frequency: 900, Locations: [{ Id: "us-va-ash-azr" }], provisioningState: "Succeeded" },
  };

  it("turns the availability test on once the code is deployed, changing nothing else, and records it for later provisions", async () => {
    webtests.set("health-appi-abc", deployed);
    const { deps, envSet, printed } = fakeDeps({ AVAILABILITY_TEST_ID: id });
    await postdeploy(deps);
    const put = calls.find((c) => c.method === "PUT")!;
    expect(put.auth).toBe("Bearer token-for https://management.azure.com/.default");
    const { provisioningState: _state, ...rest } = deployed.properties;
    expect(JSON.parse(put.body)).toEqual({ location: deployed.location, kind: deployed.kind, tags: deployed.tags, properties: { ...rest, Enabled: true } });
    expect(envSet).toEqual([["AVAILABILITY_TEST_ENABLED", "true"]]);
    expect(printed).toEqual([expect.stringMatching(/Availability test .* on/)]);
  });

  it("does nothing once the test is on, and only records it when a provision already turned it on", async () => {
    const on = fakeDeps({ AVAILABILITY_TEST_ID: id, AVAILABILITY_TEST_ENABLED: "true" });
    await postdeploy(on.deps);
    expect(calls).toEqual([]);
    expect(on.envSet).toEqual([]);

    webtests.set("health-appi-abc", { ...deployed, properties: { ...deployed.properties, Enabled: true } });
    const recorded = fakeDeps({ AVAILABILITY_TEST_ID: id });
    await postdeploy(recorded.deps);
    expect(calls.map((c) => c.method)).toEqual(["GET"]);
    expect(recorded.envSet).toEqual([["AVAILABILITY_TEST_ENABLED", "true"]]);
  });

  it("leaves an environment provisioned before the test had an id alone, and fails clearly when Azure Resource Manager cannot find the test", async () => {
    const earlier = fakeDeps();
    await postdeploy(earlier.deps);
    expect(calls).toEqual([]);
    expect(earlier.envSet).toEqual([]);
    expect(earlier.printed).toEqual([expect.stringMatching(/AVAILABILITY_TEST_ID is not in the azd environment/)]);
    await expect(postdeploy(fakeDeps({ AVAILABILITY_TEST_ID: id }).deps)).rejects.toThrow(/Could not read the availability test: HTTP 404/);
  });
});
