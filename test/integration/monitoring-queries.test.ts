/**
 * Every query and metric the deployment watches the service by — the log alerts, the backlog alerts,
 * the operations workbook and the query pack — held to what the code and the templates emit:
 *
 * - log records: the compiler reads every `logger.<level>("message", fields)` call of the code that runs
 *   in Azure (test/support/telemetry-catalog.ts); a query may filter only on those messages, read only
 *   the fields written with them, and compare a field only with values its type allows. In Application
 *   Insights a record is a `traces` row: the message in `message`, each field in `customDimensions`, as
 *   text (the Azure Monitor exporter's MessageData; test/integration/deploy-package.test.ts sees one arrive);
 * - spans of the instrumentations shared/hosts/telemetry.ts registers: `dependencies`;
 * - the Cosmos DB diagnostic log the Cosmos module sends in resource-specific mode:
 *   `CDBPartitionKeyRUConsumption`;
 * - platform metrics of Service Bus and Cosmos DB, by the names, aggregations and dimensions Azure
 *   Monitor documents, split and filtered by the queue and container names of the code;
 * - Azure Resource Graph's `alertsmanagementresources`, by the fields Microsoft's own workbooks read.
 *
 * Renaming a log message, a field, a value, a queue or a function makes this fail until the queries follow.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { queueNames } from "../../shared/platform/queue/queue-names";
import { containers } from "../../shared/platform/store/cosmos/containers";
import { queryProblems, queryReferences, type QueryNames } from "../support/kql-check";
import { logCatalogue, registeredFunctionNames, type LogCatalogue } from "../support/telemetry-catalog";

const repoDir = path.resolve(__dirname, "../..");
const read = (relativePath: string) => readFileSync(path.join(repoDir, relativePath), "utf8");

// ---------------------------------------------------------------------------------------------------
// What Azure documents (each list as published; only what the queries here may touch)
// ---------------------------------------------------------------------------------------------------

/**
 * Application Insights' classic tables, as a query scoped to the component sees them: `traces` (log
 * records) and `dependencies` (client spans). The service writes no `requests` of its own (the host
 * does, in a shape that depends on its version), no `customMetrics` and no `exceptions`.
 */
const classicTables = {
  traces: ["timestamp", "message", "severityLevel", "itemType", "customDimensions", "customMeasurements", "operation_Name", "operation_Id", "operation_ParentId", "cloud_RoleName", "cloud_RoleInstance", "appName", "itemCount", "sdkVersion"],
  dependencies: ["timestamp", "id", "target", "type", "name", "data", "success", "resultCode", "duration", "performanceBucket", "customDimensions", "customMeasurements", "operation_Name", "operation_Id", "operation_ParentId", "cloud_RoleName", "cloud_RoleInstance", "appName", "itemType", "itemCount", "sdkVersion"],
} as const;
/** Columns of the classic tables the service does not write (`requests`, `exceptions`): a query naming one reads nothing. */
const foreignColumns = ["url", "source", "problemId", "outerMessage", "details", "severityLevel", "message", "target", "type", "name", "data", "success", "resultCode", "duration", "performanceBucket", "id"];

/** Log Analytics, resource-specific table of the Cosmos DB category PartitionKeyRUConsumption (Azure Monitor table reference). */
const cosmosPartitionTable = {
  CDBPartitionKeyRUConsumption: ["TimeGenerated", "AccountName", "ActivityId", "CollectionName", "DatabaseName", "OperationName", "PartitionKey", "PartitionKeyRangeId", "RegionName", "RequestCharge", "SourceSystem", "TenantId", "Type", "_ResourceId", "_SubscriptionId", "_BilledSize", "_IsBillable"],
};

