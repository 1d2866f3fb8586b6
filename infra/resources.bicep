// Everything the service runs on, in the resource group main.bicep creates for the azd environment.
//
// What has to match the code is in this file, and test/unit/infra.test.ts compares it with the code's
// single sources: the Cosmos containers (shared/platform/store/cosmos/containers.ts), the queue names
// (shared/platform/queue/queue-names.ts) and the app settings the code reads (shared/platform/config/config.ts).
//
// Choices:
// - Flex Consumption (Linux, Node 22): pay per use like Consumption, but it is where Linux serverless
//   Functions is going (Linux Consumption gets no new language versions and is being retired), and it
//   reads its deployment package with a managed identity, so the storage account needs no keys.
// - Cosmos DB serverless: a SOC API's load is bursty and often idle; serverless bills per request
//   with no floor, where provisioned throughput bills every hour. Its limits (one region, a burst
//   ceiling per container) fit this service. For steady heavy load or several regions, use a
//   provisioned (autoscale) account: drop EnableServerless and give the database autoscaleSettings
//   (and, for several regions, turn endpoint discovery back on in cosmos-client.ts).
// - One user-assigned identity for Cosmos, Service Bus, Storage, Key Vault and Application Insights:
//   it exists before the app, so every grant is in place when the app first starts, and it survives
//   the app being recreated. Account keys are disabled on Cosmos, Service Bus and Storage.
// - The four keys (SECRET_HASH_KEY, PAGE_TOKEN_KEY, WEBHOOK_SECRETS_KEY, PORTAL_SESSION_KEY) and the
//   Authorization headers of the bridges (vendor, playbook automation, ticketing) are Key Vault
//   references. Their values never pass through a template or a deployment log: the postprovision
//   hook creates the keys if they are missing, the operator sets the bridges' headers.
// - SOP documents live in a storage account of their own, not in the runtime's: the Functions host
//   needs Storage Blob Data Owner on the whole runtime account, so documents kept there would be
//   writable under that grant and share an account with host keys and deployment packages. In their
//   own account the app holds Storage Blob Data Contributor on the documents' container alone, and
//   deleted documents stay recoverable for a while (soft delete).
// - People sign in to the portal with an Entra ID app registration, which no deployment can create
//   (it is a directory object, not an Azure resource): the postprovision hook prints the commands, and
//   sign-in stays off until PORTAL_CLIENT_ID is set. The app's managed identity is the registration's
//   credential (a federated identity credential), so there is no client secret to keep or rotate.
// - Read access the integrations need is granted here (Reader on the cloud lookups' subscriptions,
//   Log Analytics Reader on the log analytics workspaces); Microsoft Graph application permissions
//   (directory logs) are not Azure roles, and an Entra administrator grants them (docs/operating.md).
// - App settings: everything is here. A deployment replaces the app's whole setting set, so a
//   setting added by hand in the portal is gone after the next `azd provision`; add it below (or as
//   a parameter), or give it in extraAppSettings (EXTRA_APP_SETTINGS), instead.
// - Public network access by default; with privateNetworking the app joins a virtual network and
//   every data service is reached through a private endpoint only (modules/private-network.bicep).
// - The data (Cosmos DB, both storage accounts, Service Bus) is zone-redundant by default where the
//   region has availability zones (zoneRedundant, pinned per environment by the preprovision hook, since
//   none of it changes in place); the app's plan only on request (appZoneRedundant), for what its
//   always-ready instances cost. Cosmos DB, the Key Vault and the documents' account carry delete locks.
// - Azure Verified Modules for the generic parts (identity, monitoring, storage, Key Vault); plain
//   resources where the template carries the app's own data model (Cosmos, Service Bus) or the
//   Flex-specific app configuration, so that what the test checks is visible here and in modules/.

targetScope = 'resourceGroup'

@description('Name of the azd environment: seeds every resource name.')
param environmentName string

@description('Region of every resource. It must offer the Flex Consumption plan.')
param location string = resourceGroup().location

param tags object = {}

@description('Object id of the operator: Key Vault Secrets Officer, Cosmos DB Data Contributor, Service Bus Data Sender and Receiver. Empty: no operator grants.')
param operatorPrincipalId string = ''

@description('Email address the alerts go to. Empty: no receiver.')
param alertEmail string = ''

@description('Cosmos database name: the app setting COSMOS_DATABASE.')
param cosmosDatabaseName string = 'secops'

