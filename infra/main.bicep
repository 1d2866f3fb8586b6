// Security Operations Management API v2: `azd up` deploys this template (parameters from
// main.parameters.json, filled from the azd environment), then the code (azure.yaml). One resource
// group per azd environment, `rg-<environment>`, holds everything; resources.bicep describes it.
//
// The outputs become the azd environment's values (`azd env get-values`): the hooks
// (scripts/azd-hooks.ts) and the operator commands (`npm run bootstrap`, `npm run dlq`) read them.

targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the azd environment (AZURE_ENV_NAME): names the resource group and seeds every resource name.')
param environmentName string

// The regions that offer the Flex Consumption plan (as in Microsoft's Flex Consumption azd quickstarts;
// `az functionapp list-flexconsumption-locations` lists today's). A region outside the list is refused
// before anything is created, and azd offers only these when it asks.
@minLength(1)
@description('Region of every resource. It must offer the Flex Consumption plan.')
@allowed([
  'australiaeast'
  'australiasoutheast'
  'brazilsouth'
  'canadacentral'
  'centralindia'
  'centralus'
  'eastasia'
  'eastus'
  'eastus2'
  'francecentral'
  'germanywestcentral'
  'italynorth'
  'japaneast'
  'koreacentral'
  'northcentralus'
  'northeurope'
  'norwayeast'
  'southafricanorth'
  'southcentralus'
  'southeastasia'
  'southindia'
  'spaincentral'
  'swedencentral'
  'uaenorth'
  'uksouth'
  'ukwest'
  'westcentralus'
  'westeurope'
  'westus'
  'westus2'
  'westus3'
])
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Object id of the operator, who gets the standing data-plane roles Key Vault Secrets Officer, Cosmos DB Data Contributor and Service Bus Data Sender and Receiver, for the hooks, the bootstrap and `npm run dlq` (OPERATOR_PRINCIPAL_ID in the azd environment). Best a group: who holds the roles is then its membership (or an eligible, time-limited membership through Privileged Identity Management), not whoever ran `azd up` last. Whoever runs `azd up` must be in it, for the hooks. Empty or unset: whoever runs the deployment.')
param operatorPrincipalId string = deployer().objectId

@description('Email address the alerts go to (ALERT_EMAIL). Empty: the alerts fire into an action group with no receiver; add one in the portal or set this.')
param alertEmail string = ''

@description('Cosmos database name: the app setting COSMOS_DATABASE (COSMOS_DATABASE in the azd environment, which the deployment also outputs). Fixed once data is in it: another name is another, empty database.')
@minLength(1)
param cosmosDatabaseName string = 'secops'

