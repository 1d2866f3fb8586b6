// Log Analytics Reader on one Log Analytics workspace for the app's identity, so that the log analytics
// endpoints can list the workspace's Microsoft Sentinel data connectors and tables (Azure Resource
// Manager reads) and query its logs (SentinelHealth, Usage, the connectors' tables). A built-in role
// that reads and never writes, and cannot read the workspace's shared keys; assigned on the workspace
// alone, in that workspace's resource group, which may be in another subscription.
targetScope = 'resourceGroup'

@description('Name of the Log Analytics workspace, in this resource group.')
param workspaceName string

@description('Principal (object) id of the app\'s user-assigned identity.')
param principalId string

// Built-in role definition id: https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/monitor#log-analytics-reader
var logAnalyticsReaderRoleId = '73c42c96-874c-492b-b04d-ab87d138a893'

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' existing = {
  name: workspaceName
}

resource reader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(workspace.id, principalId, logAnalyticsReaderRoleId)
  scope: workspace
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', logAnalyticsReaderRoleId)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}
