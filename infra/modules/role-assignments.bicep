// Every Azure RBAC grant in one place, so that what the app's identity may do can be read at a glance.
// All are data-plane roles on one resource each; none lets the app change or delete a resource.
// (The Cosmos data role is a sqlRoleAssignment and lives in cosmos.bicep.)

@description('Principal (object) id of the app\'s user-assigned identity.')
param appPrincipalId string

@description('Principal id of the operator (the hooks, `npm run bootstrap`, `npm run dlq`). Empty: no operator grant.')
param operatorPrincipalId string = ''

param storageAccountName string

@description('The SOP documents\' storage account, and their container in it.')
param documentStorageAccountName string
param documentContainerName string

param serviceBusNamespaceName string

@description('The namespace\'s queues: the app\'s identity manages each (Data Owner), so that the scale controller reads their lengths.')
param queueNames string[]

param keyVaultName string
param appInsightsName string

// Built-in role definition ids: https://learn.microsoft.com/azure/role-based-access-control/built-in-roles
var roles = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  storageBlobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
  serviceBusDataSender: '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'
  serviceBusDataReceiver: '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'
  serviceBusDataOwner: '090c5cfd-751d-490a-894a-3ce6f1109419'
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  keyVaultSecretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource documentStorage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: documentStorageAccountName
}

resource documentBlobs 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' existing = {
  parent: documentStorage
  name: 'default'
}

resource documentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' existing = {
  parent: documentBlobs
  name: documentContainerName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource queues 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' existing = [
  for name in queueNames: {
    parent: serviceBus
    name: name
  }
]

resource keyVault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// The Functions host keeps timer-trigger locks and host keys in blobs (AzureWebJobsStorage), and Flex
// Consumption reads the deployment package from a blob container.
resource storageBlobDataOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, appPrincipalId, roles.storageBlobDataOwner)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageBlobDataOwner)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// The host writes its diagnostic events (what the portal's "Diagnose and solve problems" reads) to a
// table of the same account. No queue use: nothing here is a queue trigger or a Durable Function.
resource storageTableDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, appPrincipalId, roles.storageTableDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageTableDataContributor)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// SOP documents: read, write and delete the blobs of their one container. Contributor, not Owner (which
// could also change access control lists), and on the container, not the account: the app reaches no
// other container there, and neither the account's keys nor its network rules.
resource documentsContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(documentContainer.id, appPrincipalId, roles.storageBlobDataContributor)
  scope: documentContainer
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageBlobDataContributor)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Send: outbox publish, fan-out and scheduled retries. Receive: the Service Bus triggers.
resource serviceBusData 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in [
    roles.serviceBusDataSender
    roles.serviceBusDataReceiver
  ]: {
    name: guid(serviceBus.id, appPrincipalId, roleId)
    scope: serviceBus
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

// Data Owner on each of the service's queues, not on the namespace: reading a queue's length (its
// runtime properties) takes the Manage right, and without it the scale controller of the queue triggers
// peeks at messages instead and scales late, which the reconcile fan-out (one message per batch of
// workspaces a minute) depends on. On the namespace it could also create and delete queues; on a queue it can
// change or delete that queue only, which the next provision restores.
resource queueDataOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (name, i) in queueNames: {
    name: guid(queues[i].id, appPrincipalId, roles.serviceBusDataOwner)
    scope: queues[i]
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.serviceBusDataOwner)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

// Read the keys (and the bridges' headers) through Key Vault references; cannot list other vault content or write.
resource keyVaultSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(keyVault.id, appPrincipalId, roles.keyVaultSecretsUser)
  scope: keyVault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsUser)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Application Insights takes Entra ID-authenticated telemetry only (local auth is off).
resource monitoringMetricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, appPrincipalId, roles.monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// The operator (main.bicep's operatorPrincipalId: whoever deploys, or a group) holds these standing
// grants. The hooks create missing keys and read them back for the bootstrap, and the operator sets
// the bridges' headers. In an RBAC vault even a subscription owner cannot do that without a
// data-plane role. No principalType: the operator may be a user, a group or a pipeline's service
// principal.
resource operatorSecretsOfficer 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(operatorPrincipalId)) {
  name: guid(keyVault.id, operatorPrincipalId, roles.keyVaultSecretsOfficer)
  scope: keyVault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsOfficer)
    principalId: operatorPrincipalId
  }
}

// `npm run dlq`: peek at, receive and resubmit dead letters. Data roles only, as for the app.
resource operatorServiceBusData 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in (empty(operatorPrincipalId) ? [] : [
    roles.serviceBusDataSender
    roles.serviceBusDataReceiver
  ]): {
    name: guid(serviceBus.id, operatorPrincipalId, roleId)
    scope: serviceBus
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: operatorPrincipalId
    }
  }
]