@description('Most instances the app scales out to (MAXIMUM_INSTANCE_COUNT in the azd environment): 40 to 1000, the range Flex Consumption accepts. Rate-limit buckets are per instance, so this also bounds the total rate one credential can reach; lower it with the per-credential limits, not below 40.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Memory per instance, in MB (INSTANCE_MEMORY_MB in the azd environment). Billing is per GB-second: 512 costs a quarter of 2048.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('HTTP requests in progress at once per instance (HTTP_PER_INSTANCE_CONCURRENCY in the azd environment): Flex Consumption routes at most this many to an instance (and scales out past it), the Functions host takes as many, and the app itself sheds any beyond it with 429 (MAX_CONCURRENT_REQUESTS). The work per request is mostly waiting on Cosmos DB and the vendors, so one Node instance serves many at once.')
@minValue(1)
@maxValue(1000)
param httpPerInstanceConcurrency int = 100

@description('HTTP instances kept running while idle (ALWAYS_READY_HTTP_INSTANCES in the azd environment). 0: the first request after a quiet spell waits for an instance to start (Flex Consumption gives a start 30 s at most). Each one is billed around the clock at the always-ready baseline rate: about $21 a month at 2048 MB (docs/operating.md, "What it costs").')
@minValue(0)
@maxValue(20)
param alwaysReadyHttpInstances int = 0

@description('Zone redundancy of the service\'s data (ZONE_REDUNDANT in the azd environment): Cosmos DB across availability zones, both storage accounts zone-redundant (the SOP documents geo-zone-redundant, GZRS), Service Bus across zones. Applies only in a region with availability zones (resources.bicep lists them); fixed when each resource is created, so the preprovision hook keeps an existing environment at what it was created with.')
param zoneRedundant bool = true

@description('Zone redundancy of the function app\'s plan (APP_ZONE_REDUNDANT in the azd environment). Off by default: with it on, Flex Consumption keeps at least two always-ready instances per scaling group (HTTP, and each queue and timer function), billed around the clock (docs/operating.md, "What it costs"). Needs zoneRedundant, and a region where `az functionapp list-flexconsumption-locations --zone-redundant=true` lists it.')
param appZoneRedundant bool = false

@description('Zone redundancy of the Cosmos DB account alone, when it must differ from zoneRedundant (COSMOS_ZONE_REDUNDANT in the azd environment): `false` for an account restored from a backup, which comes back without zones (docs/restore.md). Empty: as zoneRedundant.')
@allowed([
  ''
  'true'
  'false'
])
param cosmosZoneRedundant string = ''

@description('`recover` when the environment\'s Key Vault is soft-deleted (after `azd down`): the vault and its keys come back. The preprovision hook sets KEY_VAULT_CREATE_MODE.')
@allowed([
  'default'
  'recover'
])
param keyVaultCreateMode string = 'default'

// Vendor bridges (docs/vendor-bridge.md), one per source: SOURCE_<X>_URL in the azd environment. A
// source without one is disabled in Azure (its endpoints answer EXTENSION_NOT_ENABLED). Each bridge's
// Authorization header is the Key Vault secret `source-<x>-auth-header`, which the operator sets.
param sourceAUrl string = ''
param sourceBUrl string = ''
param sourceCUrl string = ''
param sourceDUrl string = ''
param sourceEUrl string = ''
param sourceFUrl string = ''
param sourceGUrl string = ''

@description('Cloud-resource lookups (docs/operating.md, "Cloud resources"): account id → the subscription ids that account\'s organization may see, e.g. { \'<account id>\': [ \'<subscription id>\' ] }, from CLOUD_SUBSCRIPTIONS in the azd environment (JSON). Every subscription listed gets Reader for the app\'s identity. Empty: the lookups answer EXTENSION_NOT_ENABLED.')
param cloudSubscriptions object = {}

// The other integrations (docs/operating.md, "Deploy to Azure", "The other integrations"). Each is off while its parameter is
// empty: its endpoints answer EXTENSION_NOT_ENABLED. An azd variable named like an app setting holds
// exactly what the app reads; the two objects have names of their own (AZURE_…), because the app reads
// those settings as key=value lists, not JSON.

@description('Base URL of the playbook automation bridge (PLAYBOOK_AUTOMATION_URL in the azd environment). Its Authorization header is the Key Vault secret `playbook-automation-auth-header`, which the operator sets. Empty: playbook steps are disabled.')
param playbookAutomationUrl string = ''

@description('Base URL of the ticketing bridge (TICKETING_URL in the azd environment). Its Authorization header is the Key Vault secret `ticketing-auth-header`, which the operator sets. Empty: ticketing is disabled.')
param ticketingBridgeUrl string = ''

@description('Directory logs from Microsoft Graph: the Entra tenant ids whose sign-in and audit logs are read, comma-separated (DIRECTORY_LOGS_TENANT_IDS in the azd environment). The app\'s identity needs the Graph application permissions AuditLog.Read.All and Directory.Read.All, which an administrator grants once (docs/operating.md). Empty: directory logs are disabled.')
param directoryLogsTenantIds string = ''

@description('Log analytics: service workspace id → resource id of the Log Analytics workspace behind it, e.g. { \'<workspace id>\': \'/subscriptions/…/resourceGroups/…/providers/Microsoft.OperationalInsights/workspaces/…\' }, from AZURE_LOG_ANALYTICS_WORKSPACES in the azd environment (JSON). Every workspace named gets Log Analytics Reader for the app\'s identity. Empty: log analytics is disabled.')
param logAnalyticsWorkspaces object = {}

@description('Log analytics: data connector kind or name → the source it feeds (SourceA…SourceG), e.g. { \'AzureActiveDirectory\': \'SourceA\' }, from AZURE_LOG_ANALYTICS_CONNECTOR_SOURCES in the azd environment (JSON). Optional.')
param logAnalyticsConnectorSources object = {}

// The portal: people sign in with Entra ID (OpenID Connect) and keep SOP documents in Blob Storage.
// The document store is always there; sign-in is off until the app registration exists, which the
// postprovision hook prints the commands for (docs/operating.md, "Deploy to Azure", "The portal").

@description('Entra tenant of the portal\'s app registration (PORTAL_TENANT_ID in the azd environment): a tenant id, or `organizations` for a multi-tenant registration. Default: the tenant deployed to, the one tenant whose registration can trust the app\'s managed identity.')
param portalTenantId string = tenant().tenantId

@description('Client (application) id of the portal\'s app registration (PORTAL_CLIENT_ID in the azd environment). Empty: nobody can sign in to the portal.')
param portalClientId string = ''

@description('How the app proves itself to Entra ID when it redeems a sign-in (PORTAL_CLIENT_CREDENTIAL in the azd environment): `managed-identity`, the app\'s identity as a federated identity credential of the registration (no secret; the registration must be in the identity\'s tenant), or `secret`, a client secret the operator keeps in the Key Vault secret `portal-client-secret`.')
@allowed([
  'managed-identity'
  'secret'
])
param portalClientCredential string = 'managed-identity'

@description('The sign-in callback URL registered with Entra ID (PORTAL_REDIRECT_URI in the azd environment). Empty: https://<the app\'s host name>/api/v2/portal/auth/callback.')
param portalRedirectUri string = ''

@description('Conditional Access authentication context id, c1 to c25, whose policy requires MFA (PORTAL_MFA_AUTH_CONTEXT in the azd environment). Entra\'s ID tokens show a passed MFA only through it, so the portal admits nobody until it is set.')
param portalMfaAuthContext string = ''

@description('How long a portal session lasts, in hours, at most 24 (PORTAL_SESSION_HOURS in the azd environment). Empty: the app\'s default, 8.')
param portalSessionHours string = ''

@description('Largest SOP document an upload may carry, in bytes (SOP_MAX_BYTES in the azd environment). Empty: the app\'s default, 10 MiB.')
param sopMaxBytes string = ''

@description('More app settings, merged into the app\'s: setting name → value, each value a string, e.g. { LOG_LEVEL: \'debug\', SOURCE_A_MAX_RPS: \'5\', CROSS_WORKSPACE_BUDGET_MS: \'4000\' }, from EXTRA_APP_SETTINGS in the azd environment (JSON). For the tunables of shared/platform/config/config.ts (docs/operating.md, "Configuration") without editing the templates. A setting the templates set themselves keeps the templates\' value, except the cloud endpoints (ARM_ENDPOINT, CLOUD_ARM_ENDPOINT, GRAPH_BASE_URL, LOG_ANALYTICS_ENDPOINT), which this may replace. Secure: its values stay out of the deployment history; a secret still belongs in Key Vault, behind a setting of its own.')
@secure()
param extraAppSettings object = {}

@description('Private networking (PRIVATE_NETWORKING in the azd environment): the app joins a virtual network, and Cosmos DB, both storage accounts, Key Vault and Service Bus are reached through private endpoints only, with public network access off. Service Bus becomes Premium (private endpoints need it). Off by default; docs/operating.md, "Private networking".')
param privateNetworking bool = false

@description('Whether the availability test of GET /api/v2/health runs (AVAILABILITY_TEST_ENABLED in the azd environment). The postdeploy hook turns it on, and sets the variable, once the code is deployed: on a first `azd up` the test would otherwise fail from every location, and alert, until the package arrives.')
param availabilityTestEnabled bool = false

var tags = {
  'azd-env-name': environmentName
}

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: 'rg-${environmentName}'
  location: location
  tags: tags
}