/** Azure Monitor supported metrics: Microsoft.ServiceBus/namespaces and Microsoft.DocumentDB/databaseAccounts. */
const platformMetrics: Record<string, Record<string, { aggregations: string[]; dimensions: string[] }>> = {
  "Microsoft.ServiceBus/namespaces": {
    ActiveMessages: { aggregations: ["Average", "Minimum", "Maximum"], dimensions: ["EntityName"] },
    ScheduledMessages: { aggregations: ["Average", "Minimum", "Maximum"], dimensions: ["EntityName"] },
    DeadletteredMessages: { aggregations: ["Average", "Minimum", "Maximum"], dimensions: ["EntityName"] },
  },
  "Microsoft.DocumentDB/databaseAccounts": {
    TotalRequests: { aggregations: ["Count"], dimensions: ["DatabaseName", "CollectionName", "Region", "StatusCode", "OperationType", "Status", "CapacityType"] },
    TotalRequestUnits: { aggregations: ["Total", "Average", "Maximum"], dimensions: ["DatabaseName", "CollectionName", "Region", "StatusCode", "OperationType", "Status", "CapacityType"] },
    NormalizedRUConsumption: { aggregations: ["Maximum", "Average"], dimensions: ["CollectionName", "DatabaseName", "Region", "PartitionKeyRangeId", "CollectionRid", "PhysicalPartitionId"] },
  },
};
/**
 * How a workbook's metrics item names them, as the portal's own workbooks do: the metric id
 * `<namespace>-<category>-<metric>` (Service Bus metrics have no category: `--`), and the aggregation
 * by number (1 Sum, 3 Maximum, 4 Average, 7 Count).
 */
const workbookMetricIds: Record<string, { namespace: string; prefix: string }> = {
  "Microsoft.ServiceBus/namespaces": { namespace: "microsoft.servicebus/namespaces", prefix: "microsoft.servicebus/namespaces--" },
  "Microsoft.DocumentDB/databaseAccounts": { namespace: "microsoft.documentdb/databaseaccounts", prefix: "microsoft.documentdb/databaseaccounts-Requests-" },
};
const workbookAggregations: Record<number, string> = { 1: "Total", 3: "Maximum", 4: "Average", 7: "Count" };

/** `properties.essentials` of an alert in Azure Resource Graph's alertsmanagementresources, as Microsoft's Alerts workbook reads it. */
const alertEssentials = ["startDateTime", "severity", "alertState", "alertRule", "monitorCondition", "monitorService", "targetResource", "targetResourceType", "targetResourceGroup", "targetResourceName", "signalType", "description"];

// ---------------------------------------------------------------------------------------------------
// What the code and the templates emit
// ---------------------------------------------------------------------------------------------------

let logs: LogCatalogue;
let dynamicMessages: string[];
const functions = registeredFunctionNames(repoDir);
/** The functions that write `function invocation` lines (shared/hosts/azure/invocation-log.ts): all but HTTP. */
const invokedFunctions = [...functions.timers, ...functions.queues];

beforeAll(() => {
  ({ records: logs, dynamic: dynamicMessages } = logCatalogue(repoDir));
}, 120_000);

/** What a query scoped to the Application Insights component may name. */
const appInsightsNames = (): QueryNames => ({ tables: classicTables, foreignColumns, logs, fieldValues: { functionName: invokedFunctions } });

const operationsAlerts = stripBicepComments(read("infra/modules/operations-alerts.bicep"));
const alertsModule = stripBicepComments(read("infra/modules/alerts.bicep"));
const resources = stripBicepComments(read("infra/resources.bicep"));
const workbookJson = read("infra/workbook.json");
const workbook = JSON.parse(workbookJson) as { version: string; items: WorkbookItem[] };
const workbookModule = stripBicepComments(read("infra/modules/workbook.bicep"));
const queryPack = JSON.parse(read("infra/query-pack.json")) as { displayName: string; body: string }[];
const queryPackModule = stripBicepComments(read("infra/modules/query-pack.bicep"));

interface WorkbookItem {
  type: number;
  name: string;
  content: Record<string, unknown> & { items?: WorkbookItem[] };
}
const workbookItems = (items: WorkbookItem[]): WorkbookItem[] => items.flatMap((i) => [i, ...workbookItems(i.content.items ?? [])]);
const kqlItems = workbookItems(workbook.items).filter((i) => i.type === 3);
const metricItems = workbookItems(workbook.items).filter((i) => i.type === 10);

