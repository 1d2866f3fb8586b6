import { ApiError } from "../../platform/errors/api-error";
import type { Source } from "../../model/sources";

/**
 * The port to a workspace's log analytics: its data connectors and their health (Microsoft Sentinel
 * `dataConnectors` and the SentinelHealth table), hourly ingestion volumes (the Log Analytics `Usage`
 * table) and the table list the KQL tool offers. Adapters: simulated (local default) and Azure
 * (Resource Manager plus Azure Monitor Logs). Every method fails only with an ApiError.
 */
export interface LogAnalytics {
  /** False when the deployment has no Log Analytics workspace behind this workspace: calls answer EXTENSION_NOT_ENABLED. */
  isEnabled(workspaceId: string): boolean;
  listDataConnectors(workspaceId: string, signal?: AbortSignal): Promise<DataConnector[]>;
  /** Hourly volumes per table in [from, to), hours aligned to UTC; missing hours are zero. */
  ingestionVolumes(query: IngestionQuery, signal?: AbortSignal): Promise<IngestionSeries[]>;
  /**
   * The workspace's tables for the KQL tool. A workspace that cannot be read (missing, access refused)
   * answers `success: false` with a readable summary; transient failures (RATE_LIMITED, TIMEOUT,
   * UPSTREAM_ERROR for 5xx) are thrown, so that the caller retries.
   */
  listTables(workspaceId: string, signal?: AbortSignal): Promise<TableList>;
}

export const connectorStates = ["Connected", "Disconnected"] as const;
export type ConnectorState = (typeof connectorStates)[number];

/** SentinelHealth's statuses, plus Unknown when no health record exists for the connector. */
export const connectorHealthStatuses = ["Healthy", "Degraded", "Unhealthy", "Unknown"] as const;
export type ConnectorHealthStatus = (typeof connectorHealthStatuses)[number];

export interface DataConnector {
  id: string;
  name: string;
  /** Sentinel's connector kind: "AzureActiveDirectory", "MicrosoftThreatProtection", "AmazonWebServicesS3", … */
  kind: string;
  /** The incident source this connector's data feeds; null when the deployment maps none. */
  source: Source | null;
  state: ConnectorState;
  /** The connector's data types as Sentinel names them ("alerts", "logs", "exchange", …). */
  dataTypes: string[];
  /** The Log Analytics tables it writes. */
  tables: string[];
  /** The newest record in any of its tables; null when none within the look-back. */
  lastLogReceivedAt: string | null;
  health: ConnectorHealth;
}

export interface ConnectorHealth {
  status: ConnectorHealthStatus;
  /** Why, when not Healthy: SentinelHealth's reason, or the service's own finding (stale data). */
  reason: string | null;
  /** When the status was last established. */
  checkedAt: string | null;
}

export interface IngestionQuery {
  workspaceId: string;
  /** Hour-aligned inclusive start. */
  from: string;
  /** Hour-aligned exclusive end. */
  to: string;
  /** Ingestion delay (p50, seconds) per hour, for hours at or after this time; omitted: no latency. */
  latencyFrom?: string;
}

export interface IngestionSeries {
  table: string;
  /** The connector writing the table; null when several do (SecurityAlert) or none is known. */
  connectorId: string | null;
  source: Source | null;
  /** One point per hour of the query, oldest first. */
  points: IngestionPoint[];
}

export interface IngestionPoint {
  /** Start of the hour. */
  start: string;
  /** Ingested megabytes (the Usage table's unit). */
  volumeMb: number;
  /** Median seconds between TimeGenerated and ingestion, when measured for this hour. */
  latencySeconds: number | null;
}

/** docs/contract.md §2.12's query-tool table list. */
export interface TableList {
  success: boolean;
  summary: string;
  tables: string[];
}

/** Log analytics with no workspace configured: every call is 400 EXTENSION_NOT_ENABLED naming the integration. */
export function disabledLogAnalytics(): LogAnalytics {
  const refuse = async (): Promise<never> => {
    throw logAnalyticsNotEnabled();
  };
  return { isEnabled: () => false, listDataConnectors: refuse, ingestionVolumes: refuse, listTables: refuse };
}

export function logAnalyticsNotEnabled(workspaceId?: string): ApiError {
  const where = workspaceId === undefined ? "this deployment" : `workspace ${workspaceId}`;
  return new ApiError("EXTENSION_NOT_ENABLED", `The log analytics integration is not enabled for ${where}.`, { target: "logAnalytics" });
}

export const HOUR_MS = 3_600_000;

/** The checks every adapter makes on an ingestion query: hour-aligned, ordered, at most 31 days. */
export function checkIngestionQuery(query: IngestionQuery): { from: number; to: number; latencyFrom: number | undefined } {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const latencyFrom = query.latencyFrom === undefined ? undefined : Date.parse(query.latencyFrom);
  const problems: Record<string, string[]> = {};
  if (Number.isNaN(from) || from % HOUR_MS !== 0) problems.from = ["Must be a timestamp on a whole UTC hour."];
  if (Number.isNaN(to) || to % HOUR_MS !== 0) problems.to = ["Must be a timestamp on a whole UTC hour."];
  else if (!problems.from && (to <= from || to - from > 31 * 24 * HOUR_MS)) problems.to = ["Must be after from, at most 31 days later."];
  if (latencyFrom !== undefined && Number.isNaN(latencyFrom)) problems.latencyFrom = ["Must be a timestamp."];
  const fields = Object.keys(problems);
  if (fields.length > 0) throw new ApiError("VALIDATION_ERROR", "The ingestion query is invalid.", { target: fields[0], errors: problems });
  return { from, to, latencyFrom };
}