module resources 'resources.bicep' = {
  name: 'resources'
  scope: rg
  params: {
    environmentName: environmentName
    location: location
    tags: tags
    // An explicitly empty OPERATOR_PRINCIPAL_ID reaches here as '', not as the default.
    operatorPrincipalId: empty(operatorPrincipalId) ? deployer().objectId : operatorPrincipalId
    alertEmail: alertEmail
    cosmosDatabaseName: cosmosDatabaseName
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    httpPerInstanceConcurrency: httpPerInstanceConcurrency
    alwaysReadyHttpInstances: alwaysReadyHttpInstances
    zoneRedundant: zoneRedundant
    appZoneRedundant: appZoneRedundant
    cosmosZoneRedundant: cosmosZoneRedundant
    keyVaultCreateMode: keyVaultCreateMode
    cloudSubscriptions: cloudSubscriptions
    playbookAutomationUrl: playbookAutomationUrl
    ticketingBridgeUrl: ticketingBridgeUrl
    directoryLogsTenantIds: directoryLogsTenantIds
    logAnalyticsWorkspaces: logAnalyticsWorkspaces
    logAnalyticsConnectorSources: logAnalyticsConnectorSources
    portalTenantId: portalTenantId
    portalClientId: portalClientId
    portalClientCredential: portalClientCredential
    portalRedirectUri: portalRedirectUri
    portalMfaAuthContext: portalMfaAuthContext
    portalSessionHours: portalSessionHours
    sopMaxBytes: sopMaxBytes
    extraAppSettings: extraAppSettings
    privateNetworking: privateNetworking
    availabilityTestEnabled: availabilityTestEnabled
    sourceBridgeUrls: {
      A: sourceAUrl
      B: sourceBUrl
      C: sourceCUrl
      D: sourceDUrl
      E: sourceEUrl
      F: sourceFUrl
      G: sourceGUrl
    }
  }
}

