import { z } from "zod";
import { EXAMPLE_SECOND_WORKSPACE_ID, EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";
import { anomalyKinds, anomalySeverities, suspectedCauseCodes } from "../../domain/datasources/ingestion-anomalies";
import { connectorHealthStatuses, connectorStates } from "../../systems/log-analytics/port";
import { sourceSchema, sources } from "../../model/sources";

const timestamp = z.string().describe("UTC ISO 8601 timestamp.");
// The default DEMO_SEED's fabrikam-sentinel-prod and contoso-soc-internal workspaces.
const EXAMPLE_WORKSPACES = [EXAMPLE_WORKSPACE_ID, EXAMPLE_SECOND_WORKSPACE_ID];

export const workspaceParams = z.object({ workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }) }).strict();

export const dataConnectorView = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.string().describe("Microsoft Sentinel's connector kind: `AzureActiveDirectory`, `MicrosoftThreatProtection`, `AmazonWebServicesS3`, …"),
    source: z.enum(sources).nullable().describe("The incident source this connector's data feeds; null when none is mapped."),
    state: z.enum(connectorStates),
    dataTypes: z.array(z.string()).describe("The connector's data types as Sentinel names them (`alerts`, `logs`, `exchange`, …)."),
    tables: z.array(z.string()).describe("The Log Analytics tables it writes."),
    lastLogReceivedAt: timestamp.nullable().describe("The newest record in any of its tables (14 days look-back); null when none."),
    health: z.object({
      status: z.enum(connectorHealthStatuses),
      reason: z.string().nullable().describe("Why, when not Healthy: SentinelHealth's reason, or the service's own finding (no data for 24 hours)."),
      checkedAt: timestamp.nullable(),
    }),
  })
  .describe("A data connector of the workspace.");

const workspaceIdsParam = z
  .union([z.guid(), z.array(z.guid()).max(100)])
  .optional()
  .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]))
  .describe("Repeat the parameter once per workspace (`?workspaceIds=…&workspaceIds=…`). Only workspaces mapped to the credential count; none: every mapped workspace.")
  .meta({ examples: [EXAMPLE_WORKSPACES] });

export const summaryQuery = z.object({ workspaceIds: workspaceIdsParam }).strict();

export const dataSourceSummary = z
  .object({
    workspaces: z.array(z.string()).describe("The workspaces the summary covers: mapped, requested (or all), with log analytics enabled, and read for this answer (those that could not be are in `meta.unavailable`)."),
    sources: z.array(
      z.object({
        workspaceId: z.string(),
        workspaceName: z.string(),
        tenantId: z.string(),
        source: z.string().describe("The incident source the connectors feed."),
        dataConnectorCount: z.number().int().describe("Connectors of the workspace feeding that source."),
      }),
    ),
  })
  .describe("Data-source summary.");

export const MAX_ANOMALY_WINDOW_DAYS = 7;
/** How far back a window may start: the baseline needs seven more days, and ingestion queries reach 31. */
export const MAX_ANOMALY_LOOKBACK_DAYS = 23;

export const anomalyQueryBody = z
  .object({
    workspaceIds: z.array(z.guid()).max(100).optional().describe("Only these workspaces (mapped to the credential); absent or empty: every mapped workspace."),
    sources: z.array(sourceSchema(sources)).max(7).optional().describe("Only connectors feeding these sources."),
    kinds: z.array(z.enum(anomalyKinds)).max(4).optional(),
    severities: z.array(z.enum(anomalySeverities)).max(3).optional(),
    tables: z.array(z.string().trim().min(1).max(200)).max(50).optional().describe("Only these Log Analytics tables (exact, case-insensitive)."),
    connectorIds: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
    window: z
      .object({ start: z.iso.datetime({ offset: true }), end: z.iso.datetime({ offset: true }) })
      .strict()
      .optional()
      .describe(
        `The hours to judge, widened to whole UTC hours; at most ${MAX_ANOMALY_WINDOW_DAYS} days, starting within the last ${MAX_ANOMALY_LOOKBACK_DAYS} days. Default: the last 24 hours. Fixed at the first page.`,
      ),
    ongoingOnly: z.boolean().default(false).describe("Only anomalies still going on at the end of the window."),
    pageSize: z.number().int().min(1).max(200).default(50),
    continuationToken: z.string().min(1).max(4096).optional().describe("The previous page's `pagination.continuationToken`, with the same filters."),
  })
  .strict()
  .describe("Which anomalies to find. Every filter is optional; filters combine with AND, values within one filter with OR.")
  .meta({ examples: [{ sources: ["SourceA"], kinds: ["NoData", "VolumeDrop"], severities: ["High", "Medium"], pageSize: 20 }] });

const anomalyView = z.object({
  id: z.string().describe("Stable for the same workspace, table, connector, kind and start: a re-run finds the same id."),
  workspaceId: z.string(),
  workspaceName: z.string(),
  connectorId: z.string().nullable().describe("Null for a table several connectors write (SecurityAlert)."),
  connectorName: z.string().nullable(),
  source: z.enum(sources).nullable(),
  table: z.string(),
  kind: z.enum(anomalyKinds),
  window: z.object({ start: timestamp, end: timestamp }).describe("The anomalous hours [start, end)."),
  ongoing: z.boolean().describe("Still going on in the last judged hour."),
  expected: z.object({ p10: z.number(), p50: z.number(), p90: z.number() }).describe("The baseline over the window (MB; for Latency, seconds)."),
  observed: z.number().describe("MB over the window; for Latency the worst hour's median delay in seconds."),
  unit: z.enum(["MB", "seconds"]),
  deviationPct: z.number().nullable().describe("(observed − p50) / p50 in percent; null when p50 is 0."),
  severity: z.enum(anomalySeverities),
  suspectedCause: z.object({ code: z.enum(suspectedCauseCodes), description: z.string() }),
  baselineSamples: z.number().int().describe("Samples behind the first hour's baseline (at most 7; 24 for Latency)."),
});

export const anomalyResult = z
  .object({
    window: z.object({ start: timestamp, end: timestamp }).describe("The window judged (whole hours; hours that ended less than an hour ago are not judged yet)."),
    workspaces: z.array(z.string()).describe("The workspaces judged (those that could not be read are in `meta.unavailable`)."),
    anomalies: z.array(anomalyView).describe("Most severe first, then newest first."),
  })
  .describe("Ingestion anomalies: per table and connector, against the same hour of the previous seven days.");