describe("the log records, as queries see them", () => {
  it("are written with literal messages and with field names the exporter keeps as custom dimensions", () => {
    expect(dynamicMessages, "a message that is not a literal cannot be queried by name").toEqual([]);
    expect(logs.size).toBeGreaterThan(20);
    for (const kind of logs.values()) {
      // The exporter leaves out attributes named like OpenTelemetry's semantic conventions (dotted)
      // and those starting with "microsoft" or "_MS.".
      for (const field of kind.fields.keys()) expect(field, `${kind.message}: ${field}`).toMatch(/^(?!microsoft)[A-Za-z][A-Za-z0-9]*$/);
    }
  });

  it("reach Application Insights as traces, and the instrumented calls as dependencies", () => {
    const telemetry = read("shared/hosts/telemetry.ts");
    for (const part of ["AzureMonitorLogExporter", "AzureMonitorTraceExporter", "createAzureSdkInstrumentation", "HttpInstrumentation", "UndiciInstrumentation"]) {
      expect(telemetry, part).toContain(part);
    }
    // The message is the record's body, each field an attribute (test/unit/telemetry.test.ts pins it).
    expect(telemetry).toMatch(/emit\(\{ body: message, severityNumber: severity\[at\], severityText: at\.toUpperCase\(\), attributes: attributesOf\(fields\) \}\)/);
  });

  it("include what the alerts and the workbook are built on, with the fields and values they read", () => {
    const fields = (message: string) => [...(logs.get(message)?.fields.keys() ?? [])];
    expect(fields("reconciler pass enqueued")).toEqual(expect.arrayContaining(["passId", "workspaces"]));
    expect(fields("outbox swept")).toEqual(expect.arrayContaining(["waiting", "carriedOut"]));
    expect(fields("reconciled workspace")).toEqual(expect.arrayContaining(["workspaceId", "outcome", "lagMs", "error"]));
    expect([...logs.get("reconciled workspace")!.fields.get("outcome")!].sort()).toEqual(["done", "failed", "missing"]);
    expect([...logs.get("webhook delivery attempt")!.fields.get("outcome")!].sort()).toEqual(["fail", "retry", "succeeded"]);
    expect([...logs.get("function invocation")!.fields.get("outcome")!].sort()).toEqual(["failed", "succeeded"]);
    expect(fields("function invocation")).toEqual(expect.arrayContaining(["functionName", "trigger", "outcome", "error"]));
    expect(fields("request")).toEqual(expect.arrayContaining(["status", "durationMs", "requestId"]));
    expect(logs.get("outbox swept")!.sites).toEqual([expect.stringMatching(/^functions\/outbox-sweep\.ts:/)]);
    expect(logs.get("reconciler pass enqueued")!.sites).toEqual([expect.stringMatching(/^functions\/reconciler\.ts:/)]);
    expect(functions.timers.sort()).toEqual(["approval-expiry", "outbox-sweep", "reconciler"]);
    expect(functions.queues).toContain("reconcile-workspace");
  });
});

