import type { TokenCredential } from "@azure/identity";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { connectorTables } from "../../shared/systems/log-analytics/connector-tables";
import { createAzureLogAnalytics, type AzureLogAnalyticsOptions } from "../../shared/systems/log-analytics/azure/azure-log-analytics";
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type ReceiverScript } from "../support/https-receiver";

// One HTTPS fake plays Azure Resource Manager (Sentinel data connectors, workspace tables) and the
// Azure Monitor Logs query API. The adapter's real SDK clients and JSON client talk to it over TLS
// (the SDKs refuse bearer tokens over plain HTTP), trusting its self-signed certificate.

const WS = "8d2f0c4e-1b7a-4f5e-9c3d-2a6b8e0f1c4d";
const SUB = "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
const RESOURCE = `/subscriptions/${SUB}/resourceGroups/rg-soc/providers/Microsoft.OperationalInsights/workspaces/law-fabrikam`;
const LEAK = "internal-kusto-diagnostic";
const NOW = new Date("2024-06-12T09:30:00.000Z");

let fake: HttpsReceiver;
let route: (request: ReceivedRequest) => ReceiverScript;
const tokenScopes: (string | string[])[] = [];

const credential: TokenCredential = {
  async getToken(scopes) {
    tokenScopes.push(scopes);
    return { token: "fake-token", expiresOnTimestamp: Date.now() + 3_600_000 };
  },
};

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): ReceiverScript => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** A Logs API answer: one table of the given columns and rows. */
const table = (columns: [string, string][], rows: unknown[][]) =>
  json({ tables: [{ name: "PrimaryResult", columns: columns.map(([name, type]) => ({ name, type })), rows }] });

const connectors = {
  value: [
    {
      id: `${RESOURCE}/providers/Microsoft.SecurityInsights/dataConnectors/aws-1`,
      name: "aws-1",
      kind: "AmazonWebServicesS3",
      properties: { destinationTable: "AWSCloudTrail", dataTypes: { logs: { state: "Enabled" } } },
    },
    {
      id: `${RESOURCE}/providers/Microsoft.SecurityInsights/dataConnectors/m365`,
      name: "m365",
      kind: "Office365",
      properties: { dataTypes: { exchange: { state: "Enabled" }, sharePoint: { state: "Enabled" }, teams: { state: "Disabled" } } },
    },
  ],
};
const moreConnectors = {
  value: [
    {
      id: `${RESOURCE}/providers/Microsoft.SecurityInsights/dataConnectors/paloalto`,
      name: "paloalto",
      kind: "StaticUI",
      properties: { connectorUiConfig: { dataTypes: [{ name: "CommonSecurityLog (PaloAlto)" }] } },
    },
  ],
};

/** The fake's routes; Logs queries are told apart by what they read. */
function azure(request: ReceivedRequest): ReceiverScript {
  const url = new URL(request.url, "https://fake");
  if (request.headers.authorization !== "Bearer fake-token") return json({ error: { message: LEAK } }, 401);
  if (request.method === "GET" && url.pathname === `${RESOURCE}/providers/Microsoft.SecurityInsights/dataConnectors`) {
    return url.searchParams.has("$skipToken") ? json(moreConnectors) : json({ ...connectors, nextLink: `${fake.origin}${url.pathname}?api-version=2024-09-01&$skipToken=2` });
  }
  if (request.method === "GET" && url.pathname === `${RESOURCE}/tables`) {
    return json({ value: [{ name: "SigninLogs" }, { name: "AWSCloudTrail" }, { name: "CommonSecurityLog" }] });
  }
  if (request.method === "POST" && url.pathname.replace(/^\/v1\/+/, "/") === `${RESOURCE}/query`) {
    const { query } = JSON.parse(request.body) as { query: string };
    if (query.startsWith("SentinelHealth")) {
      return table(
        [["SentinelResourceId", "string"], ["SentinelResourceName", "string"], ["TimeGenerated", "datetime"], ["Status", "string"], ["Description", "string"], ["Reason", "string"]],
        [[connectors.value[0]!.id.toLowerCase(), "aws-1", "2024-06-12T09:00:00Z", "Failure", "Data fetch failed", "AccessDenied: the role could not be assumed."]],
      );
    }
    if (query.includes("LastLog")) {
      return table([["TableName", "string"], ["LastLog", "datetime"]], [["AWSCloudTrail", "2024-06-12T03:55:00Z"], ["OfficeActivity", "2024-06-12T09:27:00Z"]]);
    }
    if (query.startsWith("Usage")) {
      return table(
        [["DataType", "string"], ["Hour", "datetime"], ["VolumeMb", "real"]],
        [["OfficeActivity", "2024-06-12T06:00:00Z", 7.25], ["OfficeActivity", "2024-06-12T08:00:00Z", 8.5], ["SecurityAlert", "2024-06-12T07:00:00Z", 0.4]],
      );
    }
    if (query.includes("LatencySeconds")) {
      return table([["TableName", "string"], ["Hour", "datetime"], ["LatencySeconds", "real"]], [["OfficeActivity", "2024-06-12T08:00:00Z", 95]]);
    }
  }
  return json({ error: { message: LEAK } }, 404);
}

