// Diagnostic settings of the resources whose logs would otherwise be nowhere, to the Log Analytics
// workspace behind Application Insights (Cosmos DB's and Service Bus's are in their own modules):
// - Key Vault: AuditEvent, every operation on the vault and its secrets, by whom (the app's identity
//   resolving its references, an operator reading a key for the bootstrap, a failed attempt);
// - the runtime's storage account: deletes of blobs (the deployment package, host keys) and of the
//   host's table entities; not reads or writes, since the host reads and renews its lock blobs all the
//   time (every timer's singleton lease, every few seconds), which would be most of the workspace's
//   ingestion at idle;
// - the SOP documents' storage account: reads, writes and deletes, which document was read by whom;
// - the function app: the Functions host's own logs (FunctionAppLogs), which show a start that failed
//   before any telemetry could be sent, and its platform metrics.

@description('Resource id of the Log Analytics workspace.')
param logAnalyticsWorkspaceId string

param keyVaultName string

@description('The runtime\'s storage account (AzureWebJobsStorage, deployment package).')
param storageAccountName string

@description('The SOP documents\' storage account.')
param documentStorageAccountName string

param functionAppName string

resource keyVault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource storageBlobs 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' existing = {
  parent: storage
  name: 'default'
}

resource storageTables 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' existing = {
  parent: storage
  name: 'default'
}

resource documentStorage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: documentStorageAccountName
}

resource documentBlobs 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' existing = {
  parent: documentStorage
  name: 'default'
}

resource app 'Microsoft.Web/sites@2024-04-01' existing = {
  name: functionAppName
}

var changes = [
  {
    category: 'StorageWrite'
    enabled: true
  }
  {
    category: 'StorageDelete'
    enabled: true
  }
]
var deletes = [
  {
    category: 'StorageDelete'
    enabled: true
  }
]

resource keyVaultAudit 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: keyVault
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    // The resource-specific table (AZKVAuditLogs), not AzureDiagnostics.
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      {
        category: 'AuditEvent'
        enabled: true
      }
    ]
  }
}

resource storageBlobLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: storageBlobs
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: deletes
  }
}

resource storageTableLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: storageTables
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: deletes
  }
}

resource documentBlobLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: documentBlobs
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: concat(
      [
        {
          category: 'StorageRead'
          enabled: true
        }
      ],
      changes
    )
  }
}

resource appLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: app
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      {
        category: 'FunctionAppLogs'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}
