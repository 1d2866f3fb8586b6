import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createSelfSignedCertificate } from "../../../scripts/webhook-receiver/self-signed-certificate";
import { isApiError } from "../../../shared/platform/errors/api-error";
import { HOUR_MS, type DataConnector, type IngestionSeries, type LogAnalytics } from "../../../shared/systems/log-analytics/port";
import type { RecordedRequest } from "../fake-http-server";
import { readBearer } from "./stub-credential";

/**
 * Log analytics served as Azure serves it, over HTTPS (the Azure SDKs send bearer tokens over TLS
 * only; the adapter trusts `certificate`):
 * - Azure Resource Manager: `<workspace>/providers/Microsoft.SecurityInsights/dataConnectors` (ARM's
 *   `value` + absolute `nextLink`, a few connectors a page) and `<workspace>/tables`;
 * - the Azure Monitor Logs query API: `POST /v1/<workspace>/query` with `{query, timespan}`, answered
 *   with `{tables: [{name, columns, rows}]}` for the queries the adapter sends (SentinelHealth, the
 *   last record of tables, the Usage table, ingestion delay); any other query is a 400, as a query
 *   the service cannot parse.
 * What it serves is read from the log analytics passed to `serve` (a simulated adapter): its
 * connectors as ARM resources of their kind, their health as SentinelHealth records, their hourly
 * volumes as Usage records and their delays as records' ingestion times. An hour without data has
 * no record, so no Usage row and no measurable delay. ARM and Logs errors use their own bodies.
 */
export interface LogAnalyticsWireServer {
  /** `https://127.0.0.1:<port>`: ARM's endpoint; the Logs endpoint is `<origin>/v1`. */
  origin: string;
  /** PEM of the server's self-signed certificate. */
  certificate: string;
  /** Every request since the last `serve`. */
  requests: RecordedRequest[];
  /** Serves `system`'s workspaces, each at its Log Analytics resource id (service workspace id → resource id). */
  serve(system: LogAnalytics, workspaces: ReadonlyMap<string, string>): void;
  close(): Promise<void>;
}

/** Connectors per ARM page: enough workspaces have more, so that paging is real. */
const ARM_PAGE_SIZE = 3;

