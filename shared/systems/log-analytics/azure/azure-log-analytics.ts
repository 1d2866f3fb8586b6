import type { TokenCredential } from "@azure/identity";
import type { OperationalInsightsManagementClient } from "@azure/arm-operationalinsights";
import type { LogsQueryClient, LogsQueryResult, LogsTable } from "@azure/monitor-query-logs";
import { z } from "zod";
import { ApiError } from "../../../platform/errors/api-error";
import type { Source } from "../../../model/sources";
import { bearerAuthorization, lazyDefaultAzureCredential } from "../../../platform/upstream/azure-credential";
import { createJsonHttpClient, type JsonCall } from "../../../platform/upstream/json-http-client";
import { sdkCall, sdkErrorStatus } from "../../../platform/upstream/sdk-call";
import { connectorTables, TABLE_NAME, type ConnectorProperties } from "../connector-tables";
import {
  checkIngestionQuery,
  HOUR_MS,
  logAnalyticsNotEnabled,
  type ConnectorHealth,
  type DataConnector,
  type IngestionPoint,
  type IngestionSeries,
  type LogAnalytics,
  type TableList,
} from "../port";

/**
 * Log analytics of Microsoft Sentinel workspaces in Azure, each service workspace mapped to its Log
 * Analytics workspace's resource id:
 * - connectors: Azure Resource Manager `Microsoft.SecurityInsights/dataConnectors` (no GA SDK exists,
 *   so the documented REST API through the shared JSON client), their health from the SentinelHealth
 *   table and the last record of each connector's tables, both through LogsQueryClient;
 * - volumes: the `Usage` table through LogsQueryClient, and ingestion delay from `ingestion_time()`;
 * - tables: `@azure/arm-operationalinsights` (tables of the workspace).
 * The SDKs are loaded when the first client is built. The identity needs Microsoft Sentinel Reader
 * (or Log Analytics Reader) on each workspace.
 */
export interface AzureLogAnalyticsOptions {
  /** Default: DefaultAzureCredential, loaded on the first token request. */
  credential?: TokenCredential;
  /** Service workspace id → Log Analytics workspace resource id. */
  workspaces: ReadonlyMap<string, string>;
  /** Connector kind or name → the source it feeds (a name wins over a kind). */
  connectorSources: Readonly<Record<string, Source>>;
  /** Default "https://management.azure.com". */
  armEndpoint?: string;
  /** Default "https://api.loganalytics.io/v1"; tokens are asked for `<its origin>/.default`. */
  logsEndpoint?: string;
  timeoutMs: number;
  /** Extra CA certificates to trust (tests' self-signed fakes). */
  tls?: { ca: string };
  now?: () => Date;
}

const ARM = "Azure Resource Manager";
const LOGS = "Azure Monitor Logs";
const SENTINEL_API_VERSION = "2024-09-01";
/** How far back "last log received" looks; older means null (and the connector is plainly silent). */
const LAST_LOG_LOOKBACK_DAYS = 14;
/** Delay is measured per record, which costs a scan: only for the last two days (what detection needs). */
const MAX_LATENCY_WINDOW_MS = 48 * HOUR_MS;

const RESOURCE_ID = /^\/subscriptions\/([0-9a-fA-F-]{36})\/resourceGroups\/([-\w._()]{1,90})\/providers\/Microsoft\.OperationalInsights\/workspaces\/([-\w]{4,63})$/i;

export function parseWorkspaceResourceId(resourceId: string): { subscriptionId: string; resourceGroup: string; workspaceName: string } | undefined {
  const match = RESOURCE_ID.exec(resourceId);
  return match ? { subscriptionId: match[1]!, resourceGroup: match[2]!, workspaceName: match[3]! } : undefined;
}

const armConnectorSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  kind: z.string().min(1),
  properties: z.looseObject({}).nullish(),
});
const armConnectorPageSchema = z.object({ value: z.array(armConnectorSchema), nextLink: z.string().nullish() });

interface ArmConnector {
  id: string;
  name: string;
  kind: string;
  dataTypes: string[];
  enabled: boolean;
  tables: string[];
}

