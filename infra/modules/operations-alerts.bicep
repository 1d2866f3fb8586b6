// The alerts on what the service itself reports, and on the queues' backlog, routed to the action group
// of modules/alerts.bicep.
//
// Log alerts query Application Insights (classic table names) every 15 minutes, the cheapest frequency,
// for the service's own log records: the `traces` rows its logger writes, message as `message`, fields
// as `customDimensions` (shared/hosts/telemetry.ts). Not the Functions host's `requests`, whose
// shape in OpenTelemetry mode depends on the host's version: a timer may never appear there. Every
// message, field and value a query names is held to the code by test/integration/monitoring-queries.test.ts.
//
// They read records at info level: with LOG_LEVEL warn or error the silence alerts fire.
//
// Silence is a last record older than `silenceMinutes` within a two-day window, not "no record in the
// window": a deployment whose code has not arrived yet (the first `azd up` provisions before it
// deploys) has never written one, and stays quiet; the availability test covers an app that never
// starts. After two days of silence the alert resolves itself; the workbook still shows the gap.

param location string
param tags object = {}

@description('The action group every alert notifies (modules/alerts.bicep).')
param actionGroupId string

param appInsightsName string
param serviceBusNamespaceName string

@description('Minutes since the last record of the reconciler timer, or of the outbox sweep, before the silence alert fires (at its next evaluation, every 15 minutes). Both run every minute.')
@minValue(5)
param silenceMinutes int = 15

@description('A queue that never held fewer ready (active) messages than this over 15 minutes is not draining: its workers are failing, throttled or not scaling out.')
param activeBacklogThreshold int = 100

@description('A queue that never held fewer scheduled messages than this over an hour holds a growing pile of retries (webhook targets down, a handler failing) or of held deliveries (paused webhooks).')
param scheduledBacklogThreshold int = 1000

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

// --- log alerts --------------------------------------------------------------------------------------

// Each: a Kusto query over its window (15 minutes unless it says otherwise), and the count of its rows
// above a threshold.
var logAlerts = [
  {
    name: 'api-5xx-rate'
    displayName: 'API 5xx rate'
    description: 'More than 5% of at least 20 API requests in 15 minutes answered 5xx (the `request` lines). The problem documents\' requestId leads to the request\'s log lines.'
    severity: 2
    query: 'traces | where message == "request" | summarize total = count(), failed = countif(toint(customDimensions.status) >= 500) | where total >= 20 and failed * 100.0 / total > 5'
    threshold: 0
  }
  {
    name: 'webhook-auto-disabled'
    displayName: 'Webhook auto-disabled'
    description: 'A webhook was disabled after final delivery failures for 5 incidents within 24 hours (customDimensions.webhookId). POST /webhooks/{id}/enable undoes it.'
    severity: 3
    query: 'traces | where message == "webhook auto-disabled"'
    threshold: 0
  }
  {
    name: 'reconciler-failing'
    displayName: 'Reconciler passes failing'
    description: 'Workspaces whose reconciliation failed (a source or the store; customDimensions.workspaceId and error), or reconciler invocations that threw, more than twice in 15 minutes. The "reconciler left a source for the next pass" lines name the source.'
    severity: 2
    query: 'union (traces | where message == "reconciled workspace" | where tostring(customDimensions.outcome) == "failed"), (traces | where message == "function invocation" | where tostring(customDimensions.functionName) in ("reconciler", "reconcile-workspace") and tostring(customDimensions.outcome) == "failed")'
    threshold: 2
  }
  {
    name: 'reconciler-lag'
    displayName: 'Reconciler lag above three intervals'
    description: 'A workspace reconciled more than three minutes (three timer intervals) behind: its vendor is slow or throttling, or the reconcile queue is backing up (customDimensions.workspaceId, lagMs, passAgeMs).'
    severity: 2
    query: 'traces | where message == "reconciled workspace" | where todouble(customDimensions.lagMs) > 180000'
    threshold: 0
  }
  {
    // GET /api/v2/health answers 200 `degraded` when its store or queue check fails (liveness: the
    // availability test keeps passing), and writes this line: three or more in 15 minutes, against the
    // availability test's five calls, is an outage of the store or the queue, not one slow read.
    name: 'health-dependency-failing'
    displayName: 'Health check: store or queue failing'
    description: 'GET /api/v2/health reported a failed store or queue check (the "health dependency check failed" lines; customDimensions.failed names the check and its code, TIMEOUT or UPSTREAM_ERROR) more than twice in 15 minutes. The app is up, but requests that need the failing dependency fail. See the Cosmos DB and Service Bus metrics, the workbook, and the dependencies table.'
    severity: 1
    query: 'traces | where message == "health dependency check failed"'
    threshold: 2
  }
  {
    name: 'reconciler-silent'
    displayName: 'Reconciler timer silent'
    description: 'The reconciler timer, due every minute, has enqueued no pass for ${silenceMinutes} minutes: the app is stopped, fails to start (see its failed "function invocation" lines), or logs below info. No pass means no console change reaches the service.'
    severity: 1
    query: 'traces | where message == "reconciler pass enqueued" | summarize lastSeen = max(timestamp) | where lastSeen < ago(${silenceMinutes}m)'
    threshold: 0
    windowSize: 'P2D'
  }
  {
    name: 'outbox-sweep-silent'
    displayName: 'Outbox sweep silent'
    description: 'The outbox sweep, due every minute, has not run for ${silenceMinutes} minutes: events a crash left in the outbox wait, undelivered, until it runs again. The app is stopped, fails to start, or logs below info.'
    severity: 2
    query: 'traces | where message == "outbox swept" | summarize lastSeen = max(timestamp) | where lastSeen < ago(${silenceMinutes}m)'
    threshold: 0
    windowSize: 'P2D'
  }
]