@description('Most instances the app scales out to: Flex Consumption accepts 40 to 1000.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('HTTP requests in progress at once per instance: Flex Consumption routes at most this many to an instance (and scales out past it), the Functions host takes as many, and the app itself sheds any beyond it with 429 (MAX_CONCURRENT_REQUESTS). The work per request is mostly waiting on Cosmos DB and the vendors, so one Node instance serves many at once.')
@minValue(1)
@maxValue(1000)
param httpPerInstanceConcurrency int = 100

@description('HTTP instances kept running while idle (always ready); 0: none.')
@minValue(0)
@maxValue(20)
param alwaysReadyHttpInstances int = 0

@description('Zone redundancy of Cosmos DB, both storage accounts and Service Bus, where the region has availability zones (zoneRedundantRegions).')
param zoneRedundant bool = true

@description('Zone redundancy of the Flex Consumption plan (at least two always-ready instances per scaling group); only with zoneRedundant in a region that has availability zones.')
param appZoneRedundant bool = false

@description('The Cosmos DB account\'s zone redundancy when it differs from zoneRedundant (a restored account has none): \'true\' or \'false\'; empty: as zoneRedundant.')
@allowed([
  ''
  'true'
  'false'
])
param cosmosZoneRedundant string = ''

@allowed([
  'default'
  'recover'
])
param keyVaultCreateMode string = 'default'

@description('Base URL of each source\'s vendor bridge, by letter (A..G); empty: the source is disabled.')
param sourceBridgeUrls object = {}

@description('Cloud-resource lookups: account id → the subscription ids that account\'s organization may see, e.g. { \'<account id>\': [ \'<subscription id>\' ] }. Becomes the app setting CLOUD_SUBSCRIPTIONS, and the app\'s identity gets Reader on every subscription listed. Empty: the lookups answer EXTENSION_NOT_ENABLED.')
param cloudSubscriptions object = {}

@description('Base URL of the playbook automation bridge; empty: playbook steps are disabled.')
param playbookAutomationUrl string = ''

@description('Base URL of the ticketing bridge; empty: ticketing is disabled.')
param ticketingBridgeUrl string = ''

@description('Entra tenant ids whose directory logs the app reads from Microsoft Graph, comma-separated (DIRECTORY_LOGS_TENANT_IDS); empty: disabled.')
param directoryLogsTenantIds string = ''

@description('Service workspace id → Log Analytics workspace resource id. Becomes LOG_ANALYTICS_WORKSPACES, and the app\'s identity gets Log Analytics Reader on every workspace named. Empty: log analytics is disabled.')
param logAnalyticsWorkspaces object = {}

@description('Data connector kind or name → source (SourceA..SourceG): LOG_ANALYTICS_CONNECTOR_SOURCES. Optional.')
param logAnalyticsConnectorSources object = {}

@description('Entra tenant of the portal\'s app registration: PORTAL_TENANT_ID.')
param portalTenantId string = tenant().tenantId

@description('Client id of the portal\'s app registration: PORTAL_CLIENT_ID. Empty: portal sign-in is off and no PORTAL_ setting but the session key is set.')
param portalClientId string = ''

@description('`managed-identity`: the app\'s identity is the registration\'s credential (PORTAL_CLIENT_ASSERTION); `secret`: PORTAL_CLIENT_SECRET, from the Key Vault secret portal-client-secret.')
@allowed([
  'managed-identity'
  'secret'
])
param portalClientCredential string = 'managed-identity'

@description('The registered sign-in callback URL: PORTAL_REDIRECT_URI. Empty: the app\'s own host name and the callback path.')
param portalRedirectUri string = ''

@description('Conditional Access authentication context id whose policy requires MFA: PORTAL_MFA_AUTH_CONTEXT. Optional.')
param portalMfaAuthContext string = ''

@description('Session lifetime in hours: PORTAL_SESSION_HOURS. Empty: the app\'s default.')
param portalSessionHours string = ''

@description('Largest SOP document, in bytes: SOP_MAX_BYTES. Empty: the app\'s default.')
param sopMaxBytes string = ''

@description('More app settings (setting name → string value), merged into the app\'s. The templates\' own settings keep their values, except the cloud endpoints (cloudEndpointSettings), which these may replace.')
@secure()
param extraAppSettings object = {}

@description('Virtual network integration for the app and private endpoints for Cosmos DB, both storage accounts, Key Vault and Service Bus (Premium), with public network access off on each.')
param privateNetworking bool = false

@description('Whether the availability test of GET /api/v2/health runs; the postdeploy hook turns it on once the code is deployed.')
param availabilityTestEnabled bool = false

// ---------------------------------------------------------------------------------------------------
// What must match the code
// ---------------------------------------------------------------------------------------------------

// shared/platform/store/cosmos/containers.ts, container for container. Every container is partitioned on
// `/pk`, which the code sets on each document, so that a document and the outbox records committed
// with it share a partition. A partition key is fixed for the container's lifetime: changing one here
// means a new container and a data migration.
// Each container's indexing policy indexes only the paths its queries filter and sort on (root
// excluded): outbox records, delivery bodies, audit details and incident payloads are never queried,
// and a write's RU grows with what it indexes. Composite indexes serve the multi-field ORDER BYs
// (audit: timeGenerated and id both ways; workspaceItems: the gamebook run listings; deliveryLogs:
// newest first). The reconciler's documents are read and written by id only: nothing indexed.
var cosmosContainers = [
  {
    name: 'accounts'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/createdAt/?'
        }
        {
          path: '/docType/?'
        }
        {
          path: '/managedByAccountId/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/publishedAt/?'
        }
        {
          path: '/scope/?'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
    }
  }
  {
    name: 'workspaces'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/accountId/?'
        }
        {
          path: '/createdAt/?'
        }
        {
          path: '/docType/?'
        }
        {
          path: '/id/?'
        }
        {
          path: '/offboarded/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/publishedAt/?'
        }
        {
          path: '/scope/?'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
    }
  }
  {
    name: 'serviceAccounts'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/accountId/?'
        }
        {
          path: '/createdAt/?'
        }
        {
          path: '/docType/?'
        }
        {
          path: '/id/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/publishedAt/?'
        }
        {
          path: '/scope/?'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
    }
  }
  {
    name: 'users'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/accountId/?'
        }
        {
          path: '/createdAt/?'
        }
        {
          path: '/docType/?'
        }
        {
          path: '/email/?'
        }
        {
          path: '/id/?'
        }
        {
          path: '/organizationalRole/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/publishedAt/?'
        }
        {
          path: '/scope/?'
        }
        {
          path: '/tenantId/?'
        }
        {
          path: '/workspaceAssignments/*'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
    }
  }
  {
    name: 'audit'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/accountId/?'
        }
        {
          path: '/activityAction/?'
        }
        {
          path: '/activityType/?'
        }
        {
          path: '/actorId/?'
        }
        {
          path: '/allocatedAt/?'
        }
        {
          path: '/docType/?'
        }
        {
          path: '/id/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/sequence/?'
        }
        {
          path: '/timeGenerated/?'
        }
        {
          path: '/trail/?'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
      compositeIndexes: [
        [
          {
            path: '/timeGenerated'
            order: 'ascending'
          }
          {
            path: '/id'
            order: 'ascending'
          }
        ]
        [
          {
            path: '/timeGenerated'
            order: 'descending'
          }
          {
            path: '/id'
            order: 'descending'
          }
        ]
      ]
    }
  }
  {
    name: 'workspaceItems'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/approval/decidedAt/?'
        }
        {
          path: '/approval/decision/?'
        }
        {
          path: '/approval/expiresAt/?'
        }
        {
          path: '/createdAt/?'
        }
        {
          path: '/creationDate/?'
        }
        {
          path: '/deletedAt/?'
        }
        {
          path: '/docType/?'
        }
        {
          path: '/id/?'
        }
        {
          path: '/incidentId/?'
        }
        {
          path: '/isQueued/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/publishedAt/?'
        }
        {
          path: '/scope/?'
        }
        {
          path: '/searchText/?'
        }
        {
          path: '/sla/startedAt/?'
        }
        {
          path: '/source/?'
        }
        {
          path: '/status/?'
        }
        {
          path: '/ticketId/?'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
      compositeIndexes: [
        [
          {
            path: '/creationDate'
            order: 'descending'
          }
          {
            path: '/id'
            order: 'descending'
          }
        ]
        [
          {
            path: '/incidentId'
            order: 'ascending'
          }
          {
            path: '/creationDate'
            order: 'descending'
          }
          {
            path: '/id'
            order: 'descending'
          }
        ]
        [
          {
            path: '/approval/expiresAt'
            order: 'ascending'
          }
          {
            path: '/id'
            order: 'ascending'
          }
        ]
        [
          {
            path: '/approval/decidedAt'
            order: 'descending'
          }
          {
            path: '/id'
            order: 'descending'
          }
        ]
      ]
    }
  }
  {
    name: 'webhooks'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/createdAt/?'
        }
        {
          path: '/docType/?'
        }
        {
          path: '/id/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/publishedAt/?'
        }
        {
          path: '/scope/?'
        }
        {
          path: '/targetAccountId/?'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
    }
  }
  {
    name: 'reconciler'
    partitionKeyPath: '/pk'
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: []
      excludedPaths: [
        {
          path: '/*'
        }
      ]
    }
  }
  {
    name: 'idempotencyKeys'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: []
      excludedPaths: [
        {
          path: '/*'
        }
      ]
    }
  }
  {
    name: 'deliveryLogs'
    partitionKeyPath: '/pk'
    defaultTtl: -1
    indexingPolicy: {
      indexingMode: 'consistent'
      automatic: true
      includedPaths: [
        {
          path: '/createdAt/?'
        }
        {
          path: '/httpStatusCode/?'
        }
        {
          path: '/id/?'
        }
        {
          path: '/pk/?'
        }
        {
          path: '/status/?'
        }
      ]
      excludedPaths: [
        {
          path: '/*'
        }
      ]
      compositeIndexes: [
        [
          {
            path: '/createdAt'
            order: 'descending'
          }
          {
            path: '/id'
            order: 'descending'
          }
        ]
      ]
    }
  }
]

