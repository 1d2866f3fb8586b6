/**
 * Bicep cannot be compiled here, so these tests read the templates as text and hold them to the code's
 * single sources: the Cosmos containers, the queue names, the settings the code reads, the log
 * messages the alerts look for, and what azd and the hooks expect. A small scan turns Bicep object and
 * array literals into plain values; anything that is not a literal (a reference, a function call)
 * comes back as an `Expr` holding its text.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  BRIDGE_HEADER_SECRETS,
  GRAPH_APP_ROLES,
  JSON_OBJECT_VARIABLES,
  PORTAL_CLIENT_SECRET_NAME,
  TEMPLATE_APP_SETTINGS,
  checkExtraAppSettings,
  hooks,
  portalSetupOf,
  portalSignInInstructions,
} from "../../scripts/azd-hooks";
import { ConfigError, configSettingNames, loadConfig } from "../../shared/platform/config/config";
import { parseWorkspaceResourceId } from "../../shared/systems/log-analytics/azure/azure-log-analytics";
import { MAX_DELIVERY_COUNT, queueNames } from "../../shared/platform/queue/queue-names";
import { SERVICE_BUS_CONNECTION } from "../../shared/hosts/azure/service-bus-trigger";
import { allRoutes } from "../../shared/api/route-groups";
import { sources, sourceSettingKey } from "../../shared/model/sources";
import { containers, type ContainerSpec } from "../../shared/platform/store/cosmos/containers";

const repoDir = path.resolve(__dirname, "../..");
const infraDir = path.join(repoDir, "infra");

function readInfra(relativePath: string): string {
  return stripComments(readFileSync(path.join(infraDir, relativePath), "utf8"));
}

function readRepo(relativePath: string): string {
  return readFileSync(path.join(repoDir, relativePath), "utf8");
}

/** Subscription scope: the resource group, the parameters azd fills, the outputs azd reads. */
const main = readInfra("main.bicep");
/** The resource group's content, with what must match the code. */
const resources = readInfra("resources.bicep");
const cosmosModule = readInfra("modules/cosmos.bicep");
const serviceBusModule = readInfra("modules/service-bus.bicep");
const functionAppModule = readInfra("modules/function-app.bicep");
const roleAssignmentsModule = readInfra("modules/role-assignments.bicep");
const alertsModule = readInfra("modules/alerts.bicep");
const parametersFile = JSON.parse(readFileSync(path.join(infraDir, "main.parameters.json"), "utf8")) as {
  parameters: Record<string, { value: unknown }>;
};
const azureYaml = readRepo("azure.yaml");
const subscriptionReaderModule = readInfra("modules/subscription-reader.bicep");
const logAnalyticsReaderModule = readInfra("modules/log-analytics-reader.bicep");
const privateNetworkModule = readInfra("modules/private-network.bicep");
const diagnosticsModule = readInfra("modules/diagnostics.bicep");

/** Every template and parameter file under infra/, comments removed. */
const allInfraFiles = listFiles(infraDir)
  .filter((file) => /\.(bicep|bicepparam|json)$/.test(file))
  .map((file) => ({ file: path.relative(infraDir, file), text: stripComments(readFileSync(file, "utf8")) }));

