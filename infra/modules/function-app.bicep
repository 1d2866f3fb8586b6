// The Functions app on a Flex Consumption plan (Linux), running as the user-assigned identity.

param planName string
param appName string
param location string
param tags object = {}

@description('The azd service (azure.yaml) deployed to this app: its azd-service-name tag.')
param serviceName string

@description('Resource id of the user-assigned identity the app runs as.')
param identityResourceId string

@description('Client id of that identity: tells each identity-based connection which identity to use.')
param identityClientId string

param storageAccountName string

@description('Blob container holding the deployment package.')
param deploymentContainerName string

param appInsightsName string

@description('Flex Consumption accepts 40 to 1000.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int

@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int

@description('HTTP requests in progress at once per instance: the platform\'s routing, the host and the app\'s own bound (MAX_CONCURRENT_REQUESTS) alike.')
param httpPerInstanceConcurrency int

@description('HTTP instances kept running while idle (the `http` always-ready group); 0: none.')
@minValue(0)
param alwaysReadyHttpInstances int = 0

@description('Instances spread over the region\'s availability zones; Flex Consumption then keeps at least two always-ready instances per scaling group.')
param zoneRedundant bool = false

@description('The settings the code reads (resources.bicep). The host\'s own settings are added here. Secure: the operator\'s extra settings among them stay out of the deployment history.')
@secure()
param appSettings object

@description('Subnet the app joins (virtual network integration, delegated to Microsoft.App/environments). Empty: none.')
param virtualNetworkSubnetId string = ''

@description('Path of the portal\'s sign-in callback on this app, e.g. /api/v2/portal/auth/callback: PORTAL_REDIRECT_URI becomes https://<the app\'s default host name><path>. Empty: resources.bicep sets PORTAL_REDIRECT_URI itself, or sign-in is off.')
param portalCallbackPath string = ''

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// What the Functions host itself needs, as identity-based connections: no connection string, no key.
// The host uses blobs (timer locks, keys) and a table (its diagnostic events): those two endpoints
// alone, matching the identity's roles, so the host never tries queues it may not use.
var hostSettings = {
  AzureWebJobsStorage__blobServiceUri: storage.properties.primaryEndpoints.blob
  AzureWebJobsStorage__tableServiceUri: storage.properties.primaryEndpoints.table
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  // The host's and the worker's telemetry (host.json telemetryMode OpenTelemetry; shared/hosts/telemetry.ts).
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
  // Application Insights accepts only Entra ID-authenticated telemetry (local auth is off).
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD;ClientId=${identityClientId}'
  // One figure for the HTTP concurrency of an instance: what the platform routes to it (above), what the
  // host takes (host.json's http.maxConcurrentRequests) and the app's own bound, past which it sheds.
  AzureFunctionsJobHost__extensions__http__maxConcurrentRequests: string(httpPerInstanceConcurrency)
  MAX_CONCURRENT_REQUESTS: string(httpPerInstanceConcurrency)
}

// Settings on the app's own host name, which is known only once the app exists.
var ownHostSettings = empty(portalCallbackPath) ? {} : { PORTAL_REDIRECT_URI: 'https://${app.properties.defaultHostName}${portalCallbackPath}' }

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    reserved: true // Linux
    zoneRedundant: zoneRedundant
  }
}

resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: appName
  location: location
  tags: union(tags, {
    'azd-service-name': serviceName
  })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityResourceId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Outbound through the virtual network (private networking); null: no integration.
    virtualNetworkSubnetId: empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId
    // Key Vault references resolve as this identity; the default would be a system-assigned one,
    // which this app does not have.
    keyVaultReferenceIdentity: identityResourceId
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityResourceId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
        // All the HTTP functions form the one `http` group; queue and timer functions scale on their own.
        alwaysReady: alwaysReadyHttpInstances == 0 ? [] : [
          {
            name: 'http'
            instanceCount: alwaysReadyHttpInstances
          }
        ]
        triggers: {
          http: {
            perInstanceConcurrency: httpPerInstanceConcurrency
          }
        }
      }
      // On Flex Consumption the language and its version are set here; the app settings
      // FUNCTIONS_WORKER_RUNTIME and WEBSITE_NODE_DEFAULT_VERSION are not accepted.
      // Node 22: Node 20 is past its end of life; the code stays Node 20-clean for local runs.
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }
}

// A config resource rather than siteConfig.appSettings: it takes an object, so the two sets merge with
// union() and no loop over values known only during the deployment is needed. It replaces the app's
// whole setting set: every setting lives in the templates (resources.bicep), none is kept from the
// portal across a provision.
resource settings 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: app
  name: 'appsettings'
  properties: union(appSettings, hostSettings, ownHostSettings)
}

// No FTP and no basic authentication to the deployment (SCM) endpoint: azd publishes the package to
// Flex Consumption with an Entra ID token, and nothing else deploys here.
resource basicPublishing 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = [
  for policy in [
    'ftp'
    'scm'
  ]: {
    parent: app
    name: policy
    properties: {
      allow: false
    }
  }
]

output name string = app.name
output defaultHostName string = app.properties.defaultHostName
