// Cosmos DB for NoSQL: the account, the database and every container the code uses, and the data-plane
// role for the principals that read and write items. Containers live here, not in the app: a managed
// identity cannot create them through the data plane.

@description('Account name (globally unique, lowercase).')
param accountName string

param location string

param tags object = {}

@description('Database name: the app setting COSMOS_DATABASE.')
param databaseName string

@description('Every container. resources.bicep passes its copy of shared/platform/store/cosmos/containers.ts.')
param containers containerSpec[]

@description('Principal ids that get the built-in Data Contributor role on the database.')
param dataContributorPrincipalIds string[]

@description('Log Analytics workspace that receives the account\'s diagnostic logs.')
param logAnalyticsWorkspaceId string

@description('`Disabled` with private networking: the account answers through its private endpoint only.')
@allowed([
  'Enabled'
  'Disabled'
])
param publicNetworkAccess string = 'Enabled'

@description('Replicas across the region\'s availability zones. Fixed when the account is created: changing it later fails, and needs a new account (or a restore into one).')
param zoneRedundant bool = false

@description('A CanNotDelete lock on the account: deleting it, or the resource group, fails until the lock is removed.')
param deleteLock bool = false

type containerSpec = {
  name: string
  @description('Fixed for the container\'s lifetime: changing it means a new container and a data migration.')
  partitionKeyPath: string
  @description('Seconds; -1 turns TTL on with items living until their own `ttl`. Absent: TTL off.')
  defaultTtl: int?
  @description('Absent: Cosmos\'s default (everything range-indexed).')
  indexingPolicy: object?
}

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' = {
  name: accountName
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: zoneRedundant
      }
    ]
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    // Serverless (why: main.bicep). Containers then take no throughput settings.
    capabilities: [
      {
        name: 'EnableServerless'
      }
    ]
    // Entra ID only: there are no account keys to leak or rotate. The app signs in with its managed
    // identity, an operator (bootstrap) with their own login.
    disableLocalAuth: true
    // Without private networking no network rule: Flex Consumption without VNet integration has no
    // fixed outbound address. With it, the private endpoint (modules/private-network.bicep) only.
    publicNetworkAccess: publicNetworkAccess
    // Point-in-time restore for the last 7 days, at no extra cost.
    backupPolicy: {
      type: 'Continuous'
      continuousModeProperties: {
        tier: 'Continuous7Days'
      }
    }
  }
}

// The account holds everything the service knows; a lock keeps a deletion (of it, or of the whole
// resource group by `azd down`) from taking it by accident. It does not stop writes.
resource lock 'Microsoft.Authorization/locks@2020-05-01' = if (deleteLock) {
  name: 'do-not-delete'
  scope: account
  properties: {
    level: 'CanNotDelete'
    notes: 'The service\'s data. Remove this lock before deleting the account or its resource group (docs/operating.md, "Tear down").'
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
  }
}

resource sqlContainers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = [
  for c in containers: {
    parent: database
    name: c.name
    properties: {
      // A setting the code leaves out is left out of the request (TTL off, default indexing), not
      // sent as null.
      resource: union(
        {
          id: c.name
          partitionKey: {
            paths: [
              c.partitionKeyPath
            ]
            kind: 'Hash'
            version: 2
          }
        },
        c.?defaultTtl == null ? {} : { defaultTtl: c.?defaultTtl },
        c.?indexingPolicy == null ? {} : { indexingPolicy: c.?indexingPolicy }
      )
    }
  }
]

// Cosmos DB Built-in Data Contributor: read and write items, nothing on the account itself. It is a
// data-plane role, so it is a sqlRoleAssignment, not an Azure RBAC role assignment.
var dataContributorRoleId = '00000000-0000-0000-0000-000000000002'

// One at a time, after the containers: Cosmos takes one control-plane change per account at a time
// and answers a concurrent one with 412 "another operation in progress" (as the AVM Cosmos module
// orders them).
@batchSize(1)
resource dataContributors 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = [
  for principalId in dataContributorPrincipalIds: {
    parent: account
    dependsOn: [
      sqlContainers
    ]
    name: guid(account.id, databaseName, principalId, dataContributorRoleId)
    properties: {
      roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataContributorRoleId}'
      principalId: principalId
      // This database only, not every database the account may hold later.
      scope: '${account.id}/dbs/${databaseName}'
    }
  }
]

// Control-plane changes and per-partition RU use (hot partitions, the cause of 429s) to Log
// Analytics, in resource-specific tables. Request-level logs (DataPlaneRequests) are left out: they
// grow with every request; turn them on while investigating.
resource diagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: account
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      {
        category: 'ControlPlaneRequests'
        enabled: true
      }
      {
        category: 'PartitionKeyRUConsumption'
        enabled: true
      }
    ]
  }
}

output name string = account.name
output id string = account.id
@description('https://<account>.documents.azure.com:443/ — the app setting COSMOS_ENDPOINT.')
output endpoint string = account.properties.documentEndpoint
