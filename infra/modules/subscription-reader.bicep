// Reader on one subscription for the app's identity, so that the cloud-resource lookups can list its
// resource groups, Log Analytics workspaces (with their Sentinel onboarding state) and network security
// groups. A built-in role that reads and never writes; deployed at the subscription's own scope,
// because that is where a subscription-wide role assignment lives.
targetScope = 'subscription'

@description('Principal (object) id of the app\'s user-assigned identity.')
param principalId string

// Built-in role definition id: https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/general#reader
var readerRoleId = 'acdd72a7-3385-48ef-bd42-f606fba81ae7'

resource reader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(subscription().id, principalId, readerRoleId)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', readerRoleId)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}
