// The operator's view in the Azure portal: an Azure Monitor workbook, "SecOps API operations", linked to
// the Application Insights resource (its Workbooks blade; also in the resource group). Its content is
// infra/workbook.json, as the workbook editor's Advanced Editor shows it, with the resources it reads
// written as __TOKENS__ that are replaced here: queues, reconciler, webhook deliveries, outbox, Cosmos DB,
// functions, and the alerts firing now. test/integration/monitoring-queries.test.ts holds every query and
// metric in it to what the code and the templates emit.

param location string
param tags object = {}

param appInsightsName string
@description('Resource id of the Log Analytics workspace behind Application Insights, which also receives the Cosmos DB diagnostic logs.')
param logAnalyticsWorkspaceId string
param serviceBusNamespaceName string
param cosmosAccountName string

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

// Every token infra/workbook.json holds, and what it stands for.
var content = replace(
  replace(
    replace(
      replace(
        replace(
          replace(loadTextContent('../workbook.json'), '__APP_INSIGHTS__', appInsights.id),
          '__LOG_ANALYTICS__',
          logAnalyticsWorkspaceId
        ),
        '__SERVICE_BUS__',
        serviceBus.id
      ),
      '__COSMOS__',
      cosmos.id
    ),
    // Azure Resource Graph (the alerts firing now) queries the subscription, filtered to this group.
    '__SUBSCRIPTION__',
    subscription().id
  ),
  '__RESOURCE_GROUP__',
  resourceGroup().name
)

resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  // A workbook's name is a GUID: the same one for the same resource group, so a redeploy updates it.
  name: guid(resourceGroup().id, 'secops-operations-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'SecOps API operations'
    category: 'workbook'
    sourceId: appInsights.id
    version: 'Notebook/1.0'
    serializedData: content
  }
}

output workbookId string = workbook.id
