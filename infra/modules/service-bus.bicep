// Service Bus: the namespace and the service's queues, all with the same guarantees the in-process
// queue (shared/platform/queue/in-process/in-process-queue.ts) gives locally.

@description('Namespace name (globally unique).')
param namespaceName string

param location string

param tags object = {}

@description('Queue names. resources.bicep passes its copy of shared/platform/queue/queue-names.ts.')
param queueNames string[]

@description('Log Analytics workspace that receives the namespace\'s diagnostic logs.')
param logAnalyticsWorkspaceId string

@description('Private networking: reached through a private endpoint only, which needs the Premium tier.')
param privateNetworking bool = false

@description('Across the region\'s availability zones. Sent only when true: a namespace created in a region with zones is zone-redundant already (Standard included), and the property cannot change after creation, so an existing namespace is never sent false.')
param zoneRedundant bool = false

var standardSku = {
  name: 'Standard'
  tier: 'Standard'
}
var premiumSku = {
  name: 'Premium'
  tier: 'Premium'
  capacity: 1
}

resource namespace 'Microsoft.ServiceBus/namespaces@2024-01-01' = {
  name: namespaceName
  location: location
  tags: tags
  // Standard, not Basic: Basic has no duplicate detection, which the code relies on (below). Premium
  // (one messaging unit) with private networking: private endpoints exist on Premium only. A namespace
  // does not change tier in place; docs/operating.md, "Private networking".
  sku: privateNetworking ? premiumSku : standardSku
  properties: {
    // Entra ID only: no SAS keys or connection strings exist to leak.
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    // null: not sent, so an existing namespace keeps what it was created with.
    zoneRedundant: zoneRedundant ? true : null
  }
}

resource queues 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' = [
  for name in queueNames: {
    parent: namespace
    name: name
    properties: {
      // Message ids are derived, not random: a send repeated after a partial failure, or an outbox
      // sweep overlapping a publish, is dropped as a duplicate within the window.
      requiresDuplicateDetection: true
      duplicateDetectionHistoryTimeWindow: 'PT10M'
      // A message abandoned this many times goes to the dead-letter queue, where `npm run dlq` finds
      // it and an alert reports it. Handler failures are retried later by the triggers themselves
      // (scheduled), so these deliveries are spent on crashed workers and on the final give-up.
      maxDeliveryCount: 10
      // The Functions host renews the lock while a handler runs; a crashed instance frees it in a minute.
      lockDuration: 'PT1M'
    }
  }
]

// Operational logs (entity changes, failures of the namespace itself) to Log Analytics; rare, so
// cheap. Metrics such as DeadletteredMessages are read by the alerts directly.
resource diagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: namespace
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    // Resource-specific tables (AZMSOperationalLogs, …), not AzureDiagnostics.
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      {
        categoryGroup: 'allLogs'
        enabled: true
      }
    ]
  }
}

output name string = namespace.name
output id string = namespace.id
@description('<namespace>.servicebus.windows.net, taken from the endpoint so that it is right in every cloud.')
output fullyQualifiedNamespace string = split(split(namespace.properties.serviceBusEndpoint, '//')[1], ':')[0]
