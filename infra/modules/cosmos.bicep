// Cosmos DB for NoSQL: the account, the database and every container the code uses, and the data-plane
// role for the principals that read and write items. Containers live here, not in the app: a managed
// identity cannot create them through the data plane.

@description('Account name (globally unique, lowercase).')
param accountName string

param location string

param tags object = {}

@description('Database name: the app setting COSMOS_DATABASE.')
param databaseName string

@description('Every container. main.bicep passes its copy of shared/store/cosmos/containers.ts.')
param containers containerSpec[]

@description('Principal ids that get the built-in Data Contributor role on the database.')
param dataContributorPrincipalIds string[]

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
    // No virtual network here: Flex Consumption without VNet integration has no fixed outbound address.
    publicNetworkAccess: 'Enabled'
    // Point-in-time restore for the last 7 days, at no extra cost.
    backupPolicy: {
      type: 'Continuous'
      continuousModeProperties: {
        tier: 'Continuous7Days'
      }
    }
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
      resource: {
        id: c.name
        partitionKey: {
          paths: [
            c.partitionKeyPath
          ]
          kind: 'Hash'
          version: 2
        }
        // A null value is left out of the request: TTL off, default indexing.
        defaultTtl: c.?defaultTtl
        indexingPolicy: c.?indexingPolicy
      }
    }
  }
]

// Cosmos DB Built-in Data Contributor: read and write items, nothing on the account itself. It is a
// data-plane role, so it is a sqlRoleAssignment, not an Azure RBAC role assignment.
var dataContributorRoleId = '00000000-0000-0000-0000-000000000002'

resource dataContributors 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = [
  for principalId in dataContributorPrincipalIds: {
    parent: account
    name: guid(account.id, databaseName, principalId, dataContributorRoleId)
    properties: {
      roleDefinitionId: '${account.id}/sqlRoleDefinitions/${dataContributorRoleId}'
      principalId: principalId
      // This database only, not every database the account may hold later.
      scope: '${account.id}/dbs/${databaseName}'
    }
  }
]

output name string = account.name
@description('https://<account>.documents.azure.com:443/ — the app setting COSMOS_ENDPOINT.')
output endpoint string = account.properties.documentEndpoint