// shared/platform/queue/queue-names.ts.
var queueNames = [
  'events'
  'deliveries'
  'reconcile'
  'gamebook-runs'
]

// One Key Vault secret per key the code requires with STORE=cosmos (app setting name: secret name).
// PORTAL_SESSION_KEY seals the portal's session cookies: every instance must read the same key, or a
// session begun on one would be refused by the next.
var secretNames = {
  SECRET_HASH_KEY: 'secret-hash-key'
  PAGE_TOKEN_KEY: 'page-token-key'
  WEBHOOK_SECRETS_KEY: 'webhook-secrets-key'
  PORTAL_SESSION_KEY: 'portal-session-key'
}

// The blob container of the SOP documents, in their own storage account (names.documents); the
// app's default container name (SOP_BLOB_CONTAINER), stated here so that the role assignment and the
// setting name the same container.
var documentContainerName = 'sop-documents'

// Every subscription cloudSubscriptions names, once: each gets a Reader assignment below.
var cloudSubscriptionIds = union(map(flatten(map(items(cloudSubscriptions), entry => entry.value)), id => toLower(id)), [])

// The settings shared/platform/config/config.ts reads, as the app sees them in Azure (and the vendor bridges, below).
// The Functions host's own settings (AzureWebJobsStorage, Application Insights) are added by
// modules/function-app.bicep.
var appSettings = {
  STORE: 'cosmos'
  // COSMOS_KEY stays unset: without it the code signs in with DefaultAzureCredential.
  COSMOS_ENDPOINT: cosmos.outputs.endpoint
  COSMOS_DATABASE: cosmosDatabaseName
  QUEUE: 'servicebus'
  SERVICEBUS__fullyQualifiedNamespace: serviceBus.outputs.fullyQualifiedNamespace
  // The Service Bus triggers connect with the same `SERVICEBUS` prefix (SERVICE_BUS_CONNECTION).
  // Without these two the extension would look for a system-assigned identity.
  SERVICEBUS__credential: 'managedidentity'
  SERVICEBUS__clientId: identity.outputs.clientId
  // DefaultAzureCredential in the code (Cosmos, Service Bus) picks the user-assigned identity by it.
  AZURE_CLIENT_ID: identity.outputs.clientId
  // Resolved by the platform as the app's identity; the latest secret version is used.
  SECRET_HASH_KEY: '@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${secretNames.SECRET_HASH_KEY})'
  PAGE_TOKEN_KEY: '@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${secretNames.PAGE_TOKEN_KEY})'
  WEBHOOK_SECRETS_KEY: '@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${secretNames.WEBHOOK_SECRETS_KEY})'
  // Set whether or not sign-in is on: the hook creates it with the other keys, so turning sign-in on
  // later needs no new secret.
  PORTAL_SESSION_KEY: '@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${secretNames.PORTAL_SESSION_KEY})'
  // SOP documents, read and written as the identity above (no connection string, no key).
  SOP_BLOB_ACCOUNT_URL: 'https://${documentStorage.outputs.name}.blob.${environment().suffixes.storage}'
  SOP_BLOB_CONTAINER: documentContainerName
  // Cloud-resource lookups through Azure Resource Manager as the identity above, when any subscription is named.
  CLOUD_INVENTORY: empty(cloudSubscriptionIds) ? 'disabled' : 'azure'
  CLOUD_SUBSCRIPTIONS: string(cloudSubscriptions)
}