export function createAzureLogAnalytics(options: AzureLogAnalyticsOptions): LogAnalytics {
  const now = options.now ?? (() => new Date());
  const armOrigin = new URL(options.armEndpoint ?? "https://management.azure.com").origin;
  const logsEndpoint = (options.logsEndpoint ?? "https://api.loganalytics.io/v1").replace(/\/+$/, "");
  const { timeoutMs } = options;
  const tlsOptions = options.tls ? { ca: options.tls.ca } : undefined;
  const credential = options.credential ?? lazyDefaultAzureCredential();
  let logsClient: LogsQueryClient | undefined;
  const armClients = new Map<string, OperationalInsightsManagementClient>();
  let jsonFetch: typeof fetch | undefined;

  function resourceOf(workspaceId: string): string {
    const resourceId = options.workspaces.get(workspaceId);
    if (!resourceId) throw logAnalyticsNotEnabled(workspaceId);
    return resourceId;
  }

  function logs(): LogsQueryClient {
    if (!logsClient) {
      const { LogsQueryClient } = require("@azure/monitor-query-logs") as typeof import("@azure/monitor-query-logs");
      // No retries: an upstream 429 reaches the caller with its Retry-After instead of the SDK sleeping.
      // Tokens for the endpoint's own audience: the SDK's default is the public cloud's.
      logsClient = new LogsQueryClient(credential, {
        endpoint: logsEndpoint,
        credentials: { scopes: [`${new URL(logsEndpoint).origin}/.default`] },
        retryOptions: { maxRetries: 0 },
        ...(tlsOptions && { tlsOptions }),
      });
    }
    return logsClient;
  }

  function arm(subscriptionId: string): OperationalInsightsManagementClient {
    let client = armClients.get(subscriptionId);
    if (!client) {
      const { OperationalInsightsManagementClient } = require("@azure/arm-operationalinsights") as typeof import("@azure/arm-operationalinsights");
      client = new OperationalInsightsManagementClient(credential, subscriptionId, {
        endpoint: armOrigin,
        credentialScopes: [`${armOrigin}/.default`],
        retryOptions: { maxRetries: 0 },
        ...(tlsOptions && { tlsOptions }),
      });
      armClients.set(subscriptionId, client);
    }
    return client;
  }

  /** fetch for the JSON client; with a test CA, through an undici agent that trusts it. */
  function fetchForJson(): typeof fetch | undefined {
    if (!options.tls) return undefined;
    if (!jsonFetch) {
      const { Agent, fetch: undiciFetch } = require("undici") as typeof import("undici");
      const dispatcher = new Agent({ connect: { ca: options.tls.ca } });
      jsonFetch = ((input: string, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
    }
    return jsonFetch;
  }

  async function query(resourceId: string, what: string, kql: string, timespan: { startTime: Date; endTime: Date }, signal?: AbortSignal): Promise<LogsTable> {
    const result: LogsQueryResult = await sdkCall({ system: LOGS, what, timeoutMs, signal, now }, (abortSignal) =>
      logs().queryResource(resourceId, kql, timespan, { abortSignal, serverTimeoutInSeconds: Math.max(1, Math.floor(timeoutMs / 1000)) }),
    );
    if (result.status !== "Success") {
      // A partial result would be read as "no data": silence that is not there.
      throw new ApiError("UPSTREAM_ERROR", `${LOGS} returned a partial result (${result.partialError.code}) while ${what}.`);
    }
    const table = result.tables[0];
    if (!table) throw new ApiError("UPSTREAM_ERROR", `${LOGS} returned no table while ${what}.`);
    return table;
  }

  async function armConnectors(workspaceId: string, resourceId: string, signal?: AbortSignal): Promise<ArmConnector[]> {
    const what = `listing the data connectors of workspace ${workspaceId}`;
    const authHeader = await bearerAuthorization(credential, { system: ARM, scope: `${armOrigin}/.default`, what, signal });
    const client = createJsonHttpClient({ system: ARM, baseUrl: armOrigin, authHeader, timeoutMs, fetch: fetchForJson(), now });
    const out: ArmConnector[] = [];
    let path: string | undefined = `${resourceId}/providers/Microsoft.SecurityInsights/dataConnectors?api-version=${SENTINEL_API_VERSION}`;
    for (let pages = 0; path !== undefined && pages < 20; pages++) {
      const call: JsonCall = { method: "GET", path, what };
      const page = await client.read(call, armConnectorPageSchema, signal);
      for (const item of page.value) {
        const properties = (item.properties ?? {}) as ConnectorProperties;
        const dataTypes = Object.keys(properties.dataTypes ?? {});
        const enabled = dataTypes.length === 0 || dataTypes.some((t) => properties.dataTypes?.[t]?.state?.toLowerCase() !== "disabled");
        out.push({ id: item.id, name: item.name, kind: item.kind, dataTypes, enabled, tables: connectorTables(item.kind, properties) });
      }
      const next = page.nextLink;
      if (next && !(next.startsWith(`${armOrigin}/`) && new URL(next).origin === armOrigin)) throw client.invalid(call, "nextLink points outside Azure Resource Manager");
      path = next ? next.slice(armOrigin.length) : undefined;
    }
    return out;
  }

  function sourceOf(connector: { name: string; kind: string }): Source | null {
    return options.connectorSources[connector.name] ?? options.connectorSources[connector.kind] ?? null;
  }

  async function healthByConnector(workspaceId: string, resourceId: string, signal?: AbortSignal): Promise<Map<string, ConnectorHealth>> {
    const end = now();
    const table = await query(
      resourceId,
      `reading the connector health of workspace ${workspaceId}`,
      `SentinelHealth
| where SentinelResourceType == "Data connector"
| summarize arg_max(TimeGenerated, Status, Description, Reason) by SentinelResourceId, SentinelResourceName
| project SentinelResourceId, SentinelResourceName, TimeGenerated, Status, Description, Reason`,
      { startTime: new Date(end.getTime() - 24 * HOUR_MS), endTime: end },
      signal,
    );
    const out = new Map<string, ConnectorHealth>();
    for (const row of rowsOf(table)) {
      const status = String(row.Status ?? "").toLowerCase().replace(/\s+/g, "");
      const health: ConnectorHealth = {
        status: status === "success" ? "Healthy" : status === "failure" ? "Unhealthy" : status === "partialsuccess" ? "Degraded" : "Unknown",
        reason: status === "success" ? null : textOf(row.Reason) ?? textOf(row.Description),
        checkedAt: instantOf(row.TimeGenerated),
      };
      for (const key of [row.SentinelResourceId, row.SentinelResourceName]) if (typeof key === "string" && key) out.set(key.toLowerCase(), health);
    }
    return out;
  }

  async function lastLogs(workspaceId: string, resourceId: string, tables: readonly string[], signal?: AbortSignal): Promise<Map<string, string>> {
    const safe = tables.filter((t) => TABLE_NAME.test(t));
    if (safe.length === 0) return new Map();
    const end = now();
    const table = await query(
      resourceId,
      `reading the last records of workspace ${workspaceId}`,
      `union withsource=TableName isfuzzy=true ${safe.join(", ")}
| summarize LastLog = max(TimeGenerated) by TableName`,
      { startTime: new Date(end.getTime() - LAST_LOG_LOOKBACK_DAYS * 24 * HOUR_MS), endTime: end },
      signal,
    );
    const out = new Map<string, string>();
    for (const row of rowsOf(table)) {
      const at = instantOf(row.LastLog);
      if (typeof row.TableName === "string" && at) out.set(row.TableName, at);
    }
    return out;
  }

  return {
    isEnabled: (workspaceId) => options.workspaces.has(workspaceId),

    async listDataConnectors(workspaceId, signal) {
      const resourceId = resourceOf(workspaceId);
      const connectors = await armConnectors(workspaceId, resourceId, signal);
      const [health, last] = await Promise.all([
        healthByConnector(workspaceId, resourceId, signal),
        lastLogs(workspaceId, resourceId, [...new Set(connectors.flatMap((c) => c.tables))].sort(), signal),
      ]);
      const stale = now().getTime() - 24 * HOUR_MS;
      return connectors.map((c): DataConnector => {
        const times = c.tables.map((t) => last.get(t)).filter((t): t is string => t !== undefined);
        const lastLogReceivedAt = times.length === 0 ? null : times.sort().at(-1)!;
        let connectorHealth = health.get(c.id.toLowerCase()) ?? health.get(c.name.toLowerCase());
        if (!connectorHealth) {
          // SentinelHealth covers only some connector kinds; silence for a day is a finding of its own.
          const silent = c.enabled && c.tables.length > 0 && (lastLogReceivedAt === null || Date.parse(lastLogReceivedAt) < stale);
          connectorHealth = silent
            ? { status: "Unhealthy", reason: `No data in ${c.tables.join(", ")} for more than 24 hours.`, checkedAt: now().toISOString() }
            : { status: "Unknown", reason: null, checkedAt: null };
        }
        return {
          id: c.id,
          name: c.name,
          kind: c.kind,
          source: sourceOf(c),
          state: c.enabled ? "Connected" : "Disconnected",
          dataTypes: c.dataTypes,
          tables: c.tables,
          lastLogReceivedAt,
          health: connectorHealth,
        };
      });
    },

    async ingestionVolumes(request, signal) {
      const resourceId = resourceOf(request.workspaceId);
      const { from, to, latencyFrom } = checkIngestionQuery(request);
      const usage = await query(
        resourceId,
        `reading the ingestion volumes of workspace ${request.workspaceId}`,
        `Usage
| where StartTime >= datetime(${new Date(from).toISOString()}) and StartTime < datetime(${new Date(to).toISOString()})
| summarize VolumeMb = sum(Quantity) by DataType, Hour = bin(StartTime, 1h)`,
        // Usage's TimeGenerated trails its StartTime: look a little past the window's end.
        { startTime: new Date(from), endTime: new Date(to + 2 * HOUR_MS) },
        signal,
      );
      const volumes = new Map<string, Map<number, number>>();
      for (const row of rowsOf(usage)) {
        const at = Date.parse(instantOf(row.Hour) ?? "");
        if (typeof row.DataType !== "string" || Number.isNaN(at)) continue;
        const byHour = volumes.get(row.DataType) ?? new Map<number, number>();
        byHour.set(at, (byHour.get(at) ?? 0) + Number(row.VolumeMb ?? 0));
        volumes.set(row.DataType, byHour);
      }
      const connectors = await armConnectors(request.workspaceId, resourceId, signal);
      for (const c of connectors) for (const t of c.tables) if (!volumes.has(t)) volumes.set(t, new Map());
      const delays = new Map<string, Map<number, number>>();
      // Hours at or after latencyFrom: one it falls inside is not measured, even in part.
      const latencyStart = latencyFrom === undefined ? undefined : Math.max(Math.ceil(latencyFrom / HOUR_MS) * HOUR_MS, to - MAX_LATENCY_WINDOW_MS, from);
      const tables = [...volumes.keys()].filter((t) => TABLE_NAME.test(t)).sort();
      if (latencyStart !== undefined && latencyStart < to && tables.length > 0) {
        const latency = await query(
          resourceId,
          `measuring the ingestion delay of workspace ${request.workspaceId}`,
          `union withsource=TableName isfuzzy=true ${tables.join(", ")}
| where TimeGenerated >= datetime(${new Date(latencyStart).toISOString()}) and TimeGenerated < datetime(${new Date(to).toISOString()})
| summarize LatencySeconds = percentile(datetime_diff('second', ingestion_time(), TimeGenerated), 50) by TableName, Hour = bin(TimeGenerated, 1h)`,
          { startTime: new Date(latencyStart), endTime: new Date(to + HOUR_MS) },
          signal,
        );
        for (const row of rowsOf(latency)) {
          const at = Date.parse(instantOf(row.Hour) ?? "");
          if (typeof row.TableName !== "string" || Number.isNaN(at)) continue;
          const byHour = delays.get(row.TableName) ?? new Map<number, number>();
          byHour.set(at, Number(row.LatencySeconds ?? 0));
          delays.set(row.TableName, byHour);
        }
      }
      return tables.map((table): IngestionSeries => {
        const writers = connectors.filter((c) => c.tables.includes(table));
        const writer = writers.length === 1 ? writers[0]! : undefined;
        const points: IngestionPoint[] = [];
        for (let at = from; at < to; at += HOUR_MS) {
          points.push({
            start: new Date(at).toISOString(),
            volumeMb: Math.round((volumes.get(table)?.get(at) ?? 0) * 1000) / 1000,
            latencySeconds: delays.get(table)?.get(at) ?? null,
          });
        }
        return { table, connectorId: writer?.id ?? null, source: writer ? sourceOf(writer) : null, points };
      });
    },

    async listTables(workspaceId, signal): Promise<TableList> {
      const resourceId = resourceOf(workspaceId);
      const parts = parseWorkspaceResourceId(resourceId);
      if (!parts) return { success: false, summary: `The workspace's resource id is not a Log Analytics workspace id.`, tables: [] };
      const refused = (status: number) =>
        status === 404
          ? `The Log Analytics workspace ${parts.workspaceName} was not found (it may have been deleted or moved).`
          : `The service is not allowed to read the Log Analytics workspace ${parts.workspaceName}: grant its identity Log Analytics Reader on it.`;
      return sdkCall({ system: ARM, what: `listing the tables of workspace ${workspaceId}`, timeoutMs, signal, now }, async (abortSignal) => {
        const names: string[] = [];
        try {
          for await (const table of arm(parts.subscriptionId).tables.listByWorkspace(parts.resourceGroup, parts.workspaceName, { abortSignal })) {
            if (table.name) names.push(table.name);
          }
        } catch (error) {
          const status = sdkErrorStatus(error);
          // The workspace cannot be read: an answer for the KQL tool, not an error (docs/contract.md §2.12).
          if (status === 401 || status === 403 || status === 404) return { success: false, summary: refused(status), tables: [] };
          throw error;
        }
        names.sort();
        return { success: true, summary: `${names.length} tables in the Log Analytics workspace ${parts.workspaceName}.`, tables: names };
      });
    },
  };
}

/** Rows as records keyed by column name. */
function rowsOf(table: LogsTable): Record<string, unknown>[] {
  const names = table.columnDescriptors.map((c) => c.name ?? "");
  return table.rows.map((row) => Object.fromEntries(names.map((name, i) => [name, row[i]])));
}

function instantOf(value: unknown): string | null {
  const date = value instanceof Date ? value : typeof value === "string" ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}

function textOf(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}
