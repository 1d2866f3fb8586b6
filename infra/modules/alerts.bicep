// What should wake an operator, each routed to one action group (email: the alertEmail parameter):
// dead letters, Cosmos DB throttling, and the health check (an availability test of GET /api/v2/health)
// failing, on platform metrics. What only the service knows (a 5xx rate, webhooks disabled for failing,
// reconciler passes failing or late, a silent timer) and the queues' backlog are in
// modules/operations-alerts.bicep, on the same action group.

param location string
param tags object = {}
param actionGroupName string

@description('Email receiver of the action group. Empty: no receiver.')
param alertEmail string

param appInsightsName string
param serviceBusNamespaceName string
param cosmosAccountName string

@description('The health endpoint the availability test calls.')
param healthUrl string

@description('Whether the availability test runs: off until the code is deployed (the postdeploy hook turns it on).')
param availabilityTestEnabled bool = false

// Where the availability test runs from, spread over three continents. Microsoft advises at least five
// locations and an alert when all but two of them fail: one location's own network trouble then never
// alerts, and an outage still does within a test interval.
var availabilityTestLocations = [
  'us-va-ash-azr' // East US
  'us-ca-sjc-azr' // West US
  'emea-nl-ams-azr' // West Europe
  'emea-gb-db3-azr' // North Europe
  'apac-sg-sin-azr' // Southeast Asia
]

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: actionGroupName
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'secops-api'
    enabled: true
    emailReceivers: empty(alertEmail)
      ? []
      : [
          {
            name: 'operator'
            emailAddress: alertEmail
            useCommonAlertSchema: true
          }
        ]
  }
}

// --- metric alerts -----------------------------------------------------------------------------------

// A message that used up its deliveries: nothing retries it any more (`npm run dlq`). Per queue.
resource deadLetters 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'dead-lettered-messages'
  location: 'global'
  tags: tags
  properties: {
    description: 'A Service Bus queue holds dead-lettered messages. List them with `npm run dlq -- list`, resubmit them once the cause is fixed.'
    severity: 2
    enabled: true
    scopes: [
      serviceBus.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    targetResourceType: 'Microsoft.ServiceBus/namespaces'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'DeadLetters'
          metricNamespace: 'Microsoft.ServiceBus/namespaces'
          metricName: 'DeadletteredMessages'
          dimensions: [
            {
              name: 'EntityName'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          operator: 'GreaterThan'
          threshold: 0
          // The metric is a count the queue holds; any average above zero means some are there.
          timeAggregation: 'Average'
        }
      ]
    }
    autoMitigate: true
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// Throttling that lasts: the SDK retries a 429 by itself, so a few are normal in a burst; this many
// in 15 minutes means the serverless account's burst ceiling is the bottleneck.
resource cosmosThrottling 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'cosmos-throttling'
  location: 'global'
  tags: tags
  properties: {
    description: 'Cosmos DB answered more than 50 requests with 429 in 15 minutes. See the PartitionKeyRUConsumption logs for the hot partition.'
    severity: 3
    enabled: true
    scopes: [
      cosmos.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    targetResourceType: 'Microsoft.DocumentDB/databaseAccounts'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'Throttled'
          metricNamespace: 'Microsoft.DocumentDB/databaseAccounts'
          metricName: 'TotalRequests'
          dimensions: [
            {
              name: 'StatusCode'
              operator: 'Include'
              values: [
                '429'
              ]
            }
          ]
          operator: 'GreaterThan'
          threshold: 50
          timeAggregation: 'Count'
        }
      ]
    }
    autoMitigate: true
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// --- the health check --------------------------------------------------------------------------------

// The endpoint is liveness: 200 whenever the app serves, `status: degraded` in the body when its store
// or queue check fails. The test therefore watches the app itself (up, starting, answering); a failing
// dependency is the `health-dependency-failing` log alert of modules/operations-alerts.bicep.

// GET /api/v2/health from five locations every 15 minutes, retried once before it counts as failed (a
// cold start can exceed the endpoint's one-second budget). Flex Consumption has no platform health
// check that replaces instances; this is the outside view. Disabled until the code is deployed: on a
// first `azd up` the app exists, without code, minutes before the package arrives.
resource healthTest 'Microsoft.Insights/webtests@2022-06-15' = {
  name: 'health-${appInsightsName}'
  location: location
  tags: union(tags, {
    // Links the test to its Application Insights resource (the portal's Availability view).
    'hidden-link:${appInsights.id}': 'Resource'
  })
  kind: 'standard'
  properties: {
    SyntheticMonitorId: 'health-${appInsightsName}'
    Name: 'GET /api/v2/health'
    Kind: 'standard'
    Enabled: availabilityTestEnabled
    Frequency: 900
    Timeout: 30
    RetryEnabled: true
    Locations: [
      for id in availabilityTestLocations: {
        Id: id
      }
    ]
    Request: {
      RequestUrl: healthUrl
      HttpVerb: 'GET'
      ParseDependentRequests: false
    }
    ValidationRules: {
      ExpectedHttpStatusCode: 200
      SSLCheck: true
      SSLCertRemainingLifetimeCheck: 7
    }
  }
}

resource healthFailing 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'health-check-failing'
  location: 'global'
  tags: tags
  properties: {
    description: 'GET /api/v2/health failed from all but two of the test locations: the app is down, failing to start, or not answering within 30 seconds. A store or queue outage does not fail it (the endpoint is liveness, and answers 200 with status degraded): the health-dependency-failing alert reports that.'
    severity: 1
    enabled: true
    scopes: [
      healthTest.id
      appInsights.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.WebtestLocationAvailabilityCriteria'
      webTestId: healthTest.id
      componentId: appInsights.id
      // N - 2 of the N locations.
      failedLocationCount: length(availabilityTestLocations) - 2
    }
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

output actionGroupId string = actionGroup.id
output availabilityTestId string = healthTest.id