// SOURCE_<X>_URL for each source with a bridge, and its Authorization header from the Key Vault
// secret source-<x>-auth-header. A source without a bridge gets no setting: it is disabled.
var sourceBridges = filter(items(sourceBridgeUrls), bridge => !empty(bridge.value))
var sourceBridgeSettings = union(
  toObject(sourceBridges, bridge => 'SOURCE_${toUpper(bridge.key)}_URL', bridge => bridge.value),
  toObject(
    sourceBridges,
    bridge => 'SOURCE_${toUpper(bridge.key)}_AUTH_HEADER',
    // The vault's name from `names`, not from the module's output: a lambda takes no runtime value.
    bridge => '@Microsoft.KeyVault(VaultName=${names.keyVault};SecretName=source-${toLower(bridge.key)}-auth-header)'
  )
)

// The other integrations shared/platform/config/config.ts reads, each only when its parameter is set: a setting left
// out is an integration switched off (EXTENSION_NOT_ENABLED), and a bridge's header reference never
// points at a secret nobody was asked to set. The bridges' Authorization headers are Key Vault
// references, like the source bridges' (setting name: secret name).
var integrationSecretNames = {
  PLAYBOOK_AUTOMATION_AUTH_HEADER: 'playbook-automation-auth-header'
  TICKETING_AUTH_HEADER: 'ticketing-auth-header'
}
var playbookAutomationSettings = {
  PLAYBOOK_AUTOMATION_URL: playbookAutomationUrl
  PLAYBOOK_AUTOMATION_AUTH_HEADER: '@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${integrationSecretNames.PLAYBOOK_AUTOMATION_AUTH_HEADER})'
}
var ticketingSettings = {
  TICKETING_URL: ticketingBridgeUrl
  TICKETING_AUTH_HEADER: '@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${integrationSecretNames.TICKETING_AUTH_HEADER})'
}
var directoryLogsSettings = {
  // As given: the app checks the list (tenant ids, or *) when it starts.
  DIRECTORY_LOGS_TENANT_IDS: directoryLogsTenantIds
}
// config.ts reads both as `key=value,key=value`.
var logAnalyticsWorkspacesSettings = {
  LOG_ANALYTICS_WORKSPACES: join(map(items(logAnalyticsWorkspaces), workspace => '${workspace.key}=${workspace.value}'), ',')
}
var logAnalyticsConnectorSourcesSettings = {
  LOG_ANALYTICS_CONNECTOR_SOURCES: join(map(items(logAnalyticsConnectorSources), connector => '${connector.key}=${connector.value}'), ',')
}
var integrationSettings = union(
  empty(playbookAutomationUrl) ? {} : playbookAutomationSettings,
  empty(ticketingBridgeUrl) ? {} : ticketingSettings,
  empty(directoryLogsTenantIds) ? {} : directoryLogsSettings,
  empty(logAnalyticsWorkspaces) ? {} : logAnalyticsWorkspacesSettings,
  empty(logAnalyticsConnectorSources) ? {} : logAnalyticsConnectorSourcesSettings
)