/** The ARM resource id of one data connector of a workspace, named by the system's connector id. */
export function dataConnectorResourceId(workspaceResourceId: string, connectorId: string): string {
  return `${workspaceResourceId}/providers/Microsoft.SecurityInsights/dataConnectors/${connectorId}`;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const ok = (body: unknown): Answer => ({ status: 200, body });
const armError = (status: number, code: string, message: string): Answer => ({ status, body: { error: { code, message } } });
const logsError = (status: number, code: string, message: string): Answer => ({ status, body: { error: { code, message, innererror: { code: "SyntaxError" } } } });

export async function startLogAnalyticsWireServer(): Promise<LogAnalyticsWireServer> {
  const pems = await createSelfSignedCertificate({ commonName: "log-analytics.test" });
  const requests: RecordedRequest[] = [];
  let system: LogAnalytics | undefined;
  let byResource = new Map<string, { workspaceId: string; resourceId: string }>();
  let origin = "";

  async function answer(method: string, rawUrl: string, authorization: string | undefined, body: string): Promise<Answer> {
    const url = new URL(rawUrl, origin);
    const path = decodeURIComponent(url.pathname).replace(/\/+/g, "/");
    const token = readBearer(authorization);
    const logs = /^\/v1(\/subscriptions\/.+\/providers\/Microsoft\.OperationalInsights\/workspaces\/[^/]+)\/query$/i.exec(path);
    if (logs) {
      // The Logs query API accepts tokens for its own origin (https://api.loganalytics.io in the public cloud).
      if (token?.aud !== origin) return { status: 401, body: { error: { code: "InvalidTokenError", message: "The provided authentication is not valid for this resource." } } };
      if (method !== "POST") return logsError(405, "MethodNotAllowed", "Queries are posted.");
      const workspace = byResource.get(logs[1]!.toLowerCase());
      if (!workspace || !system) return logsError(404, "ResourceNotFound", "The resource could not be found.");
      try {
        return await query(system, workspace, body);
      } catch (error) {
        if (isApiError(error) && error.code === "EXTENSION_NOT_ENABLED") return logsError(404, "ResourceNotFound", "The resource could not be found.");
        return logsError(500, "InternalServerError", "The query failed.");
      }
    }
    if (token?.aud !== origin) return armError(401, "InvalidAuthenticationToken", "The access token is invalid.");
    if (!url.searchParams.get("api-version")) return armError(400, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.");
    if (method !== "GET") return armError(405, "MethodNotAllowed", "Only reads are served.");
    const connectors = /^(\/subscriptions\/.+\/providers\/Microsoft\.OperationalInsights\/workspaces\/[^/]+)\/providers\/Microsoft\.SecurityInsights\/dataConnectors$/i.exec(path);
    const tables = /^(\/subscriptions\/.+\/providers\/Microsoft\.OperationalInsights\/workspaces\/[^/]+)\/tables$/i.exec(path);
    const workspace = byResource.get((connectors?.[1] ?? tables?.[1] ?? "").toLowerCase());
    if (!workspace || !system) return armError(404, "ResourceNotFound", "The Resource was not found.");
    try {
      if (connectors) {
        const all = (await system.listDataConnectors(workspace.workspaceId)).map((c) => armConnector(workspace.resourceId, c));
        const skip = Number(url.searchParams.get("$skipToken") ?? "0");
        const next = new URL(origin + connectors[0]);
        next.searchParams.set("api-version", url.searchParams.get("api-version")!);
        next.searchParams.set("$skipToken", String(skip + ARM_PAGE_SIZE));
        return ok({ value: all.slice(skip, skip + ARM_PAGE_SIZE), ...(skip + ARM_PAGE_SIZE < all.length && { nextLink: next.href }) });
      }
      const list = await system.listTables(workspace.workspaceId);
      return ok({
        value: list.tables.map((name) => ({
          id: `${workspace.resourceId}/tables/${name}`,
          name,
          type: "Microsoft.OperationalInsights/workspaces/tables",
          properties: { retentionInDays: 90, totalRetentionInDays: 90, plan: "Analytics", provisioningState: "Succeeded", schema: { name, tableType: "Microsoft" } },
        })),
      });
    } catch (error) {
      if (isApiError(error) && error.code === "EXTENSION_NOT_ENABLED") return armError(404, "ResourceNotFound", "The Resource was not found.");
      return armError(500, "InternalServerError", "The workspace failed.");
    }
  }

  const server = createServer({ key: pems.key, cert: pems.cert }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      answer(req.method ?? "", req.url ?? "/", req.headers.authorization, body).then(
        (a) => {
          res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
          res.end(JSON.stringify(a.body));
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    certificate: pems.cert,
    requests,
    serve(served, workspaces) {
      system = served;
      byResource = new Map([...workspaces].map(([workspaceId, resourceId]) => [resourceId.toLowerCase(), { workspaceId, resourceId }]));
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A connector as Sentinel's ARM resource of its kind describes it. */
function armConnector(workspaceResourceId: string, c: DataConnector): unknown {
  const state = c.state === "Connected" ? "Enabled" : "Disabled";
  const dataTypes = Object.fromEntries(c.dataTypes.map((t) => [t, { state }]));
  let properties: Record<string, unknown>;
  if (c.kind === "StaticUI" || c.kind === "GenericUI") {
    // UI-defined connectors name their tables in their UI configuration, and have no data type switches.
    properties = {
      connectorUiConfig: {
        title: c.name,
        publisher: "Microsoft",
        dataTypes: c.tables.map((name) => ({ name, lastDataReceivedQuery: `${name}\n| summarize Time = max(TimeGenerated)\n| where isnotempty(Time)` })),
      },
    };
  } else if (c.kind === "AmazonWebServicesS3") {
    properties = { destinationTable: c.tables[0], roleArn: "arn:aws:iam::123456789012:role/OIDC_MicrosoftSentinelRole", sqsUrls: ["https://sqs.us-east-1.amazonaws.com/123456789012/sentinel"], dataTypes };
  } else {
    properties = { tenantId: "00000000-0000-0000-0000-000000000000", dataTypes };
  }
  return { id: dataConnectorResourceId(workspaceResourceId, c.id), name: c.id, type: "Microsoft.SecurityInsights/dataConnectors", etag: '"0300bf09-0000-0000-0000-5c37296e0000"', kind: c.kind, properties };
}

type Column = [name: string, type: string];

const table = (columns: Column[], rows: unknown[][]): Answer => ok({ tables: [{ name: "PrimaryResult", columns: columns.map(([name, type]) => ({ name, type })), rows }] });

const HEALTH =
  /^SentinelHealth \| where SentinelResourceType == "Data connector" \| summarize arg_max\(TimeGenerated, Status, Description, Reason\) by SentinelResourceId, SentinelResourceName \| project SentinelResourceId, SentinelResourceName, TimeGenerated, Status, Description, Reason$/;
const LAST_LOG = /^union withsource=TableName isfuzzy=true (\w+(?:, \w+)*) \| summarize LastLog = max\(TimeGenerated\) by TableName$/;
const USAGE = /^Usage \| where StartTime >= datetime\(([^)]+)\) and StartTime < datetime\(([^)]+)\) \| summarize VolumeMb = sum\(Quantity\) by DataType, Hour = bin\(StartTime, 1h\)$/;
const LATENCY =
  /^union withsource=TableName isfuzzy=true (\w+(?:, \w+)*) \| where TimeGenerated >= datetime\(([^)]+)\) and TimeGenerated < datetime\(([^)]+)\) \| summarize LatencySeconds = percentile\(datetime_diff\('second', ingestion_time\(\), TimeGenerated\), 50\) by TableName, Hour = bin\(TimeGenerated, 1h\)$/;

const floorHour = (at: number) => Math.floor(at / HOUR_MS) * HOUR_MS;
const ceilHour = (at: number) => Math.ceil(at / HOUR_MS) * HOUR_MS;
/** Kusto writes datetimes in UTC with seven fraction digits. */
const kustoTime = (at: number) => new Date(at).toISOString().replace(/\.(\d{3})Z$/, ".$10000Z");

/** Runs one of the adapter's queries against the system's data; the timespan bounds TimeGenerated. */
async function query(system: LogAnalytics, workspace: { workspaceId: string; resourceId: string }, body: string): Promise<Answer> {
  let request: { query?: unknown; timespan?: unknown };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    return logsError(400, "BadArgumentError", "The request body is not JSON.");
  }
  if (typeof request.query !== "string") return logsError(400, "BadArgumentError", "The query is missing.");
  const span = typeof request.timespan === "string" ? request.timespan.split("/").map((t) => Date.parse(t)) : [];
  if (span.length !== 2 || span.some(Number.isNaN)) return logsError(400, "BadArgumentError", "The timespan is not an interval.");
  const [spanStart, spanEnd] = span as [number, number];
  const inSpan = (at: number) => at >= spanStart && at < spanEnd;
  const kql = request.query.replace(/\s+/g, " ").trim();
  const { workspaceId } = workspace;
  let m: RegExpExecArray | null;

  if (HEALTH.test(kql)) {
    const connectors = await system.listDataConnectors(workspaceId);
    const rows = connectors
      .filter((c) => c.health.status !== "Unknown" && c.health.checkedAt !== null && inSpan(Date.parse(c.health.checkedAt)))
      .map((c) => [
        dataConnectorResourceId(workspace.resourceId, c.id),
        c.name,
        c.health.checkedAt,
        c.health.status === "Healthy" ? "Success" : c.health.status === "Degraded" ? "PartialSuccess" : "Failure",
        c.health.status === "Healthy" ? "Data fetch succeeded." : "Data fetch failed.",
        c.health.reason ?? "",
      ]);
    return table([["SentinelResourceId", "string"], ["SentinelResourceName", "string"], ["TimeGenerated", "datetime"], ["Status", "string"], ["Description", "string"], ["Reason", "string"]], rows);
  }

  if ((m = LAST_LOG.exec(kql))) {
    const connectors = await system.listDataConnectors(workspaceId);
    const rows: unknown[][] = [];
    for (const name of m[1]!.split(", ")) {
      const times = connectors
        .filter((c) => c.tables.includes(name) && c.lastLogReceivedAt !== null)
        .map((c) => Date.parse(c.lastLogReceivedAt!))
        .filter(inSpan);
      if (times.length > 0) rows.push([name, kustoTime(Math.max(...times))]);
    }
    return table([["TableName", "string"], ["LastLog", "datetime"]], rows);
  }

  if ((m = USAGE.exec(kql))) {
    const from = Date.parse(m[1]!);
    const to = Date.parse(m[2]!);
    const volumes = new Map<string, number>();
    for (const series of await seriesOf(system, workspaceId, floorHour(from), ceilHour(to))) {
      for (const point of series.points) {
        const hour = Date.parse(point.start);
        // A Usage record covers its hour and is generated at its end.
        if (hour < from || hour >= to || point.volumeMb <= 0 || !inSpan(hour + HOUR_MS)) continue;
        const key = `${series.table}\n${hour}`;
        volumes.set(key, (volumes.get(key) ?? 0) + point.volumeMb);
      }
    }
    const rows = [...volumes].map(([key, volume]) => {
      const [name, hour] = key.split("\n") as [string, string];
      return [name, kustoTime(Number(hour)), volume];
    });
    return table([["DataType", "string"], ["Hour", "datetime"], ["VolumeMb", "real"]], rows);
  }

  if ((m = LATENCY.exec(kql))) {
    const names = new Set(m[1]!.split(", "));
    const from = Math.max(Date.parse(m[2]!), spanStart);
    const to = Math.min(Date.parse(m[3]!), spanEnd);
    const rows: unknown[][] = [];
    if (from < to) {
      for (const series of await seriesOf(system, workspaceId, floorHour(from), ceilHour(to), floorHour(from))) {
        if (!names.has(series.table)) continue;
        for (const point of series.points) {
          const hour = Date.parse(point.start);
          // Records exist only in hours that received data; those from `from` on are measured.
          if (hour + HOUR_MS <= from || hour >= to || point.volumeMb <= 0 || point.latencySeconds === null) continue;
          rows.push([series.table, kustoTime(hour), point.latencySeconds]);
        }
      }
    }
    return table([["TableName", "string"], ["Hour", "datetime"], ["LatencySeconds", "real"]], rows);
  }

  return logsError(400, "BadArgumentError", "The request had some invalid properties: the query could not be parsed.");
}

function seriesOf(system: LogAnalytics, workspaceId: string, from: number, to: number, latencyFrom?: number): Promise<IngestionSeries[]> {
  return system.ingestionVolumes({
    workspaceId,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    ...(latencyFrom !== undefined && { latencyFrom: new Date(latencyFrom).toISOString() }),
  });
}