resource logAlertRules 'Microsoft.Insights/scheduledQueryRules@2023-03-15-preview' = [
  for alert in logAlerts: {
    name: alert.name
    location: location
    tags: tags
    kind: 'LogAlert'
    properties: {
      displayName: alert.displayName
      description: alert.description
      severity: alert.severity
      enabled: true
      evaluationFrequency: 'PT15M'
      windowSize: alert.?windowSize ?? 'PT15M'
      scopes: [
        appInsights.id
      ]
      criteria: {
        allOf: [
          {
            query: alert.query
            timeAggregation: 'Count'
            operator: 'GreaterThan'
            threshold: alert.threshold
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      autoMitigate: true
      actions: {
        actionGroups: [
          actionGroupId
        ]
      }
    }
  }
]

// --- queue backlog -----------------------------------------------------------------------------------

// Per queue: the EntityName dimension splits each metric into one series per queue, each evaluated
// (and firing) on its own. Minimum over the window: a backlog that never drained, not a burst the
// workers worked off (a reconciler pass enqueues one message per batch of workspaces at once, every minute).
var backlogAlerts = [
  {
    name: 'queue-active-backlog'
    description: 'A Service Bus queue held at least ${activeBacklogThreshold} ready messages all through 15 minutes: its workers are failing, throttled or not scaling out (the alert names the queue, EntityName). The workbook shows every queue\'s counts.'
    severity: 2
    metricName: 'ActiveMessages'
    threshold: activeBacklogThreshold
    windowSize: 'PT15M'
  }
  {
    name: 'queue-scheduled-backlog'
    description: 'A Service Bus queue held at least ${scheduledBacklogThreshold} scheduled messages all through an hour: retries pile up (webhook targets down, a handler failing) or paused webhooks hold many deliveries (the alert names the queue, EntityName).'
    severity: 3
    metricName: 'ScheduledMessages'
    threshold: scheduledBacklogThreshold
    windowSize: 'PT1H'
  }
]

resource backlogAlertRules 'Microsoft.Insights/metricAlerts@2018-03-01' = [
  for alert in backlogAlerts: {
    name: alert.name
    location: 'global'
    tags: tags
    properties: {
      description: alert.description
      severity: alert.severity
      enabled: true
      scopes: [
        serviceBus.id
      ]
      evaluationFrequency: 'PT5M'
      windowSize: alert.windowSize
      targetResourceType: 'Microsoft.ServiceBus/namespaces'
      criteria: {
        'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
        allOf: [
          {
            criterionType: 'StaticThresholdCriterion'
            name: alert.metricName
            metricNamespace: 'Microsoft.ServiceBus/namespaces'
            metricName: alert.metricName
            dimensions: [
              {
                name: 'EntityName'
                operator: 'Include'
                values: [
                  '*'
                ]
              }
            ]
            operator: 'GreaterThanOrEqual'
            threshold: alert.threshold
            timeAggregation: 'Minimum'
          }
        ]
      }
      autoMitigate: true
      actions: [
        {
          actionGroupId: actionGroupId
        }
      ]
    }
  }
]