// The portal's sign-in (shared/platform/config/portal-sign-in-config.ts), only once its app registration
// exists (portalClientId): without a client id nobody signs in, and the app reads none of these. The
// credential is the app's managed identity unless the registration lives in another tenant, where
// Entra cannot trust the identity; then a client secret the operator keeps in Key Vault. Without an
// explicit redirect URI, the function app module derives it from the app's own host name
// (portalCallbackPath), which exists only once the app does.
var portalCallbackPath = '/api/v2/portal/auth/callback'
var portalSecretNames = {
  PORTAL_CLIENT_SECRET: 'portal-client-secret'
}
var portalSignInSettings = {
  PORTAL_TENANT_ID: portalTenantId
  PORTAL_CLIENT_ID: portalClientId
}
var portalAssertionSettings = {
  PORTAL_CLIENT_ASSERTION: 'managed-identity'
}
var portalSecretSettings = {
  PORTAL_CLIENT_SECRET: '@Microsoft.KeyVault(VaultName=${keyVault.outputs.name};SecretName=${portalSecretNames.PORTAL_CLIENT_SECRET})'
}
var portalOptionalSettings = union(
  empty(portalRedirectUri) ? {} : { PORTAL_REDIRECT_URI: portalRedirectUri },
  empty(portalMfaAuthContext) ? {} : { PORTAL_MFA_AUTH_CONTEXT: portalMfaAuthContext },
  empty(portalSessionHours) ? {} : { PORTAL_SESSION_HOURS: portalSessionHours }
)
var portalSettings = empty(portalClientId) ? {} : union(portalSignInSettings, portalClientCredential == 'secret' ? portalSecretSettings : portalAssertionSettings, portalOptionalSettings)
var documentSettings = empty(sopMaxBytes) ? {} : { SOP_MAX_BYTES: sopMaxBytes }

// The endpoints of the cloud deployed to, which shared/platform/config/config.ts reads (each defaults to
// the public cloud's). Azure Resource Manager's is environment()'s. environment() has neither Microsoft
// Graph's (its `graph` is the retired Azure AD Graph) nor the Log Analytics query API's: those follow the
// cloud's name, and in a cloud not listed here the app keeps its defaults. Unlike the other settings these
// are defaults: extraAppSettings may replace them (Microsoft Graph for US Government DoD tenants is
// https://dod-graph.microsoft.us).
var cloudServiceEndpoints = {
  AzureCloud: {
    GRAPH_BASE_URL: 'https://graph.microsoft.com'
    LOG_ANALYTICS_ENDPOINT: 'https://api.loganalytics.io/v1'
  }
  AzureUSGovernment: {
    GRAPH_BASE_URL: 'https://graph.microsoft.us'
    LOG_ANALYTICS_ENDPOINT: 'https://api.loganalytics.us/v1'
  }
  AzureChinaCloud: {
    GRAPH_BASE_URL: 'https://microsoftgraph.chinacloudapi.cn'
    LOG_ANALYTICS_ENDPOINT: 'https://api.loganalytics.azure.cn/v1'
  }
}
var cloudEndpointSettings = union(
  {
    // Cloud-resource lookups, and log analytics' data connectors and tables. With its trailing slash,
    // which the app accepts.
    CLOUD_ARM_ENDPOINT: environment().resourceManager
    ARM_ENDPOINT: environment().resourceManager
  },
  cloudServiceEndpoints[?environment().name] ?? {}
)

// Every Log Analytics workspace logAnalyticsWorkspaces names, once (lower case, so that the same
// workspace written twice is one role assignment): each gets a Log Analytics Reader assignment below.
var logAnalyticsWorkspaceResourceIds = union(map(items(logAnalyticsWorkspaces), workspace => toLower(workspace.value)), [])

// ---------------------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------------------

// The same names for the same environment, subscription and region, so a redeploy updates in place
// and a teardown and redeploy comes back under the same names (the Key Vault then is recovered:
// keyVaultCreateMode). Abbreviations as in the Cloud Adoption Framework.
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var names = {
  identity: 'id-${resourceToken}'
  logAnalytics: 'log-${resourceToken}'
  appInsights: 'appi-${resourceToken}'
  storage: 'st${resourceToken}'
  documents: 'stdoc${resourceToken}'
  keyVault: 'kv-${resourceToken}'
  cosmos: 'cosmos-${resourceToken}'
  serviceBus: 'sb-${resourceToken}'
  plan: 'plan-${resourceToken}'
  functionApp: 'func-${resourceToken}'
  actionGroup: 'ag-${resourceToken}'
  virtualNetwork: 'vnet-${resourceToken}'
}
var deploymentContainerName = 'app-package'