describe("infra: Cosmos DB containers", () => {
  const inBicep = literalAfter(resources, "var cosmosContainers =") as BicepObject[];
  const specs: readonly ContainerSpec[] = Object.values(containers);

  it("declares exactly the containers of containers.ts, each once", () => {
    const names = inBicep.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(specs.map((s) => s.name).sort());
  });

  it.each(specs.map((s) => [s.name, s] as const))("gives %s the partition key path and defaultTtl of containers.ts", (name, spec) => {
    const container = inBicep.find((c) => c.name === name);
    expect(container, `container ${name} in resources.bicep`).toBeDefined();
    expect(container!.partitionKeyPath).toBe(spec.partitionKeyPath);
    // Absent means TTL off, in both places.
    expect(container!.defaultTtl).toBe(spec.defaultTtl);
  });

  it("declares the composite indexes of containers.ts wherever the code declares them", () => {
    for (const spec of specs) {
      const container = inBicep.find((c) => c.name === spec.name)!;
      const policy = container.indexingPolicy as BicepObject | undefined;
      if (!spec.indexingPolicy?.compositeIndexes) {
        expect(policy?.compositeIndexes, `${spec.name} has no composite index in the code`).toBeUndefined();
        continue;
      }
      expect(policy?.compositeIndexes, spec.name).toEqual(spec.indexingPolicy.compositeIndexes);
    }
    expect(containers.deliveryLogs.indexingPolicy.compositeIndexes).toEqual([
      [
        { path: "/createdAt", order: "descending" },
        { path: "/id", order: "descending" },
      ],
    ]);
  });

  it("declares the indexing policy of containers.ts for every container, the root excluded", () => {
    for (const spec of specs) {
      const container = inBicep.find((c) => c.name === spec.name)!;
      expect(container.indexingPolicy, spec.name).toEqual(spec.indexingPolicy);
      expect((container.indexingPolicy as BicepObject).excludedPaths, spec.name).toEqual([{ path: "/*" }]);
    }
  });

  it("hands that list to the Cosmos module, which creates every entry with its key, TTL and policy", () => {
    expect(resources).toMatch(/\bcontainers:\s*cosmosContainers\b/);
    expect(cosmosModule).toMatch(/resource \w+ 'Microsoft\.DocumentDB\/databaseAccounts\/sqlDatabases\/containers@[\w-]+' = \[\s*for (\w+) in containers:/);
    expect(cosmosModule).toMatch(/paths:\s*\[\s*\w+\.partitionKeyPath\s*\]/);
  });

  it("leaves defaultTtl and indexingPolicy out of the request where the code sets none, instead of sending null", () => {
    expect(cosmosModule).toMatch(/\bc\.\?defaultTtl == null \? \{\} : \{ defaultTtl: c\.\?defaultTtl \}/);
    expect(cosmosModule).toMatch(/\bc\.\?indexingPolicy == null \? \{\} : \{ indexingPolicy: c\.\?indexingPolicy \}/);
    // Nowhere is the optional value assigned straight to the property (which sends null when absent).
    expect(cosmosModule).not.toMatch(/^\s*defaultTtl:\s*c\.\?defaultTtl\s*$/m);
    expect(cosmosModule).not.toMatch(/^\s*indexingPolicy:\s*c\.\?indexingPolicy\s*$/m);
  });

  it("gives the database name to the app as COSMOS_DATABASE and to the Cosmos module", () => {
    const settings = literalAfter(resources, "var appSettings =") as BicepObject;
    expect(settings.COSMOS_DATABASE).toEqual(new Expr("cosmosDatabaseName"));
    expect(resources).toMatch(/\bdatabaseName:\s*cosmosDatabaseName\b/);
  });

  it("grants the app's identity and the operator the built-in Data Contributor role through sqlRoleAssignments", () => {
    expect(cosmosModule).toContain("Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@");
    expect(cosmosModule).toContain("'00000000-0000-0000-0000-000000000002'");
    expect(resources).toMatch(/dataContributorPrincipalIds:\s*concat\(\[identity\.outputs\.principalId\], empty\(operatorPrincipalId\) \? \[\] : \[operatorPrincipalId\]\)/);
  });

  it("creates the role assignments one at a time and only after the containers (concurrent grants fail with 412)", () => {
    expect(cosmosModule).toMatch(/@batchSize\(1\)\s*resource dataContributors 'Microsoft\.DocumentDB\/databaseAccounts\/sqlRoleAssignments@/);
    const assignments = cosmosModule.slice(cosmosModule.indexOf("resource dataContributors"));
    expect(assignments).toMatch(/dependsOn:\s*\[\s*sqlContainers\s*\]/);
  });
});

describe("infra: Service Bus queues", () => {
  it("declares exactly the queues of queue-names.ts and hands them to the Service Bus module", () => {
    const inBicep = literalAfter(resources, "var queueNames =") as string[];
    expect([...inBicep].sort()).toEqual(Object.values(queueNames).sort());
    expect(resources).toMatch(/\bqueueNames:\s*queueNames\b/);
    expect(serviceBusModule).toMatch(/resource \w+ 'Microsoft\.ServiceBus\/namespaces\/queues@[\w-]+' = \[\s*for \w+ in queueNames:/);
  });

  it("configures every queue with duplicate detection, the code's delivery count and a one-minute lock", () => {
    const properties = literalAfter(serviceBusModule, "'Microsoft.ServiceBus/namespaces/queues@", "properties:") as BicepObject;
    expect(properties).toMatchObject({
      requiresDuplicateDetection: true,
      duplicateDetectionHistoryTimeWindow: "PT10M",
      maxDeliveryCount: MAX_DELIVERY_COUNT,
      lockDuration: "PT1M",
    });
  });

  it("uses the Standard tier, which has duplicate detection (Premium with private networking), and no SAS keys", () => {
    expect(literalAfter(serviceBusModule, "'Microsoft.ServiceBus/namespaces@", "sku:")).toEqual(new Expr("privateNetworking ? premiumSku : standardSku"));
    expect(literalAfter(serviceBusModule, "var standardSku =")).toEqual({ name: "Standard", tier: "Standard" });
    expect(literalAfter(serviceBusModule, "var premiumSku =")).toEqual({ name: "Premium", tier: "Premium", capacity: 1 });
    expect(serviceBusModule).toMatch(/^param privateNetworking bool = false$/m);
    const properties = literalAfter(serviceBusModule, "'Microsoft.ServiceBus/namespaces@", "properties:") as BicepObject;
    expect(properties.disableLocalAuth).toBe(true);
  });

  it("grants the app's identity Data Sender and Data Receiver on the namespace", () => {
    expect(roleAssignmentsModule).toContain("serviceBusDataSender: '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'");
    expect(roleAssignmentsModule).toContain("serviceBusDataReceiver: '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'");
    expect(roleAssignmentsModule).toMatch(/for roleId in \[\s*roles\.serviceBusDataSender\s+roles\.serviceBusDataReceiver\s*\]/);
  });
});

describe("infra: app settings", () => {
  const settings = literalAfter(resources, "var appSettings =") as BicepObject;
  const keyNames = ["SECRET_HASH_KEY", "PAGE_TOKEN_KEY", "WEBHOOK_SECRETS_KEY", "PORTAL_SESSION_KEY"] as const;

  it("sets every setting the code needs to run on Cosmos and Service Bus", () => {
    expect(settings.STORE).toBe("cosmos");
    expect(settings.QUEUE).toBe("servicebus");
    for (const name of ["COSMOS_ENDPOINT", "COSMOS_DATABASE", `${SERVICE_BUS_CONNECTION}__fullyQualifiedNamespace`, ...keyNames]) {
      expect(settings[name], name).toBeDefined();
    }
    expect(settings.COSMOS_ENDPOINT).toEqual(new Expr("cosmos.outputs.endpoint"));
    expect(settings[`${SERVICE_BUS_CONNECTION}__fullyQualifiedNamespace`]).toEqual(new Expr("serviceBus.outputs.fullyQualifiedNamespace"));
  });

  it("makes the code and the Service Bus triggers sign in as the user-assigned identity", () => {
    expect(settings.AZURE_CLIENT_ID).toEqual(new Expr("identity.outputs.clientId"));
    expect(settings[`${SERVICE_BUS_CONNECTION}__credential`]).toBe("managedidentity");
    expect(settings[`${SERVICE_BUS_CONNECTION}__clientId`]).toEqual(new Expr("identity.outputs.clientId"));
  });

  it("takes the four keys from Key Vault references, one secret each, which the hook creates (KEY_VAULT_SECRET_NAMES)", () => {
    const secrets = literalAfter(resources, "var secretNames =") as BicepObject;
    for (const name of keyNames) {
      expect(settings[name], name).toBe(`@Microsoft.KeyVault(VaultName=\${keyVault.outputs.name};SecretName=\${secretNames.${name}})`);
      expect(secrets[name], name).toMatch(/^[0-9a-zA-Z-]{1,127}$/);
    }
    expect(new Set(keyNames.map((n) => secrets[n])).size).toBe(keyNames.length);
    // Exactly these: the hook creates every entry of the output, and the code reads each as a key.
    expect(Object.keys(secrets).sort()).toEqual([...keyNames].sort());
    expect(resources).toMatch(/^output keyVaultSecretNames object = secretNames$/m);
    expect(main).toMatch(/^output KEY_VAULT_SECRET_NAMES object = resources\.outputs\.keyVaultSecretNames$/m);
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(loadConfig({ PORTAL_SESSION_KEY: key }).portalSessions.key).toEqual(Buffer.alloc(32, 7));
  });

  it("never sets a key or connection string the code would prefer over managed identity", () => {
    expect(settings).not.toHaveProperty("COSMOS_KEY");
    expect(settings).not.toHaveProperty(SERVICE_BUS_CONNECTION);
    expect(settings).not.toHaveProperty("COSMOS_TRUST_SELF_SIGNED");
    expect(settings).not.toHaveProperty("WEBHOOK_ALLOW_PRIVATE_TARGETS");
  });

  it("reaches the app merged with the vendor bridges, identity-based host storage and Application Insights", () => {
    expect(resources).toContain("appSettings: union(cloudEndpointSettings, extraAppSettings, appSettings, documentSettings, sourceBridgeSettings, integrationSettings, portalSettings)");
    expect(functionAppModule).toMatch(/name: 'appsettings'\s+properties:\s*union\(appSettings, hostSettings, ownHostSettings\)/);
    const host = literalAfter(functionAppModule, "var hostSettings =") as BicepObject;
    expect(host.AzureWebJobsStorage__credential).toBe("managedidentity");
    expect(host.AzureWebJobsStorage__clientId).toEqual(new Expr("identityClientId"));
    expect(host).not.toHaveProperty("AzureWebJobsStorage");
    expect(host).toHaveProperty("APPLICATIONINSIGHTS_CONNECTION_STRING");
    expect(host.APPLICATIONINSIGHTS_AUTHENTICATION_STRING).toBe("Authorization=AAD;ClientId=${identityClientId}");
  });

  it("points host storage at the blob and table endpoints only, matching the identity's blob and table roles", () => {
    const host = literalAfter(functionAppModule, "var hostSettings =") as BicepObject;
    expect(host.AzureWebJobsStorage__blobServiceUri).toEqual(new Expr("storage.properties.primaryEndpoints.blob"));
    // The host's diagnostic events go to a table.
    expect(host.AzureWebJobsStorage__tableServiceUri).toEqual(new Expr("storage.properties.primaryEndpoints.table"));
    // With the account name, the host would derive a queue endpoint it has no role on.
    expect(host).not.toHaveProperty("AzureWebJobsStorage__accountName");
    expect(Object.keys(host).filter((k) => /^AzureWebJobsStorage__(queue|file)ServiceUri$/.test(k))).toEqual([]);
    expect(roleAssignmentsModule).toContain("storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'");
    expect(roleAssignmentsModule).toContain("storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'");
    expect(roleAssignmentsModule).toMatch(
      /name: guid\(storage\.id, appPrincipalId, roles\.storageTableDataContributor\)\s+scope: storage\s+properties: \{\s+roleDefinitionId: subscriptionResourceId\('Microsoft\.Authorization\/roleDefinitions', roles\.storageTableDataContributor\)\s+principalId: appPrincipalId/,
    );
    expect(roleAssignmentsModule).not.toMatch(/storageQueueData/);
  });

  it("lets Key Vault references resolve as the user-assigned identity", () => {
    expect(functionAppModule).toMatch(/keyVaultReferenceIdentity:\s*identityResourceId\b/);
    expect(roleAssignmentsModule).toContain("keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'");
    expect(roleAssignmentsModule).toMatch(/roleDefinitions', roles\.keyVaultSecretsUser\)\s+principalId: appPrincipalId/);
  });
});

describe("infra: function app", () => {
  it("runs Node.js 22 on a Linux Flex Consumption plan", () => {
    expect(literalAfter(functionAppModule, "functionAppConfig:", "runtime:")).toEqual({ name: "node", version: "22" });
    expect(literalAfter(functionAppModule, "'Microsoft.Web/serverfarms@", "sku:")).toEqual({ tier: "FlexConsumption", name: "FC1" });
    expect(functionAppModule).toContain("kind: 'functionapp,linux'");
  });

  it("sets no app setting that Flex Consumption rejects (the runtime is in functionAppConfig)", () => {
    for (const { file, text } of allInfraFiles) {
      expect(text, file).not.toMatch(/FUNCTIONS_WORKER_RUNTIME|FUNCTIONS_EXTENSION_VERSION|WEBSITE_NODE_DEFAULT_VERSION|WEBSITE_RUN_FROM_PACKAGE/);
    }
  });
});

describe("infra: no secrets in the templates", () => {
  it("reads no keys or connection strings of any resource", () => {
    for (const { file, text } of allInfraFiles) {
      expect(text, file).not.toMatch(/\blist\w*\(|listKeys|listConnectionStrings|AccountKey=|SharedAccessKey|DefaultEndpointsProtocol=/i);
    }
  });

  it("takes no secrets as parameters and creates no Key Vault secrets: the operator sets them", () => {
    // @secure() only where it keeps the operator's extra settings out of the deployment history.
    const secure = allInfraFiles.flatMap(({ file, text }) => [...text.matchAll(/@secure\(\)\s*param (\w+) (\w+)/g)].map((m) => `${file}: ${m[1]} ${m[2]}`));
    expect(secure.sort()).toEqual(["main.bicep: extraAppSettings object", "modules/function-app.bicep: appSettings object", "resources.bicep: extraAppSettings object"]);
    for (const { file, text } of allInfraFiles) {
      expect(text, file).not.toContain("Microsoft.KeyVault/vaults/secrets");
      expect(text, file).not.toMatch(/^\s*secrets:/m);
    }
  });

  it("holds no literal that looks like key material", () => {
    for (const { file, text } of allInfraFiles) {
      for (const literal of stringLiterals(text)) {
        expect(looksLikeKeyMaterial(literal), `${file}: '${literal}'`).toBe(false);
      }
    }
  });

  it("disables key-based access on Cosmos DB, Service Bus, Storage and Application Insights", () => {
    expect(cosmosModule).toMatch(/disableLocalAuth:\s*true/);
    expect(serviceBusModule).toMatch(/disableLocalAuth:\s*true/);
    expect(resources).toMatch(/allowSharedKeyAccess:\s*false/);
    expect(literalAfter(resources, "module appInsights", "params:")).toMatchObject({ disableLocalAuth: true });
  });
});

describe("infra: vendor bridges", () => {
  const letters = sources.map(sourceSettingKey);

  it("takes one bridge URL parameter per source, filled from SOURCE_<X>_URL, and hands all of them on by letter", () => {
    const passed = literalAfter(main, "module resources", "sourceBridgeUrls:") as BicepObject;
    expect(Object.keys(passed).sort()).toEqual([...letters].sort());
    for (const x of letters) {
      expect(main).toMatch(new RegExp(`^param source${x}Url string = ''$`, "m"));
      expect(passed[x]).toEqual(new Expr(`source${x}Url`));
      expect(parametersFile.parameters[`source${x}Url`]).toEqual({ value: `\${SOURCE_${x}_URL}` });
    }
  });

  it("sets SOURCE_<X>_URL and SOURCE_<X>_AUTH_HEADER (a Key Vault reference) for configured bridges only, names the code reads", () => {
    expect(resources).toMatch(/var sourceBridges = filter\(items\(sourceBridgeUrls\), bridge => !empty\(bridge\.value\)\)/);
    expect(resources).toContain("bridge => 'SOURCE_${toUpper(bridge.key)}_URL', bridge => bridge.value");
    expect(resources).toContain("bridge => 'SOURCE_${toUpper(bridge.key)}_AUTH_HEADER'");
    expect(resources).toContain("bridge => '@Microsoft.KeyVault(VaultName=${names.keyVault};SecretName=source-${toLower(bridge.key)}-auth-header)'");
    expect(literalAfter(resources, "module keyVault", "params:")).toMatchObject({ name: new Expr("names.keyVault") });
    // The names the template produces are the ones shared/platform/config/config.ts reads.
    const env = Object.fromEntries(letters.flatMap((x) => [[`SOURCE_${x}_URL`, `https://bridge.example/${x}`], [`SOURCE_${x}_AUTH_HEADER`, `Bearer ${x}`]]));
    const config = loadConfig(env);
    for (const source of sources) {
      const x = sourceSettingKey(source);
      expect(config.httpSources[source]).toMatchObject({ baseUrl: `https://bridge.example/${x}`, authHeader: `Bearer ${x}` });
    }
    // The postprovision hook checks the same secret names, for the same settings.
    for (const source of sources) {
      const x = sourceSettingKey(source);
      expect(BRIDGE_HEADER_SECRETS).toContainEqual({ bridge: source, urlSetting: `SOURCE_${x}_URL`, secret: `source-${x.toLowerCase()}-auth-header` });
    }
  });
});

describe("infra: azd", () => {
  it("azure.yaml deploys the service `api` (TypeScript, Azure Functions) from the folder the package script builds, locally built", () => {
    expect(azureYaml).toMatch(/^name: secops-management-api$/m);
    const api = azureYaml.slice(azureYaml.indexOf("\n  api:\n"), azureYaml.indexOf("\nhooks:"));
    expect(api).toMatch(/^ {4}project: \.$/m);
    expect(api).toMatch(/^ {4}language: ts$/m);
    expect(api).toMatch(/^ {4}host: function$/m);
    expect(api).toMatch(/^ {4}remoteBuild: false$/m);
    const dist = /^ {4}dist: (\S+)$/m.exec(api)?.[1];
    expect(dist).toBe("build/function-app");
    expect(api).toMatch(new RegExp(`prepackage:\\s+run: node scripts/package-function\\.mjs ${dist}$`, "m"));
    // azd reads a .funcignore at the project root to decide on a remote build, and refuses
    // remoteBuild: false when it excludes node_modules; the zip's own .funcignore is the package's
    // (test/integration/deploy-zip.test.ts).
    expect(() => readRepo(".funcignore")).toThrow();
    // 1.23.12: the first azd that keeps node_modules in a JavaScript function app's zip with remoteBuild: false.
    expect(azureYaml).toMatch(/^requiredVersions:\n {2}azd: ">= 1\.23\.12"$/m);
  });

  it("azure.yaml runs each hook that scripts/azd-hooks.ts defines, through the launcher", () => {
    const hookSection = azureYaml.slice(azureYaml.indexOf("\nhooks:"));
    const wired = [...hookSection.matchAll(/^ {2}(\w+):\n(?: {4}#.*\n)*? {4}run: node scripts\/azd-hook\.mjs (\w+)$/gm)].map((m) => [m[1], m[2]]);
    expect(wired).toEqual(Object.keys(hooks).map((name) => [name, name]));
    expect(hookSection).toMatch(/postprovision:\n {4}run: .*\n {4}interactive: true/);
  });

  it("tags the function app with azd-service-name `api`", () => {
    expect(functionAppModule).toMatch(/tags: union\(tags, \{\s*'azd-service-name': serviceName\s*\}\)/);
    expect(resources).toMatch(/module functionApp 'modules\/function-app\.bicep'[\s\S]*?serviceName: 'api'/);
  });

  it("deploys at subscription scope into rg-<environment>, tagged with the environment, from azd's parameters", () => {
    expect(main).toMatch(/^targetScope = 'subscription'$/m);
    expect(main).toMatch(/name: 'rg-\$\{environmentName\}'/);
    expect(literalAfter(main, "var tags =")).toEqual({ "azd-env-name": new Expr("environmentName") });
    expect(main).toMatch(/module resources 'resources\.bicep' = \{\s*name: 'resources'\s*scope: rg/);
    expect(resources).toMatch(/^targetScope = 'resourceGroup'$/m);
    expect(main).toMatch(/@metadata\(\{\s*azd: \{\s*type: 'location'\s*\}\s*\}\)\s*param location string/);
    expect(parametersFile.parameters.environmentName).toEqual({ value: "${AZURE_ENV_NAME}" });
    expect(parametersFile.parameters.location).toEqual({ value: "${AZURE_LOCATION}" });
  });

  it("fills only parameters main.bicep declares, and every parameter without a default", () => {
    const declared = [...main.matchAll(/^param (\w+) \w+( = .*)?$/gm)].map((m) => ({ name: m[1]!, hasDefault: m[2] !== undefined }));
    expect(Object.keys(parametersFile.parameters).filter((p) => !declared.some((d) => d.name === p))).toEqual([]);
    for (const d of declared.filter((d) => !d.hasDefault)) expect(parametersFile.parameters, d.name).toHaveProperty(d.name);
  });

  it("takes the operator from OPERATOR_PRINCIPAL_ID (a group, best), and from deployer() when it is unset or empty", () => {
    expect(main).toMatch(/^param operatorPrincipalId string = deployer\(\)\.objectId$/m);
    expect(parametersFile.parameters.operatorPrincipalId).toEqual({ value: "${OPERATOR_PRINCIPAL_ID}" });
    // azd passes an empty variable on as '' rather than leaving the default.
    expect(literalAfter(main, "module resources", "params:")).toMatchObject({
      operatorPrincipalId: new Expr("empty(operatorPrincipalId) ? deployer().objectId : operatorPrincipalId"),
    });
    expect(resources).toMatch(/^param operatorPrincipalId string = ''$/m);
    // No principalType on the operator's grants: a user, a group or a service principal.
    const operatorGrants = roleAssignmentsModule.slice(roleAssignmentsModule.indexOf("resource operatorSecretsOfficer"));
    expect(operatorGrants).not.toContain("principalType");
    for (const { file, text } of allInfraFiles) expect(text, file).not.toMatch(/readEnvironmentVariable/);
  });

  it("outputs what azd reads, and every value the hooks require from the azd environment", () => {
    const outputs = [...main.matchAll(/^output (\w+) \w+ = /gm)].map((m) => m[1]);
    for (const name of ["AZURE_LOCATION", "AZURE_TENANT_ID", "AZURE_RESOURCE_GROUP", "SERVICE_API_NAME"]) expect(outputs).toContain(name);
    const hookSource = readRepo("scripts/azd-hooks.ts");
    const read = new Set([...hookSource.matchAll(/required\(env, "(\w+)"\)|env\.(\w+)/g)].map((m) => m[1] ?? m[2]!));
    // Set by azd itself, by the operator (azd env set), or by the hooks.
    const notOutputs = new Set([
      "AZURE_SUBSCRIPTION_ID",
      "AZURE_TENANT_ID",
      "KEY_VAULT_CREATE_MODE",
      "BOOTSTRAP_ACCOUNT_NAME",
      "BOOTSTRAP_ACCOUNT_ID",
      "BOOTSTRAP_ADMIN_USER_OBJECT_ID",
      "BOOTSTRAP_ADMIN_USER_TENANT_ID",
      "BOOTSTRAP_ADMIN_USER_EMAIL",
      "BOOTSTRAP_ADMIN_USER_NAME",
      "DIRECTORY_LOGS_TENANT_IDS",
      "AZURE_ENV_NAME",
      "PORTAL_CLIENT_ID",
      "PORTAL_CLIENT_CREDENTIAL",
      "PORTAL_MFA_AUTH_CONTEXT",
      "AVAILABILITY_TEST_ENABLED",
      "EXTRA_APP_SETTINGS",
      "ZONE_REDUNDANT",
    ]);
    for (const name of read) if (!notOutputs.has(name)) expect(outputs, name).toContain(name);
    // The operator commands read the same names: npm run dlq (SERVICE_BUS_NAMESPACE) and the app's own settings.
    expect(readRepo("scripts/dlq.ts")).toContain("env.SERVICE_BUS_NAMESPACE");
    expect(outputs).toEqual(expect.arrayContaining(["SERVICE_BUS_NAMESPACE", "COSMOS_ENDPOINT", "COSMOS_DATABASE"]));
  });
});

describe("infra: Key Vault", () => {
  it("recovers a soft-deleted vault when the preprovision hook says so", () => {
    expect(main).toMatch(/@allowed\(\[\s*'default'\s*'recover'\s*\]\)\s*param keyVaultCreateMode string = 'default'/);
    expect(parametersFile.parameters.keyVaultCreateMode).toEqual({ value: "${KEY_VAULT_CREATE_MODE:=default}" });
    expect(literalAfter(resources, "module keyVault", "params:")).toMatchObject({
      createMode: new Expr("keyVaultCreateMode"),
      enableRbacAuthorization: true,
      enableSoftDelete: true,
      enablePurgeProtection: true,
    });
    expect(readRepo("scripts/azd-hooks.ts")).toContain('deps.setEnv("KEY_VAULT_CREATE_MODE", mode)');
  });

  it("names the vault after the environment, so a redeploy finds the same (recoverable) vault", () => {
    expect(resources).toMatch(/var resourceToken = toLower\(uniqueString\(subscription\(\)\.id, environmentName, location\)\)/);
    expect(literalAfter(resources, "var names =")).toMatchObject({ keyVault: "kv-${resourceToken}" });
  });

  it("lets the operator set secrets and the app only read them", () => {
    expect(roleAssignmentsModule).toContain("keyVaultSecretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'");
    expect(roleAssignmentsModule).toMatch(/roleDefinitions', roles\.keyVaultSecretsOfficer\)\s+principalId: operatorPrincipalId/);
  });
});

describe("infra: operator access", () => {
  it("grants the operator Service Bus Data Sender and Receiver (npm run dlq)", () => {
    expect(roleAssignmentsModule).toMatch(
      /for roleId in \(empty\(operatorPrincipalId\) \? \[\] : \[\s*roles\.serviceBusDataSender\s+roles\.serviceBusDataReceiver\s*\]\): \{[\s\S]*?principalId: operatorPrincipalId/,
    );
  });
});

describe("infra: monitoring", () => {
  it("sends Cosmos DB and Service Bus diagnostic logs to the Log Analytics workspace", () => {
    for (const [module, text] of [
      ["cosmos", cosmosModule],
      ["service-bus", serviceBusModule],
    ] as const) {
      expect(text, module).toMatch(/resource diagnostics 'Microsoft\.Insights\/diagnosticSettings@[\w-]+' = \{[\s\S]*?workspaceId: logAnalyticsWorkspaceId/);
      expect(resources).toMatch(new RegExp(`module \\w+ 'modules/${module}\\.bicep' = \\{[\\s\\S]*?logAnalyticsWorkspaceId: logAnalytics\\.outputs\\.resourceId`));
    }
  });

  it("lets the app's identity publish telemetry to Application Insights, which takes Entra ID-authenticated telemetry only", () => {
    expect(roleAssignmentsModule).toContain("monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'");
    expect(roleAssignmentsModule).toMatch(/scope: appInsights\s+properties: \{\s+roleDefinitionId: subscriptionResourceId\('Microsoft\.Authorization\/roleDefinitions', roles\.monitoringMetricsPublisher\)\s+principalId: appPrincipalId/);
    // The worker's exporters read the same setting as the host to pick the identity.
    expect(readRepo("shared/hosts/telemetry.ts")).toContain("env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING");
  });

  it("runs the Functions host's telemetry as OpenTelemetry, as the worker does", () => {
    expect(JSON.parse(readRepo("host.json")).telemetryMode).toBe("OpenTelemetry");
    expect(readRepo("functions/telemetry.ts")).toContain("startTelemetry()");
  });
});

describe("infra: alerts", () => {
  it("routes every alert to one action group whose email is a parameter", () => {
    expect(parametersFile.parameters.alertEmail).toEqual({ value: "${ALERT_EMAIL}" });
    expect(literalAfter(main, "module resources", "params:")).toMatchObject({ alertEmail: new Expr("alertEmail") });
    expect(literalAfter(resources, "module alerts", "params:")).toMatchObject({ alertEmail: new Expr("alertEmail") });
    expect(alertsModule).toMatch(/emailAddress: alertEmail/);
    const alertResources = [...alertsModule.matchAll(/^resource \w+ 'Microsoft\.Insights\/(metricAlerts|scheduledQueryRules)@/gm)];
    expect(alertResources.length).toBeGreaterThanOrEqual(3);
    expect(alertsModule.match(/actionGroupId: actionGroup\.id/g)?.length).toBe(3);
    // The log and backlog alerts (modules/operations-alerts.bicep) go to the same group.
    expect(resources).toMatch(/actionGroupId: alerts\.outputs\.actionGroupId/);
  });

  it("alerts on dead letters above zero on any queue, and on lasting Cosmos DB 429s", () => {
    const deadLetters = literalAfter(alertsModule, "resource deadLetters", "allOf:") as BicepObject[];
    expect(deadLetters[0]).toMatchObject({ metricName: "DeadletteredMessages", operator: "GreaterThan", threshold: 0, dimensions: [{ name: "EntityName", operator: "Include", values: ["*"] }] });
    const throttling = literalAfter(alertsModule, "resource cosmosThrottling", "allOf:") as BicepObject[];
    expect(throttling[0]).toMatchObject({ metricName: "TotalRequests", operator: "GreaterThan", dimensions: [{ name: "StatusCode", operator: "Include", values: ["429"] }] });
  });

  it("watches GET /api/v2/health, a public route of the API, with an availability test and its alert", () => {
    expect(literalAfter(resources, "module alerts", "params:")).toMatchObject({ healthUrl: "https://${functionApp.outputs.defaultHostName}/api/v2/health" });
    expect(allRoutes().some((r) => r.method === "GET" && r.path === "/health" && r.auth === "public")).toBe(true);
    expect(literalAfter(alertsModule, "resource healthTest", "Request:")).toMatchObject({ RequestUrl: new Expr("healthUrl"), HttpVerb: "GET" });
    expect(alertsModule).toMatch(/'odata\.type': 'Microsoft\.Azure\.Monitor\.WebtestLocationAvailabilityCriteria'\s*webTestId: healthTest\.id/);
  });

  it("leaves what only the service knows to the operations alerts, whose queries test/integration/monitoring-queries.test.ts holds to the code", () => {
    expect(alertsModule).not.toContain("var logAlerts =");
    expect(readInfra("modules/operations-alerts.bicep")).toContain("var logAlerts =");
    expect(resources).toMatch(/^module operationsAlerts 'modules\/operations-alerts\.bicep' = \{/m);
  });
});

describe("infra: cloud-resource lookups", () => {
  const settings = literalAfter(resources, "var appSettings =") as BicepObject;

  it("takes the account → subscriptions map as one parameter, empty by default, filled from CLOUD_SUBSCRIPTIONS (JSON) in the azd environment", () => {
    expect(main).toMatch(/^param cloudSubscriptions object = \{\}$/m);
    expect(resources).toMatch(/^param cloudSubscriptions object = \{\}$/m);
    expect(literalAfter(main, "module resources", "params:")).toMatchObject({ cloudSubscriptions: new Expr("cloudSubscriptions") });
    expect(parametersFile.parameters.cloudSubscriptions).toEqual({ value: "${CLOUD_SUBSCRIPTIONS}" });
  });

  it("hands the map to the app as CLOUD_SUBSCRIPTIONS and turns Azure Resource Manager on only when a subscription is named", () => {
    expect(settings.CLOUD_SUBSCRIPTIONS).toEqual(new Expr("string(cloudSubscriptions)"));
    expect(settings.CLOUD_INVENTORY).toEqual(new Expr("empty(cloudSubscriptionIds) ? 'disabled' : 'azure'"));
    // Both values, and what string() makes of an empty and a filled map, are settings the code accepts.
    const account = "6f0c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c";
    const subscription = "2b1d4c6e-8f0a-4b2c-9d3e-5f6a7b8c9d0e";
    expect(loadConfig({ CLOUD_INVENTORY: "disabled", CLOUD_SUBSCRIPTIONS: "{}" }).cloud.inventory).toBe("disabled");
    const on = loadConfig({ CLOUD_INVENTORY: "azure", CLOUD_SUBSCRIPTIONS: JSON.stringify({ [account]: [subscription] }) });
    expect(on.cloud).toMatchObject({ inventory: "azure", subscriptions: { [account]: [subscription] } });
    // The cloud's own Resource Manager endpoint (below, "cloud endpoints"), not among these settings.
    expect(settings).not.toHaveProperty("CLOUD_ARM_ENDPOINT");
  });

  it("grants the app's identity Reader on every subscription named, each once, at that subscription's scope", () => {
    expect(literalAfter(resources, "var cloudSubscriptionIds =")).toEqual(
      new Expr("union(map(flatten(map(items(cloudSubscriptions), entry => entry.value)), id => toLower(id)), [])"),
    );
    expect(resources).toMatch(
      /module \w+ 'modules\/subscription-reader\.bicep' = \[\s*for (\w+) in cloudSubscriptionIds: \{[^]*?scope: subscription\(\1\)[^]*?principalId: identity\.outputs\.principalId/,
    );
    // One deployment name per resource group and subscription: two deployments of the template can read the same subscription.
    expect(resources).toMatch(/name: 'reader-\$\{uniqueString\(resourceGroup\(\)\.id, (\w+)\)\}'/);
    expect(subscriptionReaderModule).toMatch(/^targetScope = 'subscription'$/m);
    expect(subscriptionReaderModule).toContain("readerRoleId = 'acdd72a7-3385-48ef-bd42-f606fba81ae7'");
    expect(subscriptionReaderModule).toMatch(/roleDefinitions', readerRoleId\)\s+principalId: principalId\s+principalType: 'ServicePrincipal'/);
    expect(subscriptionReaderModule).toMatch(/name: guid\(subscription\(\)\.id, principalId, readerRoleId\)/);
  });

  it("grants nothing but Reader there: one role assignment, no other resource", () => {
    const declared = [...subscriptionReaderModule.matchAll(/^resource \w+ '([^']+)'/gm)].map((m) => m[1]);
    expect(declared).toEqual(["Microsoft.Authorization/roleAssignments@2022-04-01"]);
    expect([...subscriptionReaderModule.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)].map((m) => m[0])).toEqual([
      "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    ]);
  });
});

describe("infra: the other integrations", () => {
  /** Each integration: its parameter (main.bicep and resources.bicep), azd variable, settings variable, and the empty default. */
  const integrations = [
    { param: "playbookAutomationUrl", type: "string", azd: "PLAYBOOK_AUTOMATION_URL", settings: "playbookAutomationSettings" },
    { param: "ticketingBridgeUrl", type: "string", azd: "TICKETING_URL", settings: "ticketingSettings" },
    { param: "directoryLogsTenantIds", type: "string", azd: "DIRECTORY_LOGS_TENANT_IDS", settings: "directoryLogsSettings" },
    { param: "logAnalyticsWorkspaces", type: "object", azd: "AZURE_LOG_ANALYTICS_WORKSPACES", settings: "logAnalyticsWorkspacesSettings" },
    { param: "logAnalyticsConnectorSources", type: "object", azd: "AZURE_LOG_ANALYTICS_CONNECTOR_SOURCES", settings: "logAnalyticsConnectorSourcesSettings" },
  ] as const;
  const settingsOf = (variable: string) => literalAfter(resources, `var ${variable} =`) as BicepObject;
  const emitted = integrations.flatMap((i) => Object.keys(settingsOf(i.settings)));
  const workspace = "3f6c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c";
  const workspaceResourceId = "/subscriptions/2b1d4c6e-8f0a-4b2c-9d3e-5f6a7b8c9d0e/resourceGroups/rg-soc-logs/providers/Microsoft.OperationalInsights/workspaces/law-contoso";
  const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
  /** What the app reads once the platform has resolved the Key Vault references. */
  const sample: Record<string, string> = {
    PLAYBOOK_AUTOMATION_URL: "https://automation.contoso.example",
    PLAYBOOK_AUTOMATION_AUTH_HEADER: "Bearer automation",
    TICKETING_URL: "https://tickets.contoso.example",
    TICKETING_AUTH_HEADER: "Bearer tickets",
    DIRECTORY_LOGS_TENANT_IDS: tenant,
    LOG_ANALYTICS_WORKSPACES: `${workspace}=${workspaceResourceId}`,
    LOG_ANALYTICS_CONNECTOR_SOURCES: "AzureActiveDirectory=SourceA",
  };
  // Fixed keys: without them loadConfig draws random ones and two loads never compare equal.
  const keys = { SECRET_HASH_KEY: "a".repeat(64), PAGE_TOKEN_KEY: "b".repeat(64), WEBHOOK_SECRETS_KEY: "c".repeat(64) };

  it("takes one parameter per integration, empty by default, filled from the azd environment and handed to resources.bicep", () => {
    const passed = literalAfter(main, "module resources", "params:") as BicepObject;
    for (const { param, type, azd } of integrations) {
      const empty = type === "string" ? "''" : "{}";
      expect(main, param).toMatch(new RegExp(`^param ${param} ${type} = ${escapeRegExp(empty)}$`, "m"));
      expect(resources, param).toMatch(new RegExp(`^param ${param} ${type} = ${escapeRegExp(empty)}$`, "m"));
      expect(passed[param], param).toEqual(new Expr(param));
      expect(parametersFile.parameters[param], param).toEqual({ value: `\${${azd}}` });
    }
  });

  it("names a string parameter's azd variable after the setting the app reads, and gives the JSON objects names the app does not read", () => {
    // `azd env get-values` is loaded into the shell for `npm run bootstrap` (docs/operating.md), which reads the app's
    // settings: a JSON value under LOG_ANALYTICS_WORKSPACES would stop it, as it would stop the app.
    for (const { azd } of integrations.filter((i) => i.type === "string")) expect(sample[azd], azd).toBeDefined();
    const json = JSON.stringify({ [workspace]: workspaceResourceId });
    expect(() => loadConfig({ LOG_ANALYTICS_WORKSPACES: json })).toThrow(ConfigError);
    expect(loadConfig({ AZURE_LOG_ANALYTICS_WORKSPACES: json, AZURE_LOG_ANALYTICS_CONNECTOR_SOURCES: '{"AzureActiveDirectory":"SourceA"}' }).logAnalytics).toBeUndefined();
  });

  it("sets an integration's settings only when its parameter is set, and none of them unconditionally", () => {
    const union = literalAfter(resources, "var integrationSettings =");
    expect(union).toBeInstanceOf(Expr);
    const terms = /^union\(([^]*)\)$/.exec((union as Expr).text)![1]!.split(",").map((t) => t.trim());
    expect(terms).toEqual(integrations.map((i) => `empty(${i.param}) ? {} : ${i.settings}`));
    expect(resources).toContain("appSettings: union(cloudEndpointSettings, extraAppSettings, appSettings, documentSettings, sourceBridgeSettings, integrationSettings, portalSettings)");
    const always = literalAfter(resources, "var appSettings =") as BicepObject;
    for (const name of emitted) expect(always, name).not.toHaveProperty(name);
  });

  it("emits only setting names shared/platform/config/config.ts reads, each of which changes what the app configures", () => {
    expect([...emitted].sort()).toEqual(Object.keys(sample).sort());
    const all = { ...keys, ...sample };
    const full = JSON.stringify(loadConfig(all));
    for (const name of emitted) {
      const without: Record<string, string> = { ...all };
      delete without[name];
      expect(JSON.stringify(loadConfig(without)), `${name} is read by shared/platform/config/config.ts`).not.toBe(full);
    }
    expect(loadConfig(all)).toMatchObject({
      playbookAutomation: { baseUrl: "https://automation.contoso.example", authHeader: "Bearer automation" },
      ticketing: { baseUrl: "https://tickets.contoso.example", authHeader: "Bearer tickets" },
      directoryLogs: { tenants: [tenant] },
      logAnalytics: { workspaces: { [workspace]: workspaceResourceId }, connectorSources: { AzureActiveDirectory: "SourceA" } },
    });
  });

  it("passes the URLs and the tenant list as given, and the bridges' headers as Key Vault references to their own secrets", () => {
    expect(settingsOf("playbookAutomationSettings")).toEqual({
      PLAYBOOK_AUTOMATION_URL: new Expr("playbookAutomationUrl"),
      PLAYBOOK_AUTOMATION_AUTH_HEADER: "@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${integrationSecretNames.PLAYBOOK_AUTOMATION_AUTH_HEADER})",
    });
    expect(settingsOf("ticketingSettings")).toEqual({
      TICKETING_URL: new Expr("ticketingBridgeUrl"),
      TICKETING_AUTH_HEADER: "@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${integrationSecretNames.TICKETING_AUTH_HEADER})",
    });
    expect(settingsOf("directoryLogsSettings")).toEqual({ DIRECTORY_LOGS_TENANT_IDS: new Expr("directoryLogsTenantIds") });

    const secretsOf = literalAfter(resources, "var integrationSecretNames =") as BicepObject;
    expect(secretsOf).toEqual({ PLAYBOOK_AUTOMATION_AUTH_HEADER: "playbook-automation-auth-header", TICKETING_AUTH_HEADER: "ticketing-auth-header" });
    // The postprovision hook checks the same secrets, for the same azd variables.
    expect(BRIDGE_HEADER_SECRETS.filter((b) => !b.urlSetting.startsWith("SOURCE_"))).toEqual([
      { bridge: "Playbook automation", urlSetting: "PLAYBOOK_AUTOMATION_URL", secret: secretsOf.PLAYBOOK_AUTOMATION_AUTH_HEADER },
      { bridge: "Ticketing", urlSetting: "TICKETING_URL", secret: secretsOf.TICKETING_AUTH_HEADER },
    ]);
    // Valid Key Vault secret names, none shared with the keys or the source bridges.
    const keySecrets = Object.values(literalAfter(resources, "var secretNames =") as BicepObject);
    const allSecrets = [...keySecrets, ...BRIDGE_HEADER_SECRETS.map((b) => b.secret)];
    for (const name of allSecrets) expect(name).toMatch(/^[0-9a-zA-Z-]{1,127}$/);
    expect(new Set(allSecrets).size).toBe(allSecrets.length);
  });

  it("joins the Log Analytics maps into the key=value lists config.ts reads", () => {
    expect(settingsOf("logAnalyticsWorkspacesSettings")).toEqual({
      LOG_ANALYTICS_WORKSPACES: new Expr("join(map(items(logAnalyticsWorkspaces), workspace => '${workspace.key}=${workspace.value}'), ',')"),
    });
    expect(settingsOf("logAnalyticsConnectorSourcesSettings")).toEqual({
      LOG_ANALYTICS_CONNECTOR_SOURCES: new Expr("join(map(items(logAnalyticsConnectorSources), connector => '${connector.key}=${connector.value}'), ',')"),
    });
    // What those expressions make of two-entry objects (items() sorts by key), read back by the app.
    const joined = (o: Record<string, string>) => Object.entries(o).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(",");
    const second = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
    const workspaces = { [workspace]: workspaceResourceId, [second]: workspaceResourceId.replace("law-contoso", "law-fabrikam") };
    const connectors = { AzureActiveDirectory: "SourceA", MicrosoftThreatProtection: "SourceB" };
    const config = loadConfig({ LOG_ANALYTICS_WORKSPACES: joined(workspaces), LOG_ANALYTICS_CONNECTOR_SOURCES: joined(connectors) });
    expect(config.logAnalytics).toMatchObject({ workspaces, connectorSources: connectors });
  });

  it("grants the app's identity Log Analytics Reader on every workspace named, once each, at the workspace's own resource group", () => {
    expect(literalAfter(resources, "var logAnalyticsWorkspaceResourceIds =")).toEqual(
      new Expr("union(map(items(logAnalyticsWorkspaces), workspace => toLower(workspace.value)), [])"),
    );
    const loop = /module \w+ 'modules\/log-analytics-reader\.bicep' = \[\s*for (\w+) in logAnalyticsWorkspaceResourceIds: \{([^]*?)\n\]/.exec(resources);
    expect(loop).not.toBeNull();
    const [, id, body] = loop!;
    expect(body).toContain(`name: 'la-reader-\${uniqueString(resourceGroup().id, ${id})}'`);
    expect(body).toContain(`scope: resourceGroup(split(${id}, '/')[2], split(${id}, '/')[4])`);
    expect(body).toMatch(new RegExp(`workspaceName: split\\(${id}, '/'\\)\\[8\\]\\s+principalId: identity\\.outputs\\.principalId`));
    // Those indexes pick the subscription, resource group and name the code's own parser finds.
    const parts = workspaceResourceId.toLowerCase().split("/");
    const parsed = parseWorkspaceResourceId(workspaceResourceId.toLowerCase())!;
    expect({ subscriptionId: parts[2], resourceGroup: parts[4], workspaceName: parts[8] }).toEqual(parsed);

    expect(logAnalyticsReaderModule).toMatch(/^targetScope = 'resourceGroup'$/m);
    expect(logAnalyticsReaderModule).toContain("logAnalyticsReaderRoleId = '73c42c96-874c-492b-b04d-ab87d138a893'");
    expect(logAnalyticsReaderModule).toMatch(/resource workspace 'Microsoft\.OperationalInsights\/workspaces@[\w-]+' existing = \{\s*name: workspaceName\s*\}/);
    expect(logAnalyticsReaderModule).toMatch(/name: guid\(workspace\.id, principalId, logAnalyticsReaderRoleId\)\s+scope: workspace\s+properties: \{/);
    expect(logAnalyticsReaderModule).toMatch(/roleDefinitions', logAnalyticsReaderRoleId\)\s+principalId: principalId\s+principalType: 'ServicePrincipal'/);
  });

  it("grants nothing but Log Analytics Reader on the workspace: one role assignment, no other resource created", () => {
    const declared = [...logAnalyticsReaderModule.matchAll(/^resource \w+ '([^']+)'( existing)?/gm)].map((m) => [m[1], Boolean(m[2])]);
    expect(declared).toEqual([
      ["Microsoft.OperationalInsights/workspaces@2023-09-01", true],
      ["Microsoft.Authorization/roleAssignments@2022-04-01", false],
    ]);
    expect([...logAnalyticsReaderModule.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)].map((m) => m[0])).toEqual([
      "73c42c96-874c-492b-b04d-ab87d138a893",
    ]);
  });

  it("outputs the app's identity for the Microsoft Graph grant, which the operating guide and the hook spell out with the same app roles", () => {
    expect(main).toMatch(/^output APP_IDENTITY_PRINCIPAL_ID string = resources\.outputs\.identityPrincipalId$/m);
    expect(resources).toMatch(/^output identityPrincipalId string = identity\.outputs\.principalId$/m);
    expect(Object.keys(GRAPH_APP_ROLES)).toEqual(["AuditLog.Read.All", "Directory.Read.All"]);
    const operating = readRepo("docs/operating.md");
    const deploy = operating.slice(operating.indexOf("## Deploy to Azure"), operating.indexOf("\n## ", operating.indexOf("## Deploy to Azure") + 1));
    expect(deploy).toContain("https://graph.microsoft.com/v1.0/servicePrincipals/$GRAPH_SP/appRoleAssignedTo");
    for (const id of Object.values(GRAPH_APP_ROLES)) expect(deploy).toContain(id);
    for (const b of BRIDGE_HEADER_SECRETS.filter((x) => !x.urlSetting.startsWith("SOURCE_"))) {
      expect(deploy).toContain(`azd env set ${b.urlSetting} `);
      expect(deploy).toContain(`--name ${b.secret} `);
    }
  });
});

describe("infra: SOP documents", () => {
  const settings = literalAfter(resources, "var appSettings =") as BicepObject;
  const account = literalAfter(resources, "module documentStorage", "params:") as BicepObject;

  it("keeps them in a storage account of their own: private, no shared key, deleted documents recoverable", () => {
    expect(resources).toMatch(/^module documentStorage 'br\/public:avm\/res\/storage\/storage-account:[\d.]+' = \{/m);
    expect(account).toMatchObject({
      name: new Expr("names.documents"),
      allowBlobPublicAccess: false,
      allowSharedKeyAccess: false,
      minimumTlsVersion: "TLS1_2",
      blobServices: { deleteRetentionPolicyEnabled: true, containerDeleteRetentionPolicyEnabled: true },
    });
    expect((account.blobServices as BicepObject).containers).toEqual([{ name: new Expr("documentContainerName"), publicAccess: "None" }]);
    // Not the runtime's account, where the host's Storage Blob Data Owner would reach them too.
    const names = literalAfter(resources, "var names =") as BicepObject;
    expect(names.documents).toBe("stdoc${resourceToken}");
    expect(names.documents).not.toBe(names.storage);
    // A storage account name: 3 to 24 lowercase letters and digits; uniqueString gives 13.
    expect(("stdoc" + "x".repeat(13)).length).toBeLessThanOrEqual(24);
  });

  it("names the account's blob endpoint and the container the code reads, which is the code's default container", () => {
    expect(settings.SOP_BLOB_ACCOUNT_URL).toBe("https://${documentStorage.outputs.name}.blob.${environment().suffixes.storage}");
    expect(settings.SOP_BLOB_CONTAINER).toEqual(new Expr("documentContainerName"));
    const container = literalAfter(resources, "var documentContainerName =");
    expect(container).toBe(loadConfig({}).documents.container);
    expect(loadConfig({ SOP_BLOB_ACCOUNT_URL: "https://stdocabc.blob.core.windows.net", SOP_BLOB_CONTAINER: container as string }).documents).toMatchObject({
      accountUrl: "https://stdocabc.blob.core.windows.net",
      container,
    });
    // No connection string: the app signs in with its identity.
    expect(settings).not.toHaveProperty("SOP_BLOB_CONNECTION_STRING");
    expect(literalAfter(resources, "var documentSettings =")).toEqual(new Expr("empty(sopMaxBytes) ? {} : { SOP_MAX_BYTES: sopMaxBytes }"));
    expect(loadConfig({ SOP_MAX_BYTES: "20971520" }).documents.maxBytes).toBe(20_971_520);
  });

  it("grants the app's identity Storage Blob Data Contributor on that one container, nothing on the account", () => {
    expect(roleAssignmentsModule).toContain("storageBlobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'");
    expect(roleAssignmentsModule).toMatch(/resource documentStorage 'Microsoft\.Storage\/storageAccounts@[\w-]+' existing = \{\s*name: documentStorageAccountName\s*\}/);
    expect(roleAssignmentsModule).toMatch(/resource documentBlobs 'Microsoft\.Storage\/storageAccounts\/blobServices@[\w-]+' existing = \{\s*parent: documentStorage\s*name: 'default'\s*\}/);
    expect(roleAssignmentsModule).toMatch(
      /resource documentContainer 'Microsoft\.Storage\/storageAccounts\/blobServices\/containers@[\w-]+' existing = \{\s*parent: documentBlobs\s*name: documentContainerName\s*\}/,
    );
    expect(roleAssignmentsModule).toMatch(
      /name: guid\(documentContainer\.id, appPrincipalId, roles\.storageBlobDataContributor\)\s+scope: documentContainer\s+properties: \{\s+roleDefinitionId: subscriptionResourceId\('Microsoft\.Authorization\/roleDefinitions', roles\.storageBlobDataContributor\)\s+principalId: appPrincipalId\s+principalType: 'ServicePrincipal'/,
    );
    expect(roleAssignmentsModule.match(/roles\.storageBlobDataContributor\)/g)).toHaveLength(2);
    expect(roleAssignmentsModule).not.toMatch(/scope: documentStorage\b/);
    expect(literalAfter(resources, "module access", "params:")).toMatchObject({
      documentStorageAccountName: new Expr("documentStorage.outputs.name"),
      documentContainerName: new Expr("documentContainerName"),
    });
  });
});

describe("infra: portal sign-in", () => {
  const passed = literalAfter(main, "module resources", "params:") as BicepObject;
  const settingsOf = (variable: string) => literalAfter(resources, `var ${variable} =`);
  /** Each string parameter: its azd variable, and its default in main.bicep. */
  const parameters = [
    { param: "portalTenantId", azd: "PORTAL_TENANT_ID", default: "tenant().tenantId" },
    { param: "portalClientId", azd: "PORTAL_CLIENT_ID", default: "''" },
    { param: "portalClientCredential", azd: "PORTAL_CLIENT_CREDENTIAL", default: "'managed-identity'" },
    { param: "portalRedirectUri", azd: "PORTAL_REDIRECT_URI", default: "''" },
    { param: "portalMfaAuthContext", azd: "PORTAL_MFA_AUTH_CONTEXT", default: "''" },
    { param: "portalSessionHours", azd: "PORTAL_SESSION_HOURS", default: "''" },
    { param: "sopMaxBytes", azd: "SOP_MAX_BYTES", default: "''" },
  ];
  const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
  const clientId = "11111111-2222-4333-8444-555555555555";
  const identityClientId = "6f0c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c";
  const redirectUri = "https://func-abc.azurewebsites.net/api/v2/portal/auth/callback";
  const key = Buffer.alloc(32, 9).toString("base64");

  it("takes one parameter each, with its default, filled from the azd variable of the same name as the setting and handed to resources.bicep", () => {
    for (const p of parameters) {
      expect(main, p.param).toMatch(new RegExp(`^param ${p.param} string = ${escapeRegExp(p.default)}$`, "m"));
      expect(resources, p.param).toMatch(new RegExp(`^param ${p.param} string = ${escapeRegExp(p.default)}$`, "m"));
      expect(passed[p.param], p.param).toEqual(new Expr(p.param));
      // Unset in the azd environment, azd leaves the parameter to its Bicep default; an @allowed one
      // takes its default when the variable is empty too (`:=`), which '' would fail.
      const fill = p.param === "portalClientCredential" ? `\${${p.azd}:=managed-identity}` : `\${${p.azd}}`;
      expect(parametersFile.parameters[p.param], p.param).toEqual({ value: fill });
    }
    for (const text of [main, resources]) expect(text).toMatch(/@allowed\(\[\s*'managed-identity'\s*'secret'\s*\]\)\s*param portalClientCredential string/);
  });

  it("sets the sign-in settings only once a client id is given, the managed identity as the client's credential unless a secret is chosen", () => {
    expect(settingsOf("portalSettings")).toEqual(
      new Expr("empty(portalClientId) ? {} : union(portalSignInSettings, portalClientCredential == 'secret' ? portalSecretSettings : portalAssertionSettings, portalOptionalSettings)"),
    );
    expect(settingsOf("portalSignInSettings")).toEqual({ PORTAL_TENANT_ID: new Expr("portalTenantId"), PORTAL_CLIENT_ID: new Expr("portalClientId") });
    expect(settingsOf("portalAssertionSettings")).toEqual({ PORTAL_CLIENT_ASSERTION: "managed-identity" });
    expect(settingsOf("portalSecretSettings")).toEqual({
      PORTAL_CLIENT_SECRET: "@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${portalSecretNames.PORTAL_CLIENT_SECRET})",
    });
    // The hook checks the same secret.
    expect(settingsOf("portalSecretNames")).toEqual({ PORTAL_CLIENT_SECRET: PORTAL_CLIENT_SECRET_NAME });
    const optional = (settingsOf("portalOptionalSettings") as Expr).text;
    for (const [param, setting] of [["portalRedirectUri", "PORTAL_REDIRECT_URI"], ["portalMfaAuthContext", "PORTAL_MFA_AUTH_CONTEXT"], ["portalSessionHours", "PORTAL_SESSION_HOURS"]]) {
      expect(optional).toContain(`empty(${param}) ? {} : { ${setting}: ${param} }`);
    }
    // Without a client id the app reads no sign-in setting: none is set unconditionally.
    const always = literalAfter(resources, "var appSettings =") as BicepObject;
    expect(Object.keys(always).filter((k) => k.startsWith("PORTAL_"))).toEqual(["PORTAL_SESSION_KEY"]);
  });

  it("emits setting names shared/platform/config/config.ts reads, into the sign-in the app configures", () => {
    // The deployment always sets the callback with sign-in on (the parameter, or the app's own host name): the app requires it.
    const base = { AZURE_CLIENT_ID: identityClientId, PORTAL_TENANT_ID: tenant, PORTAL_CLIENT_ID: clientId, PORTAL_REDIRECT_URI: redirectUri };
    expect(loadConfig({ ...base, PORTAL_CLIENT_ASSERTION: "managed-identity", PORTAL_MFA_AUTH_CONTEXT: "c1" }).portalSignIn).toEqual({
      authority: `https://login.microsoftonline.com/${tenant}/v2.0`,
      clientId,
      clientAuthentication: { method: "managed_identity", managedIdentityClientId: identityClientId },
      redirectUri,
      mfaAuthContext: "c1",
    });
    expect(loadConfig({ ...base, PORTAL_CLIENT_SECRET: "from-key-vault" }).portalSignIn?.clientAuthentication).toEqual({ method: "client_secret_post", clientSecret: "from-key-vault" });
    expect(loadConfig({ ...base, PORTAL_SESSION_KEY: key, PORTAL_SESSION_HOURS: "4" }).portalSessions.lifetimeMs).toBe(4 * 3_600_000);
    // What the deployment always sets is enough for a cosmos app with sign-in on: the session key is there.
    const azure = { STORE: "cosmos", COSMOS_ENDPOINT: "https://cosmos.example", SECRET_HASH_KEY: key, PAGE_TOKEN_KEY: key, WEBHOOK_SECRETS_KEY: key };
    expect(() => loadConfig({ ...azure, ...base, PORTAL_CLIENT_ASSERTION: "managed-identity" })).toThrow(/PORTAL_SESSION_KEY/);
    expect(loadConfig({ ...azure, ...base, PORTAL_CLIENT_ASSERTION: "managed-identity", PORTAL_SESSION_KEY: key }).portalSignIn?.clientId).toBe(clientId);
    // The managed identity is the one the app runs as.
    expect((literalAfter(resources, "var appSettings =") as BicepObject).AZURE_CLIENT_ID).toEqual(new Expr("identity.outputs.clientId"));
  });

  it("derives the callback URL from the app's own host name and the sign-in route, and outputs it for the registration", () => {
    expect(literalAfter(resources, "var portalCallbackPath =")).toBe("/api/v2/portal/auth/callback");
    // The route the provider sends people back to: the portal group's function names `api/v2` itself
    // (host.json's route prefix is empty, so that the portal page lives at /portal).
    expect(allRoutes().some((r) => r.method === "GET" && `/api/v2${r.path}` === "/api/v2/portal/auth/callback")).toBe(true);
    expect(JSON.parse(readRepo("host.json")).extensions.http.routePrefix).toBe("");
    expect(JSON.parse(readRepo("shared/hosts/azure/http-functions.json"))).toContainEqual({ name: "portal", route: "api/v2/portal/{*rest}" });
    expect(literalAfter(resources, "module functionApp", "params:")).toMatchObject({
      portalCallbackPath: new Expr("empty(portalClientId) || !empty(portalRedirectUri) ? '' : portalCallbackPath"),
    });
    expect(functionAppModule).toMatch(/^param portalCallbackPath string = ''$/m);
    expect(literalAfter(functionAppModule, "var ownHostSettings =")).toEqual(
      new Expr("empty(portalCallbackPath) ? {} : { PORTAL_REDIRECT_URI: 'https://${app.properties.defaultHostName}${portalCallbackPath}' }"),
    );
    expect(resources).toMatch(
      /^output portalRedirectUri string = empty\(portalRedirectUri\) \? 'https:\/\/\$\{functionApp\.outputs\.defaultHostName\}\$\{portalCallbackPath\}' : portalRedirectUri$/m,
    );
    expect(main).toMatch(/^output PORTAL_REDIRECT_URI string = resources\.outputs\.portalRedirectUri$/m);
    expect(main).toMatch(/^output PORTAL_TENANT_ID string = portalTenantId$/m);
  });

  it("gives the hook what it prints the registration with: the tenant, the callback and the identity the credential trusts", () => {
    const lines = portalSignInInstructions(
      portalSetupOf({ PORTAL_TENANT_ID: tenant, AZURE_TENANT_ID: tenant, PORTAL_REDIRECT_URI: redirectUri, APP_IDENTITY_PRINCIPAL_ID: "5d3c1b2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d" }),
    );
    const text = lines.join("\n");
    expect(text).toContain(`--web-redirect-uris "${redirectUri}"`);
    expect(text).toContain(`"subject":"5d3c1b2a-9e8f-4a7b-8c6d-1e2f3a4b5c6d"`);
    for (const output of ["PORTAL_TENANT_ID", "PORTAL_REDIRECT_URI", "APP_IDENTITY_PRINCIPAL_ID", "AZURE_TENANT_ID"]) expect(main).toMatch(new RegExp(`^output ${output} string = `, "m"));
  });

  it("lists every parameter, its azd variable and the secrets in the operating guide's deploy section", () => {
    const operating = readRepo("docs/operating.md");
    const deploy = operating.slice(operating.indexOf("## Deploy to Azure"), operating.indexOf("\n## ", operating.indexOf("## Deploy to Azure") + 1));
    for (const p of parameters) expect(deploy, p.param).toContain(`\`${p.azd}\` → \`${p.param}\``);
    for (const secret of ["portal-session-key", PORTAL_CLIENT_SECRET_NAME]) expect(deploy).toContain(`\`${secret}\``);
    expect(deploy).toContain("--admin-user-object-id");
  });
});

describe("infra: region", () => {
  it("allows only regions that offer Flex Consumption, so a wrong one is refused before anything is created", () => {
    const list = /@allowed\(\[([^\]]*)\]\)\s*@metadata\(\{\s*azd: \{\s*type: 'location'\s*\}\s*\}\)\s*param location string$/m.exec(main)?.[1];
    expect(list).toBeDefined();
    const allowed = [...list!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(allowed.length).toBeGreaterThanOrEqual(20);
    expect(new Set(allowed).size).toBe(allowed.length);
    expect([...allowed].sort()).toEqual(allowed);
    for (const region of allowed) expect(region).toMatch(/^[a-z]+[0-9]?$/);
    // No canary (…euap) region: nobody deploys there by accident.
    expect(allowed.filter((r) => r.endsWith("euap"))).toEqual([]);
    expect(allowed).toEqual(expect.arrayContaining(["eastus", "westeurope", "northeurope", "swedencentral", "australiaeast", "southeastasia"]));
    // resources.bicep takes what main.bicep allowed.
    expect(resources).toMatch(/^param location string = resourceGroup\(\)\.location$/m);
  });
});

describe("infra: Key Vault closed to deployments", () => {
  it("turns off the module's defaults that let template deployments, virtual machines and disk encryption read its secrets", () => {
    // Enabled for template deployment, anyone who may deploy to the resource group could read a key
    // through a deployment's Key Vault parameter reference.
    expect(literalAfter(resources, "module keyVault", "params:")).toMatchObject({
      enableVaultForDeployment: false,
      enableVaultForTemplateDeployment: false,
      enableVaultForDiskEncryption: false,
    });
  });
});

describe("infra: scale settings", () => {
  const passed = literalAfter(main, "module resources", "params:") as BicepObject;
  const operating = readRepo("docs/operating.md");
  const deploy = operating.slice(operating.indexOf("## Deploy to Azure"), operating.indexOf("\n## ", operating.indexOf("## Deploy to Azure") + 1));
  /** Each deployment setting with a default: its parameter, azd variable and default, as main.bicep writes it. */
  const settings = [
    { param: "maximumInstanceCount", type: "int", azd: "MAXIMUM_INSTANCE_COUNT", default: "100" },
    { param: "instanceMemoryMB", type: "int", azd: "INSTANCE_MEMORY_MB", default: "2048" },
    { param: "httpPerInstanceConcurrency", type: "int", azd: "HTTP_PER_INSTANCE_CONCURRENCY", default: "100" },
    { param: "alwaysReadyHttpInstances", type: "int", azd: "ALWAYS_READY_HTTP_INSTANCES", default: "0" },
    { param: "cosmosDatabaseName", type: "string", azd: "COSMOS_DATABASE", default: "secops" },
    { param: "zoneRedundant", type: "bool", azd: "ZONE_REDUNDANT", default: "true" },
    { param: "appZoneRedundant", type: "bool", azd: "APP_ZONE_REDUNDANT", default: "false" },
  ];

  it("refuses a maximum instance count below 40, which Flex Consumption does not accept, in every template that takes one", () => {
    for (const [file, text] of [
      ["main.bicep", main],
      ["resources.bicep", resources],
      ["modules/function-app.bicep", functionAppModule],
    ] as const) {
      expect(text, file).toMatch(/@minValue\(40\)\s*@maxValue\(1000\)\s*param maximumInstanceCount int\b/);
    }
    const description = /@description\('([^]*?)'\)\s*@minValue\(40\)\s*@maxValue\(1000\)\s*param maximumInstanceCount/.exec(main)?.[1];
    expect(description).toMatch(/40 to 1000/);
    expect(Number(/^param maximumInstanceCount int = (\d+)$/m.exec(main)?.[1])).toBeGreaterThanOrEqual(40);
  });

  it("fills each from an azd variable, its default when the variable is unset or empty, the same default as main.bicep's, and hands it on", () => {
    for (const s of settings) {
      const declared = new RegExp(`^param ${s.param} ${s.type} = (.+)$`, "m").exec(main)?.[1];
      expect(declared, s.param).toBe(s.type === "string" ? `'${s.default}'` : s.default);
      expect(parametersFile.parameters[s.param], s.param).toEqual({ value: `\${${s.azd}:=${s.default}}` });
      expect(passed[s.param], s.param).toEqual(new Expr(s.param));
      expect(deploy, s.azd).toContain(`\`${s.azd}\` → \`${s.param}\``);
    }
    // The database's variable is the output the hooks and the bootstrap read: input and output agree.
    expect(main).toMatch(/^output COSMOS_DATABASE string = cosmosDatabaseName$/m);
  });

  it("gives every parameter that an empty azd variable would break (a number, a boolean, an @allowed string) its default through `:=`", () => {
    for (const [param, { value }] of Object.entries(parametersFile.parameters)) {
      const typed = new RegExp(`^param ${param} (int|bool) `, "m").test(main);
      const allowedList = new RegExp(`@allowed\\(\\[([^\\]]*)\\]\\)\\s*(?:@\\w+\\([^)]*\\)\\s*)*param ${param} string`).exec(main)?.[1];
      // An @allowed list that holds '' takes an empty variable as it is.
      const allowed = allowedList !== undefined && !allowedList.includes("''");
      if (!typed && !allowed) continue;
      if (param === "location") continue; // azd asks for it
      expect(String(value), param).toMatch(/^\$\{\w+:=[^}]+\}$/);
    }
  });

  it("keeps as many HTTP instances always ready as asked, none by default, in the one `http` group", () => {
    expect(main).toMatch(/@minValue\(0\)\s*@maxValue\(20\)\s*param alwaysReadyHttpInstances int = 0/);
    expect(literalAfter(resources, "module functionApp", "params:")).toMatchObject({ alwaysReadyHttpInstances: new Expr("alwaysReadyHttpInstances") });
    const scale = functionAppModule.slice(functionAppModule.indexOf("scaleAndConcurrency:"));
    expect(scale).toMatch(/alwaysReady: alwaysReadyHttpInstances == 0 \? \[\] : \[\s*\{\s*name: 'http'\s*instanceCount: alwaysReadyHttpInstances\s*\}\s*\]/);
  });
});

describe("infra: zone redundancy", () => {
  const allowedRegions = [...(/@allowed\(\[([^\]]*)\]\)\s*@metadata\(\{\s*azd: \{\s*type: 'location'/.exec(main)?.[1] ?? "").matchAll(/'([^']+)'/g)].map((m) => m[1]!);
  const zoneRegions = () => literalAfter(resources, "var zoneRedundantRegions =") as string[];

  it("is on by default and applies only in regions with availability zones, all of them Flex Consumption regions", () => {
    expect(main).toMatch(/^param zoneRedundant bool = true$/m);
    expect(resources).toMatch(/^param zoneRedundant bool = true$/m);
    expect(literalAfter(resources, "var zones =")).toEqual(new Expr("zoneRedundant && contains(zoneRedundantRegions, location)"));
    const regions = zoneRegions();
    expect(regions.length).toBeGreaterThanOrEqual(20);
    expect([...regions].sort()).toEqual(regions);
    for (const region of regions) expect(allowedRegions, region).toContain(region);
    // Regions without availability zones, where a zone-redundant account cannot be created.
    for (const region of ["northcentralus", "westcentralus", "westus", "ukwest", "southindia", "australiasoutheast"]) expect(regions).not.toContain(region);
  });

  it("makes Cosmos DB, both storage accounts and Service Bus zone-redundant, the SOP documents geo-zone-redundant", () => {
    expect(literalAfter(resources, "module cosmos", "params:")).toMatchObject({ zoneRedundant: new Expr("cosmosZones") });
    // The account alone may differ (a restored one has no zones): COSMOS_ZONE_REDUNDANT, empty to follow the rest.
    expect(literalAfter(resources, "var cosmosZones =")).toEqual(new Expr("empty(cosmosZoneRedundant) ? zones : cosmosZoneRedundant == 'true' && contains(zoneRedundantRegions, location)"));
    expect(parametersFile.parameters.cosmosZoneRedundant).toEqual({ value: "${COSMOS_ZONE_REDUNDANT}" });
    expect(literalAfter(main, "module resources", "params:")).toMatchObject({ cosmosZoneRedundant: new Expr("cosmosZoneRedundant") });
    expect(literalAfter(cosmosModule, "resource account", "locations:")).toEqual([{ locationName: new Expr("location"), failoverPriority: 0, isZoneRedundant: new Expr("zoneRedundant") }]);
    expect(literalAfter(resources, "module storage", "params:")).toMatchObject({ skuName: new Expr("zones ? 'Standard_ZRS' : 'Standard_LRS'") });
    expect(literalAfter(resources, "module documentStorage", "params:")).toMatchObject({ skuName: new Expr("zones ? 'Standard_GZRS' : 'Standard_LRS'") });
    expect(literalAfter(resources, "module serviceBus", "params:")).toMatchObject({ zoneRedundant: new Expr("zones") });
    // Never sent as false: the property cannot change on an existing namespace.
    expect(literalAfter(serviceBusModule, "'Microsoft.ServiceBus/namespaces@", "properties:")).toMatchObject({ zoneRedundant: new Expr("zoneRedundant ? true : null") });
  });

  it("spreads the app's plan over zones only when asked as well, since that keeps instances always ready", () => {
    expect(main).toMatch(/^param appZoneRedundant bool = false$/m);
    expect(literalAfter(resources, "module functionApp", "params:")).toMatchObject({ zoneRedundant: new Expr("zones && appZoneRedundant") });
    expect(literalAfter(functionAppModule, "'Microsoft.Web/serverfarms@", "properties:")).toEqual({ reserved: true, zoneRedundant: new Expr("zoneRedundant") });
  });

  it("is pinned per environment by the preprovision hook, since no resource changes it in place", () => {
    const hooksSource = readRepo("scripts/azd-hooks.ts");
    expect(hooksSource).toContain('deps.setEnv("ZONE_REDUNDANT", existing ? "false" : "true")');
  });
});

describe("infra: delete locks", () => {
  it("locks the Cosmos DB account, the Key Vault and the SOP documents' account against deletion", () => {
    expect(literalAfter(resources, "var deleteLock =")).toEqual({ kind: "CanNotDelete", name: "do-not-delete" });
    expect(literalAfter(resources, "module keyVault", "params:")).toMatchObject({ lock: new Expr("deleteLock") });
    expect(literalAfter(resources, "module documentStorage", "params:")).toMatchObject({ lock: new Expr("deleteLock") });
    expect(literalAfter(resources, "module cosmos", "params:")).toMatchObject({ deleteLock: true });
    expect(cosmosModule).toMatch(/resource lock 'Microsoft\.Authorization\/locks@[\w-]+' = if \(deleteLock\) \{\s*name: 'do-not-delete'\s*scope: account\s*properties: \{\s*level: 'CanNotDelete'/);
    // The runtime's account holds nothing that cannot be made again.
    expect(literalAfter(resources, "module storage", "params:")).not.toHaveProperty("lock");
  });
});

describe("infra: tear down and the way back", () => {
  const operating = readRepo("docs/operating.md");
  const restore = readRepo("docs/restore.md");

  it("removes the delete locks before `azd down`, which would stop at them", () => {
    const tearDown = operating.slice(operating.indexOf("**Tear down**"));
    const lockDelete = tearDown.indexOf("xargs -r -n1 az lock delete --ids");
    expect(lockDelete).toBeGreaterThan(0);
    expect(tearDown.indexOf("\nazd down\n")).toBeGreaterThan(lockDelete);
  });

  it("restores after `azd down` in the order that works: the resource group, the account under its own name, then `azd up` without zones for it", () => {
    const after = restore.slice(restore.indexOf("## After `azd down`"), restore.indexOf("## Key Vault"));
    const steps = [
      'az group create --name "$RG" --location "$AZURE_LOCATION" --tags azd-env-name="$AZURE_ENV_NAME"',
      'az cosmosdb restore --resource-group "$RG" --account-name "$COSMOS" \\\n  --target-database-account-name "$COSMOS"',
      "azd env set COSMOS_ZONE_REDUNDANT false",
      "\nazd up\n",
    ].map((step) => after.indexOf(step));
    for (const at of steps) expect(at).toBeGreaterThan(0);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    // The names azd gives: the resource group is rg-<environment>, as main.bicep names it, with its tag.
    expect(main).toMatch(/name: 'rg-\$\{environmentName\}'/);
    expect(literalAfter(main, "var tags =")).toEqual({ "azd-env-name": new Expr("environmentName") });
    // The Key Vault comes back by the preprovision hook, and a restored account has no zones for the template to keep.
    expect(readRepo("scripts/azd-hooks.ts")).toContain("deletedVaults/${name}");
    expect(main).toMatch(/@allowed\(\[\s*''\s*'true'\s*'false'\s*\]\)\s*param cosmosZoneRedundant string = ''/);
  });
});

describe("infra: module defaults", () => {
  it("masks client IP addresses in Application Insights", () => {
    expect(literalAfter(resources, "module appInsights", "params:")).toMatchObject({ disableIpMasking: false });
  });

  it("turns off cross-tenant replication and defaults both storage accounts to Entra ID authorization", () => {
    for (const module of ["module storage", "module documentStorage"]) {
      expect(literalAfter(resources, module, "params:"), module).toMatchObject({ allowCrossTenantReplication: false, defaultToOAuthAuthentication: true, allowSharedKeyAccess: false });
    }
  });

  it("keeps the operator's extra app settings out of the deployment history, down to the app's settings", () => {
    expect(main).toMatch(/@secure\(\)\s*param extraAppSettings object = \{\}/);
    expect(resources).toMatch(/@secure\(\)\s*param extraAppSettings object = \{\}/);
    expect(functionAppModule).toMatch(/@secure\(\)\s*param appSettings object\n/);
  });
});

describe("infra: JSON parameters", () => {
  /** main.bicep's object parameters and the azd variables that fill them. */
  const objectParameters = [...main.matchAll(/^param (\w+) object = \{\}$/gm)].map((m) => m[1]!);
  const variableOf = (param: string) => /^\$\{(\w+)\}$/.exec(String(parametersFile.parameters[param]?.value))?.[1];

  it("are each filled from an azd variable that the preprovision hook turns from empty into {}, which azd accepts", () => {
    expect(objectParameters.length).toBeGreaterThanOrEqual(4);
    for (const param of objectParameters) expect(variableOf(param), param).toBeDefined();
    expect([...JSON_OBJECT_VARIABLES].sort()).toEqual(objectParameters.map((p) => variableOf(p)!).sort());
  });
});

describe("infra: extra app settings", () => {
  it("takes an object parameter, {} by default, from EXTRA_APP_SETTINGS, merged after the cloud endpoints and before every setting the templates wire", () => {
    expect(main).toMatch(/^param extraAppSettings object = \{\}$/m);
    expect(resources).toMatch(/^param extraAppSettings object = \{\}$/m);
    expect(parametersFile.parameters.extraAppSettings).toEqual({ value: "${EXTRA_APP_SETTINGS}" });
    expect(literalAfter(main, "module resources", "params:")).toMatchObject({ extraAppSettings: new Expr("extraAppSettings") });
    const merged = (literalAfter(resources, "module functionApp", "appSettings:") as Expr).text;
    const terms = /^union\(([^)]*)\)$/.exec(merged)![1]!.split(",").map((t) => t.trim());
    expect(terms.slice(0, 2)).toEqual(["cloudEndpointSettings", "extraAppSettings"]);
    expect(terms.slice(2)).toEqual(["appSettings", "documentSettings", "sourceBridgeSettings", "integrationSettings", "portalSettings"]);
    // The host's settings come last, in the function app module.
    expect(functionAppModule).toMatch(/properties:\s*union\(appSettings, hostSettings, ownHostSettings\)/);
  });

  it("is shown in the operating guide with an example the preprovision hook accepts", () => {
    const json = /^azd env set EXTRA_APP_SETTINGS '([^']+)'$/m.exec(readRepo("docs/operating.md"))?.[1];
    expect(json).toBeDefined();
    const printed: string[] = [];
    checkExtraAppSettings(json, (line) => printed.push(line));
    expect(printed).toEqual([]);
    expect(Object.keys(JSON.parse(json!) as object)).toEqual(expect.arrayContaining(["LOG_LEVEL", "CROSS_WORKSPACE_BUDGET_MS"]));
  });

  it("names in TEMPLATE_APP_SETTINGS exactly the settings the templates set, which the hook refuses in EXTRA_APP_SETTINGS", () => {
    const objectKeys = (text: string, variable: string) => Object.keys(literalAfter(text, `var ${variable} =`) as BicepObject);
    const inlined = (variable: string) => [...(literalAfter(resources, `var ${variable} =`) as Expr).text.matchAll(/\{ (\w+): /g)].map((m) => m[1]!);
    const set = new Set([
      ...objectKeys(resources, "appSettings"),
      ...inlined("documentSettings"),
      ...sources.flatMap((source) => [`SOURCE_${sourceSettingKey(source)}_URL`, `SOURCE_${sourceSettingKey(source)}_AUTH_HEADER`]),
      ...["playbookAutomationSettings", "ticketingSettings", "directoryLogsSettings", "logAnalyticsWorkspacesSettings", "logAnalyticsConnectorSourcesSettings"].flatMap((v) => objectKeys(resources, v)),
      ...["portalSignInSettings", "portalAssertionSettings", "portalSecretSettings"].flatMap((v) => objectKeys(resources, v)),
      ...inlined("portalOptionalSettings"),
      ...objectKeys(functionAppModule, "hostSettings"),
      ...[...(literalAfter(functionAppModule, "var ownHostSettings =") as Expr).text.matchAll(/\{ (\w+): /g)].map((m) => m[1]!),
    ]);
    expect([...TEMPLATE_APP_SETTINGS].sort()).toEqual([...set].sort());
    expect(resources).toContain("bridge => 'SOURCE_${toUpper(bridge.key)}_URL'");
    // The cloud endpoints are defaults the extra settings may replace; the tunables are the app's own.
    for (const name of ["ARM_ENDPOINT", "CLOUD_ARM_ENDPOINT", "GRAPH_BASE_URL", "LOG_ANALYTICS_ENDPOINT"]) expect(TEMPLATE_APP_SETTINGS).not.toContain(name);
    for (const name of ["LOG_LEVEL", "SOURCE_A_MAX_RPS", "SOURCE_A_MAX_CONCURRENCY", "SOURCE_A_TIMEOUT_MS", "CROSS_WORKSPACE_BUDGET_MS", "WEBHOOK_RETRY_WINDOW_MS", "RATE_LIMIT_PER_SECOND"]) {
      expect(configSettingNames, name).toContain(name);
      expect(TEMPLATE_APP_SETTINGS, name).not.toContain(name);
    }
  });
});

describe("infra: cloud endpoints", () => {
  const endpoints = literalAfter(resources, "var cloudServiceEndpoints =") as Record<string, Record<string, string>>;
  const always = literalAfter(resources, "var cloudEndpointSettings =", "union(", "\n") as BicepObject;

  it("takes Azure Resource Manager's from environment(), and Microsoft Graph's and the Logs query API's by the cloud's name", () => {
    expect(always).toEqual({ CLOUD_ARM_ENDPOINT: new Expr("environment().resourceManager"), ARM_ENDPOINT: new Expr("environment().resourceManager") });
    expect(resources).toMatch(/cloudServiceEndpoints\[\?environment\(\)\.name\] \?\? \{\}\s*\)/);
    expect(Object.keys(endpoints).sort()).toEqual(["AzureChinaCloud", "AzureCloud", "AzureUSGovernment"]);
    for (const settings of Object.values(endpoints)) expect(Object.keys(settings).sort()).toEqual(["GRAPH_BASE_URL", "LOG_ANALYTICS_ENDPOINT"]);
    for (const name of [...Object.keys(always), ...Object.keys(endpoints.AzureCloud!)]) expect(configSettingNames, name).toContain(name);
  });

  it("gives the public cloud the app's own defaults, and another cloud endpoints the app takes, tokens included", () => {
    const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const workspace = { LOG_ANALYTICS_WORKSPACES: `3f6c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c=/subscriptions/2b1d4c6e-8f0a-4b2c-9d3e-5f6a7b8c9d0e/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/law-a` };
    const defaults = loadConfig({ DIRECTORY_LOGS_TENANT_IDS: tenant, ...workspace });
    expect(defaults.directoryLogs?.graphBaseUrl).toBe(endpoints.AzureCloud!.GRAPH_BASE_URL);
    expect(defaults.logAnalytics?.logsEndpoint).toBe(endpoints.AzureCloud!.LOG_ANALYTICS_ENDPOINT);
    // environment().resourceManager ends with a slash.
    const gov = loadConfig({
      DIRECTORY_LOGS_TENANT_IDS: tenant,
      ...workspace,
      ...endpoints.AzureUSGovernment,
      ARM_ENDPOINT: "https://management.usgovcloudapi.net/",
      CLOUD_ARM_ENDPOINT: "https://management.usgovcloudapi.net/",
    });
    expect(gov.cloud.armEndpoint).toBe("https://management.usgovcloudapi.net");
    expect(new URL(gov.logAnalytics!.armEndpoint).origin).toBe("https://management.usgovcloudapi.net");
    expect(gov.logAnalytics?.logsEndpoint).toBe("https://api.loganalytics.us/v1");
    expect(gov.directoryLogs?.graphBaseUrl).toBe("https://graph.microsoft.us");
    for (const settings of Object.values(endpoints)) expect(() => loadConfig(settings)).not.toThrow();
  });
});

describe("infra: private networking", () => {
  const network = literalAfter(resources, "module network 'modules/private-network.bicep'", "endpoints:") as BicepObject[];

  it("is a parameter, off by default, from PRIVATE_NETWORKING", () => {
    expect(main).toMatch(/^param privateNetworking bool = false$/m);
    expect(resources).toMatch(/^param privateNetworking bool = false$/m);
    expect(parametersFile.parameters.privateNetworking).toEqual({ value: "${PRIVATE_NETWORKING:=false}" });
    expect(literalAfter(main, "module resources", "params:")).toMatchObject({ privateNetworking: new Expr("privateNetworking") });
    expect(resources).toMatch(/^module network 'modules\/private-network\.bicep' = if \(privateNetworking\) \{$/m);
  });

  it("puts the app in a subnet delegated to Microsoft.App/environments, as Flex Consumption requires", () => {
    expect(literalAfter(resources, "module functionApp", "virtualNetworkSubnetId:")).toEqual(new Expr("privateNetworking ? network.outputs.appSubnetId : ''"));
    expect(functionAppModule).toMatch(/^param virtualNetworkSubnetId string = ''$/m);
    expect(literalAfter(functionAppModule, "resource app 'Microsoft.Web/sites@", "virtualNetworkSubnetId:")).toEqual(
      new Expr("empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId"),
    );
    const subnets = literalAfter(privateNetworkModule, "resource vnet", "subnets:") as BicepObject[];
    const app = subnets.find((subnet) => subnet.name instanceof Expr && subnet.name.text === "appSubnetName")!;
    expect((app.properties as BicepObject).delegations).toEqual([{ name: "flex-consumption", properties: { serviceName: "Microsoft.App/environments" } }]);
    expect(literalAfter(privateNetworkModule, "var appSubnetName =")).toBe("app");
    expect(privateNetworkModule).toMatch(/^output appSubnetId string = '\$\{vnet\.id\}\/subnets\/\$\{appSubnetName\}'$/m);
  });

  it("gives Cosmos DB, both storage accounts (blob; the runtime's table too), Key Vault and Service Bus a private endpoint with its DNS zone", () => {
    const byName = Object.fromEntries(network.map((e) => [e.name as string, e]));
    expect(Object.keys(byName).sort()).toEqual(["cosmos", "documents-blob", "key-vault", "service-bus", "storage-blob", "storage-table"]);
    expect(Object.fromEntries(network.map((e) => [e.name, [(e.resourceId as Expr).text, e.groupId]]))).toEqual({
      "storage-blob": ["storage.outputs.resourceId", "blob"],
      "storage-table": ["storage.outputs.resourceId", "table"],
      "documents-blob": ["documentStorage.outputs.resourceId", "blob"],
      "key-vault": ["keyVault.outputs.resourceId", "vault"],
      cosmos: ["cosmos.outputs.id", "Sql"],
      "service-bus": ["serviceBus.outputs.id", "namespace"],
    });
    expect(byName["storage-blob"]!.dnsZone).toBe("privatelink.blob.${environment().suffixes.storage}");
    expect(byName["storage-table"]!.dnsZone).toBe("privatelink.table.${environment().suffixes.storage}");
    // From the services' own host names, so that another cloud's domains are right too.
    expect(literalAfter(resources, "var cosmosHost =")).toEqual(new Expr("split(split(cosmos.outputs.endpoint, '//')[1], ':')[0]"));
    expect(byName["cosmos"]!.dnsZone).toBe("privatelink.${substring(cosmosHost, indexOf(cosmosHost, '.') + 1)}");
    expect(byName["service-bus"]!.dnsZone).toBe(
      "privatelink.${substring(serviceBus.outputs.fullyQualifiedNamespace, indexOf(serviceBus.outputs.fullyQualifiedNamespace, '.') + 1)}",
    );
    const zoneOf = (host: string) => "privatelink." + host.slice(host.indexOf(".") + 1);
    expect(zoneOf("https://cosmos-abc.documents.azure.com:443/".split("//")[1]!.split(":")[0]!)).toBe("privatelink.documents.azure.com");
    expect(zoneOf("sb-abc.servicebus.windows.net")).toBe("privatelink.servicebus.windows.net");
    expect(zoneOf("cosmos-abc.documents.azure.us")).toBe("privatelink.documents.azure.us");
    // '.vault.azure.net' → privatelink.vaultcore.azure.net
    expect(byName["key-vault"]!.dnsZone).toBe("privatelink${replace(environment().suffixes.keyvaultDns, '.vault.', '.vaultcore.')}");
    expect("privatelink" + ".vault.azure.net".replace(".vault.", ".vaultcore.")).toBe("privatelink.vaultcore.azure.net");
    expect(cosmosModule).toMatch(/^output id string = account\.id$/m);
    expect(serviceBusModule).toMatch(/^output id string = namespace\.id$/m);
    // One zone per name, linked to the network; each endpoint registered in its zone.
    expect(privateNetworkModule).toMatch(/var dnsZones = union\(map\(endpoints, endpoint => endpoint\.dnsZone\), \[\]\)/);
    expect(privateNetworkModule).toMatch(/resource zoneLinks 'Microsoft\.Network\/privateDnsZones\/virtualNetworkLinks@[\w-]+' = \[\s*for \(zone, i\) in dnsZones: \{\s*parent: zones\[i\]/);
    expect(privateNetworkModule).toMatch(/groupIds: \[\s*endpoint\.groupId\s*\]/);
    expect(privateNetworkModule).toMatch(/privateDnsZoneId: resourceId\('Microsoft\.Network\/privateDnsZones', endpoint\.dnsZone\)/);
  });

  it("turns public network access off on each of them, and Service Bus Premium, only with private networking", () => {
    for (const module of ["module storage", "module documentStorage", "module keyVault"]) {
      expect(literalAfter(resources, module, "params:"), module).toMatchObject({
        publicNetworkAccess: new Expr("privateNetworking ? 'Disabled' : 'Enabled'"),
        networkAcls: new Expr("privateNetworking ? privateNetworkAcls : publicNetworkAcls"),
      });
    }
    expect(literalAfter(resources, "var privateNetworkAcls =")).toEqual({ defaultAction: "Deny", bypass: "None" });
    expect(literalAfter(resources, "var publicNetworkAcls =")).toEqual({ defaultAction: "Allow", bypass: "AzureServices" });
    expect(literalAfter(resources, "module cosmos", "params:")).toMatchObject({ publicNetworkAccess: new Expr("privateNetworking ? 'Disabled' : 'Enabled'") });
    expect(literalAfter(cosmosModule, "resource account", "properties:")).toMatchObject({ publicNetworkAccess: new Expr("publicNetworkAccess") });
    expect(literalAfter(resources, "module serviceBus", "params:")).toMatchObject({ privateNetworking: new Expr("privateNetworking") });
    expect(literalAfter(serviceBusModule, "'Microsoft.ServiceBus/namespaces@", "properties:")).toMatchObject({
      publicNetworkAccess: new Expr("privateNetworking ? 'Disabled' : 'Enabled'"),
    });
  });
});

describe("infra: diagnostic settings", () => {
  /** Each diagnostic setting of the module: its scope and the log categories it sends. */
  const settings = [...diagnosticsModule.matchAll(/^resource (\w+) 'Microsoft\.Insights\/diagnosticSettings@[\w-]+' = \{/gm)].map((m) => {
    const body = literalAfter(diagnosticsModule, m[0].replace(/\{$/, "")) as BicepObject;
    return { name: m[1]!, scope: (body.scope as Expr).text, properties: body.properties as BicepObject };
  });
  const categories = (logs: BicepValue | undefined): string[] => {
    if (logs instanceof Expr) {
      const changes = literalAfter(diagnosticsModule, "var changes =") as BicepObject[];
      return [...(literalAfter(diagnosticsModule, "logs: concat(", "\n") as BicepObject[]).map((l) => l.category as string), ...changes.map((l) => l.category as string)];
    }
    return (logs as BicepObject[]).map((l) => l.category as string);
  };

  it("sends Key Vault's AuditEvent, the runtime storage's deletes, the documents' reads, writes and deletes and the function app's logs to Log Analytics", () => {
    const byScope = Object.fromEntries(settings.map((s) => [s.scope, s.properties]));
    expect(Object.keys(byScope).sort()).toEqual(["app", "documentBlobs", "keyVault", "storageBlobs", "storageTables"]);
    for (const { properties } of settings) expect(properties.workspaceId).toEqual(new Expr("logAnalyticsWorkspaceId"));
    expect(categories(byScope.keyVault!.logs)).toEqual(["AuditEvent"]);
    expect(literalAfter(diagnosticsModule, "var changes =")).toEqual([
      { category: "StorageWrite", enabled: true },
      { category: "StorageDelete", enabled: true },
    ]);
    // Not the runtime account's writes: the host renews its lock blobs' leases every few seconds.
    expect(literalAfter(diagnosticsModule, "var deletes =")).toEqual([{ category: "StorageDelete", enabled: true }]);
    expect(byScope.storageBlobs!.logs).toEqual(new Expr("deletes"));
    expect(byScope.storageTables!.logs).toEqual(new Expr("deletes"));
    // Resource-specific tables wherever the service offers them (storage and the app have no other).
    expect(byScope.keyVault!.logAnalyticsDestinationType).toBe("Dedicated");
    expect(literalAfter(serviceBusModule, "resource diagnostics", "properties:")).toMatchObject({ logAnalyticsDestinationType: "Dedicated" });
    expect(literalAfter(cosmosModule, "resource diagnostics", "properties:")).toMatchObject({ logAnalyticsDestinationType: "Dedicated" });
    expect(categories(byScope.documentBlobs!.logs).sort()).toEqual(["StorageDelete", "StorageRead", "StorageWrite"]);
    expect(categories(byScope.app!.logs)).toEqual(["FunctionAppLogs"]);
    expect(byScope.app!.metrics).toEqual([{ category: "AllMetrics", enabled: true }]);
    expect(literalAfter(resources, "module diagnostics", "params:")).toEqual({
      logAnalyticsWorkspaceId: new Expr("logAnalytics.outputs.resourceId"),
      keyVaultName: new Expr("keyVault.outputs.name"),
      storageAccountName: new Expr("storage.outputs.name"),
      documentStorageAccountName: new Expr("documentStorage.outputs.name"),
      functionAppName: new Expr("functionApp.outputs.name"),
    });
  });
});

describe("infra: availability test", () => {
  const locations = literalAfter(alertsModule, "var availabilityTestLocations =") as string[];

  it("runs from five locations or more and alerts when all but two fail", () => {
    expect(locations.length).toBeGreaterThanOrEqual(5);
    expect(new Set(locations).size).toBe(locations.length);
    for (const id of locations) expect(id).toMatch(/^(us|emea|apac|latam)-[a-z]{2}-[a-z0-9]{3}-(azr|edge)$/);
    expect(alertsModule).toMatch(/Locations: \[\s*for id in availabilityTestLocations: \{\s*Id: id\s*\}\s*\]/);
    expect(literalAfter(alertsModule, "resource healthFailing", "failedLocationCount:")).toEqual(new Expr("length(availabilityTestLocations) - 2"));
  });

  it("is off until the code is deployed: a parameter from AVAILABILITY_TEST_ENABLED, which the postdeploy hook sets", () => {
    expect(main).toMatch(/^param availabilityTestEnabled bool = false$/m);
    expect(parametersFile.parameters.availabilityTestEnabled).toEqual({ value: "${AVAILABILITY_TEST_ENABLED:=false}" });
    expect(literalAfter(resources, "module alerts", "params:")).toMatchObject({ availabilityTestEnabled: new Expr("availabilityTestEnabled") });
    expect(literalAfter(alertsModule, "resource healthTest", "Enabled:")).toEqual(new Expr("availabilityTestEnabled"));
    expect(alertsModule).toMatch(/^output availabilityTestId string = healthTest\.id$/m);
    expect(main).toMatch(/^output AVAILABILITY_TEST_ID string = resources\.outputs\.availabilityTestId$/m);
    expect(Object.keys(hooks)).toContain("postdeploy");
    expect(azureYaml).toMatch(/\n {2}postdeploy:\n {4}run: node scripts\/azd-hook\.mjs postdeploy\n/);
  });
});

describe("infra: access", () => {
  it("lets the app's identity manage each of its queues (Data Owner), so the scale controller reads their lengths, and nothing else of the namespace", () => {
    expect(roleAssignmentsModule).toContain("serviceBusDataOwner: '090c5cfd-751d-490a-894a-3ce6f1109419'");
    expect(roleAssignmentsModule).toMatch(
      /resource queueDataOwner 'Microsoft\.Authorization\/roleAssignments@[\w-]+' = \[\s*for \(name, i\) in queueNames: \{\s*name: guid\(queues\[i\]\.id, appPrincipalId, roles\.serviceBusDataOwner\)\s*scope: queues\[i\]/,
    );
    expect(roleAssignmentsModule).toMatch(/resource queues 'Microsoft\.ServiceBus\/namespaces\/queues@[\w-]+' existing = \[\s*for name in queueNames: \{\s*parent: serviceBus\s*name: name/);
    expect(roleAssignmentsModule.match(/roles\.serviceBusDataOwner\)/g)).toHaveLength(2);
    expect(literalAfter(resources, "module access", "params:")).toMatchObject({ queueNames: new Expr("queueNames") });
  });

  it("turns basic publishing credentials off: no FTP, no basic authentication to the deployment endpoint", () => {
    expect(functionAppModule).toMatch(
      /resource \w+ 'Microsoft\.Web\/sites\/basicPublishingCredentialsPolicies@[\w-]+' = \[\s*for policy in \[\s*'ftp'\s*'scm'\s*\]: \{\s*parent: app\s*name: policy\s*properties: \{\s*allow: false\s*\}/,
    );
  });

  it("documents each deployment parameter of the operator in the operating guide's deploy section", () => {
    const operating = readRepo("docs/operating.md");
    const deploy = operating.slice(operating.indexOf("## Deploy to Azure"), operating.indexOf("\n## ", operating.indexOf("## Deploy to Azure") + 1));
    for (const [variable, param] of [
      ["OPERATOR_PRINCIPAL_ID", "operatorPrincipalId"],
      ["EXTRA_APP_SETTINGS", "extraAppSettings"],
      ["PRIVATE_NETWORKING", "privateNetworking"],
      ["AVAILABILITY_TEST_ENABLED", "availabilityTestEnabled"],
    ]) {
      expect(deploy, variable).toContain(`\`${variable}\` → \`${param}\``);
    }
  });
});

describe("infra test helpers", () => {
  it("scan Bicep literals: objects, arrays, strings with interpolation, numbers and expressions", () => {
    const text = stripComments(`var x = {
      a: 'it\\'s // not a comment' // a comment
      b: -1
      c: [
        { p: '/x', q: true }
        null
      ]
      d: '\${f('}')}-y'
      e: cond ? {} : concat([1], [2])
    }`);
    expect(literalAfter(text, "var x =")).toEqual({
      a: "it's // not a comment",
      b: -1,
      c: [{ p: "/x", q: true }, null],
      d: "${f('}')}-y",
      e: new Expr("cond ? {} : concat([1], [2])"),
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// A small scanner for Bicep literals. It knows strings (with `${…}` interpolation), objects, arrays,
// numbers, booleans and null; anything else up to the end of its line is an expression.
// ---------------------------------------------------------------------------------------------------

class Expr {
  constructor(readonly text: string) {}
}
type BicepValue = string | number | boolean | null | Expr | BicepValue[] | BicepObject;
interface BicepObject {
  [key: string]: BicepValue | undefined;
}

/** The literal after the last of `markers`, each searched from where the previous one was found. */
function literalAfter(text: string, ...markers: string[]): BicepValue {
  let at = 0;
  for (const marker of markers) {
    const found = text.indexOf(marker, at);
    if (found < 0) throw new Error(`"${marker}" not found`);
    at = found + marker.length;
  }
  return new Scanner(text, at).value();
}

class Scanner {
  constructor(
    private readonly s: string,
    private i: number,
  ) {}

  value(): BicepValue {
    this.skip(false);
    const start = this.i;
    const ch = this.s[this.i];
    let value: BicepValue;
    if (ch === "{") value = this.object();
    else if (ch === "[") value = this.array();
    else if (ch === "'") value = this.string();
    else {
      const word = /^(-?\d+|true|false|null)(?=[\s,\]}]|$)/.exec(this.s.slice(this.i));
      if (word?.[1]) {
        this.i += word[1].length;
        value = word[1] === "true" ? true : word[1] === "false" ? false : word[1] === "null" ? null : Number(word[1]);
      } else value = new Expr("");
    }
    // Whatever follows on the same line makes it an expression (`'a' == b`, `x.y`, `f(…)`).
    this.skip(false);
    if (value instanceof Expr || !this.atEndOfValue()) {
      this.i = start;
      this.skipExpression();
      return new Expr(this.s.slice(start, this.i).trim());
    }
    return value;
  }

  private object(): BicepObject {
    const out: BicepObject = {};
    this.i++; // {
    for (;;) {
      this.skip(true);
      if (this.s[this.i] === "}") return (this.i++, out);
      out[this.key()] = this.value();
    }
  }

  private key(): string {
    if (this.s[this.i] === "'") return this.colon(this.string());
    const word = /^\w+/.exec(this.s.slice(this.i))?.[0];
    if (!word) throw new Error(`object key expected at ${this.i}: ${this.s.slice(this.i, this.i + 40)}`);
    this.i += word.length;
    return this.colon(word);
  }

  private colon(key: string): string {
    this.skip(false);
    if (this.s[this.i] !== ":") throw new Error(`":" expected after ${key} at ${this.i}`);
    this.i++;
    return key;
  }

  private array(): BicepValue[] {
    const out: BicepValue[] = [];
    this.i++; // [
    for (;;) {
      this.skip(true);
      if (this.s[this.i] === "]") return (this.i++, out);
      out.push(this.value());
    }
  }

  /** A quoted string, returned with its `${…}` interpolations as written. */
  private string(): string {
    const start = ++this.i;
    let text = "";
    while (this.i < this.s.length) {
      const ch = this.s[this.i]!;
      if (ch === "\\") {
        text += this.s[this.i + 1];
        this.i += 2;
      } else if (ch === "'") {
        this.i++;
        return text;
      } else if (this.s.startsWith("${", this.i)) {
        const from = this.i;
        this.i += 2;
        this.skipBalanced("}");
        text += this.s.slice(from, this.i);
      } else {
        text += ch;
        this.i++;
      }
    }
    throw new Error(`unterminated string from ${start}`);
  }

  /** Up to the closing `close`, past nested brackets and strings; leaves the index after it. */
  private skipBalanced(close: string): void {
    while (this.i < this.s.length) {
      const ch = this.s[this.i]!;
      if (ch === close) return void this.i++;
      this.skipOne(ch);
    }
    throw new Error(`missing "${close}"`);
  }

  /** Past one character, or the whole string or bracketed part it opens. */
  private skipOne(ch: string): void {
    const close = ({ "{": "}", "[": "]", "(": ")" } as Record<string, string>)[ch];
    if (ch === "'") this.string();
    else if (close) {
      this.i++;
      this.skipBalanced(close);
    } else this.i++;
  }

  /** An expression ends at a line break, a comma or a closing bracket outside any nesting. */
  private skipExpression(): void {
    while (this.i < this.s.length) {
      const ch = this.s[this.i]!;
      if (ch === "\n" || ch === "," || ch === "}" || ch === "]") return;
      this.skipOne(ch);
    }
  }

  private atEndOfValue(): boolean {
    const ch = this.s[this.i];
    return ch === undefined || ch === "\n" || ch === "\r" || ch === "," || ch === "}" || ch === "]";
  }

  /** Spaces, and with `newlines` also line breaks and the commas of single-line literals. */
  private skip(newlines: boolean): void {
    const skippable = newlines ? /[\s,]/ : /[ \t]/;
    while (this.i < this.s.length && skippable.test(this.s[this.i]!)) this.i++;
  }
}

/** Removes `//` and `/* *\/` comments, leaving strings (which may hold `//`, as URLs do) alone. */
function stripComments(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; ) {
    if (source[i] === "'") {
      const end = endOfString(source, i);
      out += source.slice(i, end);
      i = end;
    } else if (source.startsWith("//", i)) {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (source.startsWith("/*", i)) {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else out += source[i++];
  }
  return out;
}

/**
 * 32 bytes or more in base64 (43+ characters mixing digits and both cases, unlike a resource type such
 * as 'Microsoft.DocumentDB/databaseAccounts/...') or in hex, or the service's own secret formats.
 */
function looksLikeKeyMaterial(literal: string): boolean {
  const base64 = literal.match(/[A-Za-z0-9+/]{43,}={0,2}/g) ?? [];
  return (
    base64.some((run) => /\d/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run)) ||
    /[0-9a-fA-F]{64,}/.test(literal) ||
    /whsec_|soms_/.test(literal)
  );
}

/** Every string literal's text (interpolations included). */
function stringLiterals(source: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < source.length; ) {
    if (source[i] === "'") {
      const end = endOfString(source, i);
      out.push(source.slice(i + 1, end - 1));
      i = end;
    } else i++;
  }
  return out;
}

/** Index after the string starting at `start`, past escapes and `${…}` holding strings of their own. */
function endOfString(source: string, start: number): number {
  let depth = 0;
  for (let i = start + 1; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") i++;
    else if (depth === 0 && ch === "'") return i + 1;
    else if (source.startsWith("${", i)) {
      depth++;
      i++;
    }
    else if (depth > 0 && ch === "}") depth--;
    else if (depth > 0 && ch === "'") i = endOfString(source, i) - 1;
  }
  return source.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}
