using './main.bicep'

// Prefix of every resource name; a suffix unique to the resource group is added.
param namePrefix = 'secops'

// The app setting COSMOS_DATABASE (the code's default is the same).
param cosmosDatabaseName = 'secops'

// Who sets the three Key Vault secrets and runs `npm run bootstrap` against the deployed Cosmos
// (gets Key Vault Secrets Officer and Cosmos Data Contributor). Read from the environment so that this
// file holds no ids:
//   export OPERATOR_PRINCIPAL_ID=$(az ad signed-in-user show --query id -o tsv)
// Unset: no operator grants (grant access another way, e.g. to a group).
param operatorPrincipalId = readEnvironmentVariable('OPERATOR_PRINCIPAL_ID', '')

param maximumInstanceCount = 100

param instanceMemoryMB = 2048

// Cloud-resource lookups (README, "Cloud resources"): account id → the subscription ids that account's
// organization may see. Every subscription listed gets Reader for the app's identity; a provider's
// organization also sees its customers' subscriptions. For example:
//   param cloudSubscriptions = {
//     '<Fabrikam account id>': [ '<subscription id>', '<subscription id>' ]
//   }
// Empty: the lookups answer EXTENSION_NOT_ENABLED.
param cloudSubscriptions = {}