beforeAll(async () => {
  fake = await startHttpsReceiver();
  fake.respondWith((request) => route(request));
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
  fake.respondWith((request) => route(request));
  route = azure;
  tokenScopes.length = 0;
});

function adapter(extra: Partial<AzureLogAnalyticsOptions> = {}) {
  return createAzureLogAnalytics({
    credential,
    workspaces: new Map([[WS, RESOURCE]]),
    connectorSources: { AmazonWebServicesS3: "SourceD", m365: "SourceC" },
    armEndpoint: fake.origin,
    logsEndpoint: `${fake.origin}/v1`,
    timeoutMs: 5000,
    tls: { ca: fake.certificate },
    now: () => NOW,
    ...extra,
  });
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).message).not.toContain(LEAK);
  return error as ApiError;
}

describe("Azure log analytics adapter", () => {
  it("lists Sentinel's data connectors across pages, with tables, source, health and last log received", async () => {
    const list = await adapter().listDataConnectors(WS);
    expect(list.map((c) => [c.name, c.kind, c.source, c.state, c.tables])).toEqual([
      ["aws-1", "AmazonWebServicesS3", "SourceD", "Connected", ["AWSCloudTrail"]],
      ["m365", "Office365", "SourceC", "Connected", ["OfficeActivity"]],
      ["paloalto", "StaticUI", null, "Connected", ["CommonSecurityLog"]],
    ]);
    const [aws, m365, paloalto] = list;
    expect(aws!.health).toEqual({ status: "Unhealthy", reason: "AccessDenied: the role could not be assumed.", checkedAt: "2024-06-12T09:00:00.000Z" });
    expect(aws!.lastLogReceivedAt).toBe("2024-06-12T03:55:00.000Z");
    expect(m365!.dataTypes).toEqual(["exchange", "sharePoint", "teams"]);
    expect(m365!.health).toEqual({ status: "Unknown", reason: null, checkedAt: null });
    // No SentinelHealth record and nothing received for a day: the service's own finding.
    expect(paloalto!.health).toMatchObject({ status: "Unhealthy", reason: "No data in CommonSecurityLog for more than 24 hours." });
    expect(paloalto!.lastLogReceivedAt).toBeNull();

    const armCall = fake.requests.find((r) => r.url.includes("dataConnectors"))!;
    expect(new URL(armCall.url, "https://fake").searchParams.get("api-version")).toBe("2024-09-01");
    const lastLogQuery = fake.requests.map((r) => r.body).find((b) => b.includes("LastLog"))!;
    expect(JSON.parse(lastLogQuery).query).toContain("union withsource=TableName isfuzzy=true AWSCloudTrail, CommonSecurityLog, OfficeActivity");
    expect(tokenScopes).toContainEqual(`${fake.origin}/.default`);
    // Both clients, the Logs query client included, ask for tokens of the endpoints they call (another
    // cloud's, when configured), never the public cloud's.
    expect(tokenScopes.flat().filter((s) => s !== `${fake.origin}/.default`)).toEqual([]);
    expect(fake.requests.some((r) => r.url.startsWith("/v1/"))).toBe(true);
  });

  it("builds hourly series from the Usage table, zero-filled, attributed to the one connector writing each table", async () => {
    const series = await adapter().ingestionVolumes({ workspaceId: WS, from: "2024-06-12T06:00:00.000Z", to: "2024-06-12T09:00:00.000Z", latencyFrom: "2024-06-12T06:00:00.000Z" });
    const office = series.find((s) => s.table === "OfficeActivity")!;
    expect(office.connectorId).toBe(connectors.value[1]!.id);
    expect(office.source).toBe("SourceC");
    expect(office.points).toEqual([
      { start: "2024-06-12T06:00:00.000Z", volumeMb: 7.25, latencySeconds: null },
      { start: "2024-06-12T07:00:00.000Z", volumeMb: 0, latencySeconds: null },
      { start: "2024-06-12T08:00:00.000Z", volumeMb: 8.5, latencySeconds: 95 },
    ]);
    // A connector's table with no usage at all is a series of zeros: its silence must be visible.
    expect(series.find((s) => s.table === "AWSCloudTrail")!.points.map((p) => p.volumeMb)).toEqual([0, 0, 0]);
    // Written by no known connector.
    expect(series.find((s) => s.table === "SecurityAlert")).toMatchObject({ connectorId: null, source: null });
    const usage = fake.requests.map((r) => JSON.parse(r.body || "{}") as { query?: string; timespan?: string }).find((b) => b.query?.startsWith("Usage"))!;
    expect(usage.query).toContain("StartTime >= datetime(2024-06-12T06:00:00.000Z) and StartTime < datetime(2024-06-12T09:00:00.000Z)");
    expect(usage.timespan).toBe("2024-06-12T06:00:00.000Z/2024-06-12T11:00:00.000Z");
  });

  it("lists the workspace's tables through the management SDK", async () => {
    expect(await adapter().listTables(WS)).toEqual({
      success: true,
      summary: "3 tables in the Log Analytics workspace law-fabrikam.",
      tables: ["AWSCloudTrail", "CommonSecurityLog", "SigninLogs"],
    });
  });

  it("answers success false with a readable summary when the workspace cannot be read (403, 404)", async () => {
    route = () => json({ error: { code: "AuthorizationFailed", message: LEAK } }, 403);
    const refused = await adapter().listTables(WS);
    expect(refused).toEqual({ success: false, summary: "The service is not allowed to read the Log Analytics workspace law-fabrikam: grant its identity Log Analytics Reader on it.", tables: [] });
    route = () => json({ error: { code: "ResourceNotFound", message: LEAK } }, 404);
    expect((await adapter().listTables(WS)).summary).toContain("was not found");
  });

  it("passes a 429 through as RATE_LIMITED with Retry-After, without the SDK retrying", async () => {
    route = () => json({ error: { code: "TooManyRequests", message: LEAK } }, 429, { "retry-after": "17" });
    const tables = await rejection(adapter().listTables(WS));
    expect(tables).toMatchObject({ code: "RATE_LIMITED", headers: { "Retry-After": "17" } });
    // The SDK's own error stays the cause, for the logs; only the detail reaches the caller.
    expect(tables.cause).toMatchObject({ name: "RestError", statusCode: 429 });
    expect(fake.requests).toHaveLength(1);
    route = (request) => (request.method === "POST" ? json({ error: { code: "ThrottledError", message: LEAK } }, 429, { "retry-after": "9" }) : azure(request));
    const volumes = await rejection(adapter().ingestionVolumes({ workspaceId: WS, from: "2024-06-12T06:00:00.000Z", to: "2024-06-12T09:00:00.000Z" }));
    expect(volumes).toMatchObject({ code: "RATE_LIMITED", headers: { "Retry-After": "9" } });
    expect(volumes.message).toContain("Azure Monitor Logs");
    expect(volumes.cause).toMatchObject({ name: "RestError", statusCode: 429 });
  });

  it("maps a Logs API 5xx to UPSTREAM_ERROR and a partial result too, rather than reading it as silence", async () => {
    route = (request) => (request.method === "POST" ? json({ error: { message: LEAK } }, 503) : azure(request));
    const failed = await rejection(adapter().listDataConnectors(WS));
    expect(failed.code).toBe("UPSTREAM_ERROR");
    expect(failed.cause).toMatchObject({ name: "RestError", statusCode: 503 });
    route = (request) =>
      request.method === "POST"
        ? json({ tables: [{ name: "PrimaryResult", columns: [], rows: [] }], error: { code: "PartialError", message: LEAK } })
        : azure(request);
    const partial = await rejection(adapter().ingestionVolumes({ workspaceId: WS, from: "2024-06-12T06:00:00.000Z", to: "2024-06-12T09:00:00.000Z" }));
    expect(partial).toMatchObject({ code: "UPSTREAM_ERROR" });
    expect(partial.message).toContain("partial result (PartialError)");
  });

  it("times out with TIMEOUT when Azure does not answer", async () => {
    route = () => ({ hang: true });
    const error = await rejection(adapter({ timeoutMs: 300 }).listTables(WS));
    expect(error.code).toBe("TIMEOUT");
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("refuses an unmapped workspace with EXTENSION_NOT_ENABLED without calling Azure", async () => {
    const other = "11111111-2222-4333-8444-555555555555";
    expect(adapter().isEnabled(other)).toBe(false);
    expect((await rejection(adapter().listDataConnectors(other))).code).toBe("EXTENSION_NOT_ENABLED");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("connector tables", () => {
  it("maps first-party kinds by their enabled data types and reads the tables other connectors name", () => {
    expect(connectorTables("MicrosoftThreatProtection", { dataTypes: { incidents: { state: "Enabled" }, alerts: { state: "Disabled" } } })).toEqual(["SecurityIncident"]);
    expect(connectorTables("RestApiPoller", { dataType: "Okta_CL" })).toEqual(["Okta_CL"]);
    expect(connectorTables("GenericUI", { connectorUiConfig: { dataTypes: [{ name: "Syslog (Cisco)" }, { name: "bad;drop Syslog" }] } })).toEqual(["Syslog"]);
    expect(connectorTables("Unknown", {})).toEqual([]);
  });
});