// What azd itself reads: where the resources are.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
// The function app of the `api` service (azure.yaml); azd also finds it by its azd-service-name tag.
output SERVICE_API_NAME string = resources.outputs.functionAppName
// What the hooks and the operator commands read, under the names the app itself reads where there is one.
output API_BASE_URL string = resources.outputs.apiBaseUrl
output COSMOS_ENDPOINT string = resources.outputs.cosmosEndpoint
output COSMOS_DATABASE string = cosmosDatabaseName
output SERVICE_BUS_NAMESPACE string = resources.outputs.serviceBusNamespace
output KEY_VAULT_NAME string = resources.outputs.keyVaultName
output KEY_VAULT_URI string = resources.outputs.keyVaultUri
output KEY_VAULT_SECRET_NAMES object = resources.outputs.keyVaultSecretNames
output APPLICATIONINSIGHTS_NAME string = resources.outputs.appInsightsName
// The app's identity (object id of its service principal): the postprovision hook prints the Microsoft
// Graph grant for it when directory logs are on, and names it as the subject of the portal
// registration's federated identity credential.
output APP_IDENTITY_PRINCIPAL_ID string = resources.outputs.identityPrincipalId
// The portal's registration: the tenant and the callback URL the postprovision hook prints the
// registration commands with, under the names the app reads.
output PORTAL_TENANT_ID string = portalTenantId
output PORTAL_REDIRECT_URI string = resources.outputs.portalRedirectUri
// The availability test the postdeploy hook turns on once the code is deployed.
output AVAILABILITY_TEST_ID string = resources.outputs.availabilityTestId
// The cloud deployed to, for the hooks' calls and the commands they print: Azure Resource Manager (also
// the app setting ARM_ENDPOINT, the same value), Key Vault's domain, Entra ID's sign-in authority, and the
// cloud's name (the federated credential's audience and Microsoft Graph follow it).
output ARM_ENDPOINT string = environment().resourceManager
output KEY_VAULT_DNS_SUFFIX string = environment().suffixes.keyvaultDns
output ENTRA_AUTHORITY_HOST string = environment().authentication.loginEndpoint
output AZURE_CLOUD_NAME string = environment().name