// The regions of main.bicep's list that have availability zones (Microsoft's list of regions with
// availability zones). Elsewhere zoneRedundant changes nothing: a zone-redundant Cosmos DB account or
// ZRS storage account cannot be created there.
var zoneRedundantRegions = [
  'australiaeast'
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
  'northeurope'
  'norwayeast'
  'southafricanorth'
  'southcentralus'
  'southeastasia'
  'spaincentral'
  'swedencentral'
  'uaenorth'
  'uksouth'
  'westeurope'
  'westus2'
  'westus3'
]
var zones = zoneRedundant && contains(zoneRedundantRegions, location)
var cosmosZones = empty(cosmosZoneRedundant) ? zones : cosmosZoneRedundant == 'true' && contains(zoneRedundantRegions, location)

// Delete locks on what holds the service's data: the Cosmos DB account, the Key Vault (its keys) and
// the SOP documents' account. `azd down` and a resource group deletion stop at them; docs/operating.md, "Tear down".
var deleteLock = {
  kind: 'CanNotDelete'
  name: 'do-not-delete'
}

// The storage accounts' and Key Vault's network rules: open to every network (access still needs the
// identity's role), or, with private networking, closed but to their private endpoints.
var publicNetworkAcls = {
  defaultAction: 'Allow'
  bypass: 'AzureServices'
}
var privateNetworkAcls = {
  defaultAction: 'Deny'
  bypass: 'None'
}

module identity 'br/public:avm/res/managed-identity/user-assigned-identity:0.4.1' = {
  name: 'identity'
  params: {
    name: names.identity
    location: location
    tags: tags
  }
}

module logAnalytics 'br/public:avm/res/operational-insights/workspace:0.11.1' = {
  name: 'log-analytics'
  params: {
    name: names.logAnalytics
    location: location
    tags: tags
    dataRetention: 30
  }
}

module appInsights 'br/public:avm/res/insights/component:0.6.0' = {
  name: 'app-insights'
  params: {
    name: names.appInsights
    location: location
    tags: tags
    workspaceResourceId: logAnalytics.outputs.resourceId
    // Telemetry only from authenticated senders (the app's identity), not from anyone with the key.
    disableLocalAuth: true
    // Client IP addresses are masked (the module's default keeps them): the service's own request
    // lines carry what it needs, and an address is personal data.
    disableIpMasking: false
  }
}

// The Functions runtime's storage: host locks and keys, and the deployment package. Nothing of the
// service's own data lives here.
module storage 'br/public:avm/res/storage/storage-account:0.8.3' = {
  name: 'storage'
  params: {
    name: names.storage
    location: location
    tags: tags
    // Zone-redundant with zoneRedundant (where the region has zones), as Flex Consumption asks of a
    // zone-redundant app's storage.
    skuName: zones ? 'Standard_ZRS' : 'Standard_LRS'
    allowBlobPublicAccess: false
    // Identity-based access only (AzureWebJobsStorage__credential, Flex deployment storage).
    allowSharedKeyAccess: false
    // The portal signs in with Entra ID too, and no object is replicated to another tenant's account.
    defaultToOAuthAuthentication: true
    allowCrossTenantReplication: false
    minimumTlsVersion: 'TLS1_2'
    // With private networking, reached through its blob and table private endpoints only.
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    networkAcls: privateNetworking ? privateNetworkAcls : publicNetworkAcls
    blobServices: {
      containers: [
        {
          name: deploymentContainerName
        }
      ]
    }
  }
}

// SOP documents (the portal's standard operating procedures): the service's own data, in an account of
// its own (see the top of this file). The container is private; the app reaches it with its identity
// and holds Storage Blob Data Contributor on it alone (modules/role-assignments.bicep). A deleted
// document or container can be restored for 30 days.
module documentStorage 'br/public:avm/res/storage/storage-account:0.8.3' = {
  name: 'document-storage'
  params: {
    name: names.documents
    location: location
    tags: tags
    // The service's own data: with zoneRedundant, three zones and a copy in the paired region (GZRS).
    skuName: zones ? 'Standard_GZRS' : 'Standard_LRS'
    allowBlobPublicAccess: false
    // Identity-based access only, as on the runtime's account: no account key or SAS can read a document.
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowCrossTenantReplication: false
    lock: deleteLock
    minimumTlsVersion: 'TLS1_2'
    // Reachable from the app, which has no fixed outbound address without VNet integration; with
    // private networking, through its blob private endpoint only.
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    networkAcls: privateNetworking ? privateNetworkAcls : publicNetworkAcls
    blobServices: {
      deleteRetentionPolicyEnabled: true
      deleteRetentionPolicyDays: 30
      containerDeleteRetentionPolicyEnabled: true
      containerDeleteRetentionPolicyDays: 30
      containers: [
        {
          name: documentContainerName
          publicAccess: 'None'
        }
      ]
    }
  }
}