describe("log alerts", () => {
  const alerts = bicepObjects(operationsAlerts, "var logAlerts =");

  it("query only the service's own records, each name of them emitted by the code", () => {
    expect(alerts.length).toBeGreaterThanOrEqual(6);
    for (const alert of alerts) {
      const query = substituteParams(alert.query!, operationsAlerts);
      expect(queryProblems(query, appInsightsNames()), `${alert.name}: ${query}`).toEqual([]);
      expect(queryReferences(query).tables, alert.name).toEqual(expect.arrayContaining(["traces"]));
      expect(query, alert.name).not.toMatch(/\brequests\b|\bcustomMetrics\b/);
    }
    // The module that held them before routes none any more.
    expect(alertsModule).not.toContain("scheduledQueryRules");
  });

  it("find the reconciler's failures by its workspace lines and its functions' failed invocations", () => {
    const failing = alerts.find((a) => a.name === "reconciler-failing")!;
    expect(failing.query).toContain('traces | where message == "reconciled workspace" | where tostring(customDimensions.outcome) == "failed"');
    expect(failing.query).toContain('where tostring(customDimensions.functionName) in ("reconciler", "reconcile-workspace") and tostring(customDimensions.outcome) == "failed"');
    expect(alerts.find((a) => a.name === "api-5xx-rate")!.query).toContain('traces | where message == "request" | summarize total = count(), failed = countif(toint(customDimensions.status) >= 500)');
  });

  it("fire when the reconciler timer or the outbox sweep has written nothing for the silence period, and not before either ever ran", () => {
    const silence = Number(/^param silenceMinutes int = (\d+)$/m.exec(operationsAlerts)![1]);
    expect(silence).toBe(15);
    for (const [name, message] of [
      ["reconciler-silent", "reconciler pass enqueued"],
      ["outbox-sweep-silent", "outbox swept"],
    ] as const) {
      const alert = alerts.find((a) => a.name === name)!;
      expect(alert.query, name).toBe(`traces | where message == "${message}" | summarize lastSeen = max(timestamp) | where lastSeen < ago(\${silenceMinutes}m)`);
      // Two days of history: a last record older than the period is silence; none at all (no code yet) is not.
      expect(alert.windowSize, name).toBe("P2D");
      expect(alert.threshold, name).toBe("0");
    }
    expect(operationsAlerts).toMatch(/windowSize: alert\.\?windowSize \?\? 'PT15M'/);
    expect(operationsAlerts).toMatch(/evaluationFrequency: 'PT15M'/);
    expect(operationsAlerts).toMatch(/timeAggregation: 'Count'\s+operator: 'GreaterThan'\s+threshold: alert\.threshold/);
  });

  it("fire on the health endpoint's failed store or queue checks, which its availability test does not see (200 degraded)", () => {
    const alert = alerts.find((a) => a.name === "health-dependency-failing")!;
    expect(alert.query).toBe('traces | where message == "health dependency check failed"');
    // More than one slow read: at least three reports in 15 minutes, against the availability test's five calls.
    expect(alert.threshold).toBe("2");
    expect(alert.severity).toBe("1");
    // The endpoint is liveness: a failed check is 200 with status degraded, so the availability test's
    // alert is about the app, not its dependencies, and says so.
    const route = read("shared/api/meta/meta-routes.ts");
    expect(route).toContain('services.logger.warn("health dependency check failed"');
    expect(route).toContain('status: failed.length === 0 ? ("ok" as const) : ("degraded" as const)');
    const healthFailing = alertsModule.slice(alertsModule.indexOf("resource healthFailing"));
    expect(healthFailing).toMatch(/description: '[^']*does not fail it[^']*health-dependency-failing/);
    expect(alertsModule).toMatch(/ExpectedHttpStatusCode: 200/);
    // The OpenAPI document says the same: one status, 200, whichever the checks' outcome.
    expect(read("shared/api/meta/health.ts")).toContain("The HTTP status is 200 either way.");
  });

  it("go to the action group of the alerts module", () => {
    expect(operationsAlerts).toMatch(/actionGroups: \[\s*actionGroupId\s*\]/);
    expect(operationsAlerts).toMatch(/scopes: \[\s*appInsights\.id\s*\]/);
    expect(resources).toMatch(
      /module operationsAlerts 'modules\/operations-alerts\.bicep' = \{\s*name: 'operations-alerts'\s*params: \{[^}]*actionGroupId: alerts\.outputs\.actionGroupId[^}]*appInsightsName: appInsights\.outputs\.name[^}]*serviceBusNamespaceName: serviceBus\.outputs\.name/,
    );
    expect(alertsModule).toMatch(/^output actionGroupId string = actionGroup\.id$/m);
  });
});

