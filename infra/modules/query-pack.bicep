// A Log Analytics query pack with the queries of docs/operating.md ("Read the telemetry"), for the Application
// Insights resource's Logs: its queries dialog lists them under the pack. Their text is
// infra/query-pack.json, which test/integration/monitoring-queries.test.ts holds to that guide and to what the
// code emits.

param location string
param tags object = {}

@description('Name of the query pack.')
param queryPackName string

var queries = loadJsonContent('../query-pack.json')

resource queryPack 'Microsoft.OperationalInsights/queryPacks@2019-09-01' = {
  name: queryPackName
  location: location
  tags: tags
  properties: {}
}

resource packQueries 'Microsoft.OperationalInsights/queryPacks/queries@2019-09-01' = [
  for query in queries: {
    parent: queryPack
    // A query's name is a GUID: the same one for the same title, so a redeploy updates it in place.
    name: guid(queryPack.id, query.displayName)
    properties: {
      displayName: query.displayName
      body: query.body
      related: {
        // The classic Application Insights tables (traces, dependencies): run against the component.
        resourceTypes: [
          'microsoft.insights/components'
        ]
      }
    }
  }
]

output queryPackId string = queryPack.id