// Holds the four keys and the bridges' headers; the template never sets them (the postprovision
// hook creates missing keys, the operator sets the headers). Losing a key is costly (SECRET_HASH_KEY:
// every client secret stops verifying; WEBHOOK_SECRETS_KEY: stored webhook secrets become
// unreadable), hence soft delete with purge protection. A deleted vault keeps its name for the
// retention period: after `azd down`, the next `azd up` recovers it (createMode 'recover', set by the
// preprovision hook), keys included, instead of failing on the taken name.
module keyVault 'br/public:avm/res/key-vault/vault:0.13.3' = {
  name: 'key-vault'
  params: {
    name: names.keyVault
    location: location
    tags: tags
    sku: 'standard'
    createMode: keyVaultCreateMode
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    // Reachable from the app, which has no fixed outbound address without VNet integration; with
    // private networking, through its private endpoint only (Flex Consumption resolves Key Vault
    // references through the virtual network).
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    networkAcls: privateNetworking ? privateNetworkAcls : publicNetworkAcls
    // The module enables all three by default. Enabled for template deployment, anyone who may deploy to
    // the resource group (Contributor) could read any secret through a deployment's Key Vault parameter
    // reference; nothing here needs that, nor virtual machines or disk encryption reading secrets.
    enableVaultForDeployment: false
    enableVaultForTemplateDeployment: false
    enableVaultForDiskEncryption: false
    lock: deleteLock
  }
}

module cosmos 'modules/cosmos.bicep' = {
  name: 'cosmos'
  params: {
    accountName: names.cosmos
    location: location
    tags: tags
    databaseName: cosmosDatabaseName
    containers: cosmosContainers
    dataContributorPrincipalIds: concat([identity.outputs.principalId], empty(operatorPrincipalId) ? [] : [operatorPrincipalId])
    logAnalyticsWorkspaceId: logAnalytics.outputs.resourceId
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    zoneRedundant: cosmosZones
    deleteLock: true
  }
}

module serviceBus 'modules/service-bus.bicep' = {
  name: 'service-bus'
  params: {
    namespaceName: names.serviceBus
    location: location
    tags: tags
    queueNames: queueNames
    logAnalyticsWorkspaceId: logAnalytics.outputs.resourceId
    privateNetworking: privateNetworking
    zoneRedundant: zones
  }
}

module access 'modules/role-assignments.bicep' = {
  name: 'role-assignments'
  params: {
    appPrincipalId: identity.outputs.principalId
    operatorPrincipalId: operatorPrincipalId
    storageAccountName: storage.outputs.name
    documentStorageAccountName: documentStorage.outputs.name
    documentContainerName: documentContainerName
    serviceBusNamespaceName: serviceBus.outputs.name
    queueNames: queueNames
    keyVaultName: keyVault.outputs.name
    appInsightsName: appInsights.outputs.name
  }
}

// Private networking: the virtual network the app joins, and a private endpoint (with the private DNS
// zone that makes the service's own host name resolve to it) for each service the app reaches. The
// runtime account's blob and table endpoints are the host's (AzureWebJobsStorage) and the deployment
// package's; the documents account's blob endpoint the SOP documents'.
// The Cosmos DB account's host name (<account>.documents.azure.com in the public cloud): its private DNS
// zone is privatelink. and the domain after the account's name.
var cosmosHost = split(split(cosmos.outputs.endpoint, '//')[1], ':')[0]

module network 'modules/private-network.bicep' = if (privateNetworking) {
  name: 'private-network'
  params: {
    name: names.virtualNetwork
    location: location
    tags: tags
    endpoints: [
      {
        name: 'storage-blob'
        resourceId: storage.outputs.resourceId
        groupId: 'blob'
        dnsZone: 'privatelink.blob.${environment().suffixes.storage}'
      }
      {
        name: 'storage-table'
        resourceId: storage.outputs.resourceId
        groupId: 'table'
        dnsZone: 'privatelink.table.${environment().suffixes.storage}'
      }
      {
        name: 'documents-blob'
        resourceId: documentStorage.outputs.resourceId
        groupId: 'blob'
        dnsZone: 'privatelink.blob.${environment().suffixes.storage}'
      }
      {
        name: 'key-vault'
        resourceId: keyVault.outputs.resourceId
        groupId: 'vault'
        // privatelink.vaultcore.azure.net in the public cloud.
        dnsZone: 'privatelink${replace(environment().suffixes.keyvaultDns, '.vault.', '.vaultcore.')}'
      }
      {
        name: 'cosmos'
        resourceId: cosmos.outputs.id
        groupId: 'Sql'
        // privatelink.documents.azure.com in the public cloud: the account's own domain, in any cloud.
        dnsZone: 'privatelink.${substring(cosmosHost, indexOf(cosmosHost, '.') + 1)}'
      }
      {
        name: 'service-bus'
        resourceId: serviceBus.outputs.id
        groupId: 'namespace'
        // privatelink.servicebus.windows.net in the public cloud.
        dnsZone: 'privatelink.${substring(serviceBus.outputs.fullyQualifiedNamespace, indexOf(serviceBus.outputs.fullyQualifiedNamespace, '.') + 1)}'
      }
    ]
  }
}

// Reader on each subscription the cloud-resource lookups read. A subscription-wide role assignment is
// deployed at that subscription's scope, hence one small module per subscription. The deploying
// principal needs the right to assign roles there (Owner or User Access Administrator).
module subscriptionReaders 'modules/subscription-reader.bicep' = [
  for subscriptionId in cloudSubscriptionIds: {
    name: 'reader-${uniqueString(resourceGroup().id, subscriptionId)}'
    scope: subscription(subscriptionId)
    params: {
      principalId: identity.outputs.principalId
    }
  }
]