describe("metric alerts", () => {
  it("watch each queue's ready and scheduled messages, per queue by EntityName, at an aggregation the metric has", () => {
    const backlog = bicepObjects(operationsAlerts, "var backlogAlerts =");
    expect(backlog.map((a) => a.metricName).sort()).toEqual(["ActiveMessages", "ScheduledMessages"]);
    for (const alert of backlog) expect(platformMetrics["Microsoft.ServiceBus/namespaces"]![alert.metricName!], alert.metricName).toBeDefined();
    const criterion = operationsAlerts.slice(operationsAlerts.indexOf("resource backlogAlertRules"));
    expect(criterion).toMatch(/metricNamespace: 'Microsoft\.ServiceBus\/namespaces'\s+metricName: alert\.metricName/);
    expect(criterion).toMatch(/dimensions: \[\s*\{\s*name: 'EntityName'\s*operator: 'Include'\s*values: \[\s*'\*'\s*\]/);
    expect(criterion).toMatch(/timeAggregation: 'Minimum'/);
    expect(criterion).toMatch(/scopes: \[\s*serviceBus\.id\s*\]/);
    expect(criterion).toMatch(/actionGroupId: actionGroupId/);
  });

  it("of the alerts module name metrics, dimensions and aggregations Azure Monitor has", () => {
    const criteria = [...alertsModule.matchAll(/metricNamespace: '([^']+)'\s+metricName: '([^']+)'([\s\S]*?)timeAggregation: '(\w+)'/g)];
    expect(criteria.length).toBeGreaterThanOrEqual(2);
    for (const [, namespace, metric, body, aggregation] of criteria) {
      const spec = platformMetrics[namespace!]?.[metric!];
      expect(spec, `${namespace} ${metric}`).toBeDefined();
      expect(spec!.aggregations, metric).toContain(aggregation);
      for (const [, dimension] of body!.matchAll(/name: '(\w+)'\s+operator: 'Include'/g)) expect(spec!.dimensions, metric).toContain(dimension);
    }
  });
});

describe("the operations workbook", () => {
  it("is deployed by resources.bicep from infra/workbook.json, every token in it replaced with the resource it stands for", () => {
    expect(workbook.version).toBe("Notebook/1.0");
    expect(workbookModule).toContain("loadTextContent('../workbook.json')");
    // loadTextContent reads at most 131,072 characters.
    expect(workbookJson.length).toBeLessThan(131_072);
    const tokens = new Set(workbookJson.match(/__[A-Z_]+__/g));
    // replace(<content>, '__TOKEN__', <expression>): a name, a call without arguments, properties of either.
    const replaced = new Map([...workbookModule.matchAll(/'(__[A-Z_]+__)',\s*([A-Za-z_]\w*(?:\(\))?(?:\.[A-Za-z_]\w*)*)\s*\)/g)].map((m) => [m[1]!, m[2]!]));
    expect([...tokens].sort()).toEqual([...replaced.keys()].sort());
    expect(Object.fromEntries(replaced)).toEqual({
      __APP_INSIGHTS__: "appInsights.id",
      __LOG_ANALYTICS__: "logAnalyticsWorkspaceId",
      __SERVICE_BUS__: "serviceBus.id",
      __COSMOS__: "cosmos.id",
      __SUBSCRIPTION__: "subscription().id",
      __RESOURCE_GROUP__: "resourceGroup().name",
    });
    expect(workbookModule).toMatch(/resource workbook 'Microsoft\.Insights\/workbooks@[\w-]+' = \{[\s\S]*kind: 'shared'[\s\S]*category: 'workbook'[\s\S]*sourceId: appInsights\.id[\s\S]*serializedData: content/);
    expect(workbookModule).toMatch(/name: guid\(resourceGroup\(\)\.id, 'secops-operations-workbook'\)/);
    expect(resources).toMatch(
      /module workbook 'modules\/workbook\.bicep' = \{\s*name: 'workbook'\s*params: \{[^}]*appInsightsName: appInsights\.outputs\.name[^}]*logAnalyticsWorkspaceId: logAnalytics\.outputs\.resourceId[^}]*serviceBusNamespaceName: serviceBus\.outputs\.name[^}]*cosmosAccountName: cosmos\.outputs\.name/,
    );
    const names = workbookItems(workbook.items).map((i) => i.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("queries Application Insights for the service's records only by names the code emits", () => {
    const onComponent = kqlItems.filter((i) => i.content.resourceType === "microsoft.insights/components");
    expect(onComponent.length).toBeGreaterThan(10);
    for (const item of onComponent) {
      expect(item.content.crossComponentResources, item.name).toEqual(["__APP_INSIGHTS__"]);
      expect(item.content.queryType, item.name).toBe(0);
      expect(queryProblems(item.content.query as string, appInsightsNames()), `${item.name}: ${item.content.query}`).toEqual([]);
    }
  });

  it("reads per-partition RU from the Cosmos DB diagnostic table the templates send to the same workspace", () => {
    const onWorkspace = kqlItems.filter((i) => i.content.resourceType === "microsoft.operationalinsights/workspaces");
    expect(onWorkspace.length).toBeGreaterThan(0);
    for (const item of onWorkspace) {
      expect(item.content.crossComponentResources, item.name).toEqual(["__LOG_ANALYTICS__"]);
      expect(queryProblems(item.content.query as string, { tables: cosmosPartitionTable, capitalisedColumns: true }), `${item.name}: ${item.content.query}`).toEqual([]);
    }
    // Resource-specific ("Dedicated") mode is what makes the category its own CDB… table.
    const cosmosModule = stripBicepComments(read("infra/modules/cosmos.bicep"));
    expect(cosmosModule).toMatch(/logAnalyticsDestinationType: 'Dedicated'/);
    expect(cosmosModule).toMatch(/category: 'PartitionKeyRUConsumption'\s+enabled: true/);
    expect(resources).toMatch(/module cosmos 'modules\/cosmos\.bicep' = \{[\s\S]*?logAnalyticsWorkspaceId: logAnalytics\.outputs\.resourceId/);
  });

  it("charts Service Bus and Cosmos DB metrics by their documented names, aggregations and dimensions", () => {
    expect(metricItems.length).toBeGreaterThanOrEqual(6);
    for (const item of metricItems) {
      const content = item.content as { resourceType: string; resourceIds: string[]; metrics: { namespace: string; metric: string; aggregation: number; splitBy?: string }[]; filters?: { key: string; values?: string[] }[] };
      const [resourceType, spec] = Object.entries(workbookMetricIds).find(([, s]) => s.namespace === content.resourceType) ?? [];
      expect(resourceType, `${item.name}: ${content.resourceType}`).toBeDefined();
      expect(content.resourceIds, item.name).toEqual([resourceType === "Microsoft.ServiceBus/namespaces" ? "__SERVICE_BUS__" : "__COSMOS__"]);
      for (const m of content.metrics) {
        expect(m.namespace, item.name).toBe(spec!.namespace);
        expect(m.metric.startsWith(spec!.prefix), `${item.name}: ${m.metric}`).toBe(true);
        const documented = platformMetrics[resourceType!]![m.metric.slice(spec!.prefix.length)];
        expect(documented, `${item.name}: ${m.metric}`).toBeDefined();
        expect(documented!.aggregations, `${item.name}: aggregation ${m.aggregation}`).toContain(workbookAggregations[m.aggregation]);
        if (m.splitBy) expect(documented!.dimensions, item.name).toContain(m.splitBy);
        for (const filter of content.filters ?? []) expect(documented!.dimensions, item.name).toContain(filter.key);
      }
    }
  });

  it("shows every queue's active, scheduled and dead-lettered counts, per queue", () => {
    const queueMetrics = metricItems.flatMap((i) => (i.content.metrics as { metric: string; splitBy?: string }[]).filter((m) => m.metric.startsWith("microsoft.servicebus/")));
    for (const metric of ["ActiveMessages", "ScheduledMessages", "DeadletteredMessages"]) {
      expect(queueMetrics, metric).toContainEqual(expect.objectContaining({ metric: `microsoft.servicebus/namespaces--${metric}`, splitBy: "EntityName" }));
    }
    // EntityName is the queue: the namespace holds exactly the code's queues (test/unit/infra.test.ts).
    expect(stripBicepComments(read("infra/modules/service-bus.bicep"))).toMatch(/resource \w+ 'Microsoft\.ServiceBus\/namespaces\/queues@[\w-]+' = \[\s*for \w+ in queueNames:/);
    expect(Object.values(queueNames).length).toBe(4);
  });

  it("shows the reconciler's lag and failures, webhook delivery outcomes and auto-disables, the outbox backlog and each function's executions and failures", () => {
    const queries = kqlItems.map((i) => i.content.query as string);
    const reading = (message: string, ...fields: string[]) =>
      queries.some((q) => queryReferences(q).messages.some((m) => m.value === message) && fields.every((f) => queryReferences(q).fields.includes(f)));
    expect(reading("reconciled workspace", "lagMs")).toBe(true);
    expect(reading("reconciled workspace", "outcome", "workspaceId")).toBe(true);
    expect(reading("webhook delivery attempt", "outcome")).toBe(true);
    expect(reading("webhook delivery attempt", "outcome", "webhookId")).toBe(true);
    expect(reading("webhook auto-disabled", "webhookId")).toBe(true);
    expect(reading("outbox swept", "waiting")).toBe(true);
    expect(reading("function invocation", "functionName", "outcome")).toBe(true);
    expect(reading("request", "status")).toBe(true);
  });

  it("shows Cosmos DB RU and 429s per container and RU per partition", () => {
    const cosmosMetrics = metricItems.flatMap((i) => (i.content.metrics as { metric: string; splitBy?: string }[]).map((m) => ({ ...m, filters: i.content.filters })));
    expect(cosmosMetrics).toContainEqual(
      expect.objectContaining({ metric: "microsoft.documentdb/databaseaccounts-Requests-TotalRequests", splitBy: "CollectionName", filters: [expect.objectContaining({ key: "StatusCode", operator: 0, values: ["429"] })] }),
    );
    expect(cosmosMetrics).toContainEqual(expect.objectContaining({ metric: "microsoft.documentdb/databaseaccounts-Requests-TotalRequestUnits", splitBy: "CollectionName" }));
    expect(cosmosMetrics).toContainEqual(expect.objectContaining({ metric: "microsoft.documentdb/databaseaccounts-Requests-TotalRequestUnits", splitBy: "OperationType" }));
    // A serverless account has no provisioned throughput to normalize against: that metric stays empty.
    expect(cosmosMetrics.map((m) => m.metric)).not.toContain("microsoft.documentdb/databaseaccounts-Requests-NormalizedRUConsumption");
    expect(readFileSync(path.join(repoDir, "infra/modules/cosmos.bicep"), "utf8")).toContain("name: 'EnableServerless'");
    const partitionQueries = kqlItems.filter((i) => queryReferences(i.content.query as string).tables.includes("CDBPartitionKeyRUConsumption"));
    expect(partitionQueries.some((i) => /\bPartitionKey\b/.test(i.content.query as string))).toBe(true);
    // CollectionName is a container: the containers of the code.
    expect(Object.keys(containers).length).toBeGreaterThan(5);
  });

  it("lists the alerts firing now from Azure Resource Graph, for this resource group", () => {
    const arg = kqlItems.filter((i) => i.content.resourceType === "microsoft.resourcegraph/resources");
    expect(arg).toHaveLength(1);
    const { query, queryType, crossComponentResources } = arg[0]!.content as { query: string; queryType: number; crossComponentResources: string[] };
    expect(queryType).toBe(1);
    expect(crossComponentResources).toEqual(["__SUBSCRIPTION__"]);
    expect(queryReferences(query).tables).toEqual(["alertsmanagementresources"]);
    expect(query).toContain("| where type =~ 'microsoft.alertsmanagement/alerts'");
    expect(query).toContain("| where tostring(properties.essentials.targetResourceGroup) =~ '__RESOURCE_GROUP__'");
    expect(query).toContain("| where tostring(properties.essentials.monitorCondition) == 'Fired'");
    for (const [, field] of query.matchAll(/properties\.essentials\.(\w+)/g)) expect(alertEssentials, field).toContain(field);
  });
});

describe("the query pack", () => {
  const guide = read("docs/operating.md");
  const block = /```kusto\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf("**Read the telemetry.**")))![1]!;
  const guideQueries = block
    .split("\n")
    .filter((l) => l.trim() !== "")
    .reduce<{ displayName: string; body: string }[]>((out, line) => (line.startsWith("// ") ? [...out, { displayName: line.slice(3), body: "" }] : (out.at(-1)!.body += line, out)), []);

  it("holds the operating guide's queries, each under its comment", () => {
    expect(queryPack).toEqual(guideQueries);
    expect(new Set(queryPack.map((q) => q.displayName)).size).toBe(queryPack.length);
  });

  it("names only what the code emits", () => {
    for (const query of queryPack) expect(queryProblems(query.body, appInsightsNames()), `${query.displayName}: ${query.body}`).toEqual([]);
  });

  it("is deployed by resources.bicep, one query per entry, for the Application Insights component", () => {
    expect(queryPackModule).toContain("loadJsonContent('../query-pack.json')");
    expect(queryPackModule).toMatch(/resource packQueries 'Microsoft\.OperationalInsights\/queryPacks\/queries@[\w-]+' = \[\s*for query in queries: \{/);
    expect(queryPackModule).toMatch(/name: guid\(queryPack\.id, query\.displayName\)/);
    expect(queryPackModule).toMatch(/body: query\.body/);
    expect(queryPackModule).toMatch(/resourceTypes: \[\s*'microsoft\.insights\/components'\s*\]/);
    expect(resources).toMatch(/module queryPack 'modules\/query-pack\.bicep' = \{\s*name: 'query-pack'\s*params: \{[^}]*queryPackName: 'pack-\$\{resourceToken\}'/);
  });
});

describe("the query check itself", () => {
  const catalogue: LogCatalogue = new Map([
    ["reconciled workspace", { message: "reconciled workspace", fields: new Map<string, Set<string> | undefined>([["outcome", new Set(["done", "failed"])], ["lagMs", undefined]]), sites: [] }],
    ["request", { message: "request", fields: new Map<string, Set<string> | undefined>([["status", undefined]]), sites: [] }],
  ]);
  const names: QueryNames = { tables: classicTables, foreignColumns, logs: catalogue, fieldValues: { functionName: ["reconciler"] } };

  it("passes a query that names what is written", () => {
    expect(queryProblems('traces | where message == "reconciled workspace" | where tostring(customDimensions.outcome) == "failed" | summarize max(todouble(customDimensions.lagMs)) by bin(timestamp, 5m)', names)).toEqual([]);
  });

  it("finds a renamed message, a field not written with the message, a value the field never takes, a foreign column and a table nobody writes", () => {
    expect(queryProblems('traces | where message == "reconciled a workspace"', names)).toEqual(['message "reconciled a workspace" (==) is not one the code writes']);
    expect(queryProblems('traces | where message == "request" | where customDimensions.lagMs > 0', names)).toEqual(['field customDimensions.lagMs is not written with "request"']);
    expect(queryProblems('traces | where message == "reconciled workspace" | where tostring(customDimensions.outcome) == "Failed"', names)).toEqual([
      'customDimensions.outcome is never "Failed" (it is "done", "failed")',
    ]);
    expect(queryProblems('traces | where message in ("request") | where url has "/health"', names)).toEqual(["column url is not a column of traces"]);
    expect(queryProblems("requests | where success == false", names)).toEqual(["table requests is not one the service emits"]);
    expect(queryProblems('traces | where tostring(customDimensions.functionName) == "reconcile"', names)).toEqual(['field customDimensions.functionName is not written with any message', 'customDimensions.functionName is never "reconcile"']);
    expect(queryProblems("dependencies | summarize count() by target, name, resultCode", names)).toEqual([]);
  });

  it("reads unions, lists, aliases and comments", () => {
    const refs = queryReferences('union (traces | where message in ("a", "b") // the two\n), (dependencies | where type == "x") | extend total = count_ | where customDimensions["c"] == \'v\'');
    expect(refs.tables).toEqual(["traces", "dependencies"]);
    expect(refs.messages).toEqual([{ op: "in", value: "a" }, { op: "in", value: "b" }]);
    expect(refs.fields).toEqual(["c"]);
    expect(refs.aliases).toContain("total");
  });

  it("collects a message, its fields and their literal values from code, through the compiler", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "log-catalogue-"));
    try {
      const file = path.join(dir, "sample.ts");
      writeFileSync(
        file,
        [
          'type Outcome = "done" | "failed";',
          "interface Result { workspaceId: string; outcome: Outcome }",
          "declare const services: { logger: { info(message: string, fields?: Record<string, unknown>): void } };",
          "declare const result: Result;",
          'services.logger.info("reconciled workspace", { ...result, lagMs: 5 });',
          'services.logger.info(String("built at run time"));',
        ].join("\n"),
      );
      const { records, dynamic } = logCatalogue(dir, [file]);
      expect([...records.keys()]).toEqual(["reconciled workspace"]);
      expect(Object.fromEntries([...records.get("reconciled workspace")!.fields].map(([k, v]) => [k, v && [...v]]))).toEqual({ workspaceId: undefined, outcome: ["done", "failed"], lagMs: undefined });
      expect(dynamic).toEqual(["sample.ts:6"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------
// Reading Bicep
// ---------------------------------------------------------------------------------------------------

/** The objects of the array literal after `marker`, each as its `key: 'string'` and `key: value` lines. */
function bicepObjects(text: string, marker: string): Record<string, string>[] {
  const start = text.indexOf(marker);
  if (start < 0) throw new Error(`${marker} not found`);
  const body = text.slice(start, text.indexOf("\n]", start));
  return body
    .split(/\n {2}\{\n/)
    .slice(1)
    .map((chunk) => {
      const entry: Record<string, string> = {};
      for (const [, key, quoted, plain] of chunk.matchAll(/^\s{4}(\w+): (?:'((?:[^'\\]|\\.)*)'|([^\n]+))$/gm)) {
        entry[key!] = quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : plain!.trim();
      }
      return entry;
    });
}

/** `${param}` interpolations replaced by the parameters' defaults, as a deployment without overrides has them. */
function substituteParams(value: string, template: string): string {
  return value.replace(/\$\{(\w+)\}/g, (_m, name: string) => {
    const param = new RegExp(`^param ${name} \\w+ = (.+)$`, "m").exec(template);
    if (!param) throw new Error(`no default for ${name}`);
    return param[1]!.replace(/^'|'$/g, "");
  });
}

/** Removes `//` and `/* *\/` comments, leaving strings (which may hold `//`, as URLs do) alone. */
function stripBicepComments(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; ) {
    if (source[i] === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== "'") j += source[j] === "\\" ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else if (source.startsWith("//", i)) {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (source.startsWith("/*", i)) {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else out += source[i++];
  }
  return out;
}