// Log Analytics Reader on each workspace the log analytics endpoints read: Sentinel's data connectors
// (Azure Resource Manager reads), the workspace's tables, and log queries. The workspaces may live in
// other resource groups and subscriptions: the assignment is deployed at the workspace's own resource
// group (/subscriptions/<2>/resourceGroups/<4>/providers/Microsoft.OperationalInsights/workspaces/<8>).
// The deploying principal needs the right to assign roles there (Owner or User Access Administrator).
module logAnalyticsReaders 'modules/log-analytics-reader.bicep' = [
  for workspaceResourceId in logAnalyticsWorkspaceResourceIds: {
    name: 'la-reader-${uniqueString(resourceGroup().id, workspaceResourceId)}'
    scope: resourceGroup(split(workspaceResourceId, '/')[2], split(workspaceResourceId, '/')[4])
    params: {
      workspaceName: split(workspaceResourceId, '/')[8]
      principalId: identity.outputs.principalId
    }
  }
]

module functionApp 'modules/function-app.bicep' = {
  name: 'function-app'
  // Key Vault references and host storage are resolved when the app starts: grant access first.
  dependsOn: [
    access
  ]
  params: {
    planName: names.plan
    appName: names.functionApp
    location: location
    tags: tags
    // azd deploys the `api` service (azure.yaml) to the app that carries this tag.
    serviceName: 'api'
    identityResourceId: identity.outputs.resourceId
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerName: deploymentContainerName
    appInsightsName: appInsights.outputs.name
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    httpPerInstanceConcurrency: httpPerInstanceConcurrency
    alwaysReadyHttpInstances: alwaysReadyHttpInstances
    zoneRedundant: zones && appZoneRedundant
    // Later sets win: the operator's extra settings replace the cloud's default endpoints, and the
    // settings the templates wire (store, queue, identity, keys, bridges) replace any extra one.
    appSettings: union(cloudEndpointSettings, extraAppSettings, appSettings, documentSettings, sourceBridgeSettings, integrationSettings, portalSettings)
    portalCallbackPath: empty(portalClientId) || !empty(portalRedirectUri) ? '' : portalCallbackPath
    virtualNetworkSubnetId: privateNetworking ? network.outputs.appSubnetId : ''
  }
}

// Diagnostic logs of Key Vault (every access to a secret: AuditEvent), both storage accounts and the
// function app, to the Log Analytics workspace (Cosmos DB's and Service Bus's are in their modules).
module diagnostics 'modules/diagnostics.bicep' = {
  name: 'diagnostics'
  params: {
    logAnalyticsWorkspaceId: logAnalytics.outputs.resourceId
    keyVaultName: keyVault.outputs.name
    storageAccountName: storage.outputs.name
    documentStorageAccountName: documentStorage.outputs.name
    functionAppName: functionApp.outputs.name
  }
}

module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  params: {
    location: location
    tags: tags
    actionGroupName: names.actionGroup
    alertEmail: alertEmail
    appInsightsName: appInsights.outputs.name
    serviceBusNamespaceName: serviceBus.outputs.name
    cosmosAccountName: cosmos.outputs.name
    healthUrl: 'https://${functionApp.outputs.defaultHostName}/api/v2/health'
    availabilityTestEnabled: availabilityTestEnabled
  }
}

// What only the service knows (its log records: 5xx rate, webhooks auto-disabled, reconciler failing,
// late or silent, the outbox sweep silent) and the queues' backlog, on the same action group.
module operationsAlerts 'modules/operations-alerts.bicep' = {
  name: 'operations-alerts'
  params: {
    location: location
    tags: tags
    actionGroupId: alerts.outputs.actionGroupId
    appInsightsName: appInsights.outputs.name
    serviceBusNamespaceName: serviceBus.outputs.name
  }
}

// The operator's view in the portal: the operations workbook (infra/workbook.json) and a query pack of
// the operating guide's queries (infra/query-pack.json).
module workbook 'modules/workbook.bicep' = {
  name: 'workbook'
  params: {
    location: location
    tags: tags
    appInsightsName: appInsights.outputs.name
    logAnalyticsWorkspaceId: logAnalytics.outputs.resourceId
    serviceBusNamespaceName: serviceBus.outputs.name
    cosmosAccountName: cosmos.outputs.name
  }
}

module queryPack 'modules/query-pack.bicep' = {
  name: 'query-pack'
  params: {
    location: location
    tags: tags
    queryPackName: 'pack-${resourceToken}'
  }
}

output functionAppName string = functionApp.outputs.name
output apiBaseUrl string = 'https://${functionApp.outputs.defaultHostName}/api/v2'
output cosmosEndpoint string = cosmos.outputs.endpoint
output cosmosDatabase string = cosmosDatabaseName
output serviceBusNamespace string = serviceBus.outputs.fullyQualifiedNamespace
output keyVaultName string = keyVault.outputs.name
output keyVaultUri string = keyVault.outputs.uri
output keyVaultSecretNames object = secretNames
output appInsightsName string = appInsights.outputs.name
output identityPrincipalId string = identity.outputs.principalId
// The callback URL the portal's app registration must name, whether or not sign-in is on yet.
output portalRedirectUri string = empty(portalRedirectUri) ? 'https://${functionApp.outputs.defaultHostName}${portalCallbackPath}' : portalRedirectUri
output availabilityTestId string = alerts.outputs.availabilityTestId
