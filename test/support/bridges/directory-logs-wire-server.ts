import type { IncomingMessage, ServerResponse } from "node:http";
import { isApiError } from "../../../shared/platform/errors/api-error";
import {
  isObjectId,
  MAX_DIRECTORY_LOG_PAGE_SIZE,
  type DirectoryAuditRecord,
  type DirectoryLogQuery,
  type DirectoryLogs,
  type LogPage,
  type SignInRecord,
} from "../../../shared/systems/directory-logs/port";
import { sendJson, startFakeHttpServer, type RecordedRequest } from "../fake-http-server";
import { readBearer } from "./stub-credential";

/**
 * A directory served as Microsoft Graph v1.0 serves `auditLogs/signIns` and `auditLogs/directoryAudits`:
 * the tenant is the one the bearer token was issued for (its `tid`), `$filter` takes time bounds
 * (`ge`, `gt`, `le`, `lt` on the log's time property) and a user (`eq` on the documented user
 * properties), `$top` caps a page at 1,000, directory audits take `$orderby=activityDateTime desc`,
 * and pages are `{ "@odata.context", value, "@odata.nextLink" }` with an absolute next link carrying a
 * `$skiptoken`. Rows are written in Graph's shape (geoCoordinates, riskEventTypes_v2, "" for an
 * unregistered device, whole-second times without fraction). Anything else is refused with Graph's
 * error body. The rows come from the directory passed to `serve`, newest first, as Graph answers.
 */
export interface GraphWireServer {
  /** `http://127.0.0.1:<port>`: the adapter's `baseUrl`. */
  origin: string;
  /** Every request since the last `serve`. */
  requests: RecordedRequest[];
  /** Serves this directory's logs from now on (a simulated adapter: its tenants are Graph's tenants). */
  serve(directory: DirectoryLogs): void;
  close(): Promise<void>;
}

interface Collection {
  time: "createdDateTime" | "activityDateTime";
  /** The `$filter` properties naming a user, and whether each takes an object id. */
  userProperties: Record<string, "id" | "upn">;
  orderBy?: string;
  context: string;
  list(directory: DirectoryLogs, query: DirectoryLogQuery): Promise<LogPage<SignInRecord | DirectoryAuditRecord>>;
  wire(row: never): unknown;
}

const collections: Record<string, Collection> = {
  "/v1.0/auditLogs/signIns": {
    time: "createdDateTime",
    userProperties: { userId: "id", userPrincipalName: "upn" },
    context: "https://graph.microsoft.com/v1.0/$metadata#auditLogs/signIns",
    list: (directory, query) => directory.listSignIns(query),
    wire: (row: SignInRecord) => signInOnWire(row),
  },
  "/v1.0/auditLogs/directoryAudits": {
    time: "activityDateTime",
    userProperties: { "initiatedBy/user/id": "id", "initiatedBy/user/userPrincipalName": "upn" },
    orderBy: "activityDateTime desc",
    context: "https://graph.microsoft.com/v1.0/$metadata#auditLogs/directoryAudits",
    list: (directory, query) => directory.listDirectoryAudits(query),
    wire: (row: DirectoryAuditRecord) => auditOnWire(row),
  },
};

const EARLIEST = 0;
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

export async function startGraphWireServer(): Promise<GraphWireServer> {
  let directory: DirectoryLogs | undefined;
  let origin = "";

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", origin);
    const token = readBearer(req.headers.authorization);
    if (!token || token.aud !== origin || token.tid === null) return graphError(res, 401, "InvalidAuthenticationToken", "Access token validation failure. Invalid audience.");
    const collection = collections[url.pathname];
    if (!collection || req.method !== "GET") return graphError(res, 400, "BadRequest", `Resource not found for the segment '${url.pathname.split("/").pop()}'.`);
    if (!directory) return graphError(res, 503, "ServiceUnavailable", "No directory is served.");
    for (const name of url.searchParams.keys()) {
      if (!["$filter", "$top", "$skiptoken", "$orderby"].includes(name)) return graphError(res, 400, "BadRequest", `Query option '${name}' is not allowed.`);
    }
    const orderBy = url.searchParams.get("$orderby");
    if (orderBy !== null && orderBy !== collection.orderBy) return graphError(res, 400, "BadRequest", `Invalid $orderby clause '${orderBy}'.`);
    const top = url.searchParams.has("$top") ? Number(url.searchParams.get("$top")) : MAX_DIRECTORY_LOG_PAGE_SIZE;
    if (!Number.isInteger(top) || top < 1 || top > MAX_DIRECTORY_LOG_PAGE_SIZE) return graphError(res, 400, "BadRequest", "Invalid page size specified.");
    const filter = parseFilter(url.searchParams.get("$filter") ?? "", collection);
    if (typeof filter === "string") return graphError(res, 400, "BadRequest", filter);

    const empty = () => sendJson(res, 200, { "@odata.context": collection.context, value: [] });
    if (filter.to <= filter.from || filter.user === null) return empty();
    const query: DirectoryLogQuery = {
      tenantId: token.tid,
      from: new Date(filter.from).toISOString(),
      to: new Date(filter.to).toISOString(),
      ...(filter.user !== undefined && { user: filter.user }),
      pageSize: top,
      ...(url.searchParams.has("$skiptoken") && { cursor: url.searchParams.get("$skiptoken")! }),
    };
    let page: LogPage<SignInRecord | DirectoryAuditRecord>;
    try {
      page = await collection.list(directory, query);
    } catch (error) {
      if (isApiError(error) && error.code === "EXTENSION_NOT_ENABLED") return graphError(res, 403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.");
      if (isApiError(error) && error.code === "VALIDATION_ERROR") return graphError(res, 400, "BadRequest", "Invalid $skiptoken.");
      return graphError(res, 500, "InternalServerError", "The directory failed.");
    }
    const body: Record<string, unknown> = { "@odata.context": collection.context, value: page.items.map((row) => collection.wire(row as never)) };
    if (page.cursor !== undefined) {
      const next = new URL(url.href);
      next.searchParams.set("$skiptoken", page.cursor);
      body["@odata.nextLink"] = next.href;
    }
    sendJson(res, 200, body);
  }

  const fake = await startFakeHttpServer((req, res) => answer(req, res));
  origin = fake.origin;
  return {
    origin,
    requests: fake.requests,
    serve(served) {
      directory = served;
      fake.reset();
    },
    close: () => fake.close(),
  };
}

function graphError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message, innerError: { date: new Date().toISOString().slice(0, 19), "request-id": "00000000-0000-0000-0000-000000000000" } } });
}

interface Filter {
  /** Inclusive lower bound, epoch milliseconds. */
  from: number;
  /** Exclusive upper bound. */
  to: number;
  /** The user asked for; null when the value cannot match the property (a UPN that is a GUID). */
  user?: string | null;
}

/** The `$filter` grammar Graph accepts for these logs, reduced to what the fake serves: terms joined by `and`. */
function parseFilter(text: string, collection: Collection): Filter | string {
  const filter: Filter = { from: EARLIEST, to: LATEST };
  let rest = text.trim();
  const term = /^([A-Za-z]+(?:\/[A-Za-z]+)*) (eq|ge|gt|le|lt) ('(?:[^']|'')*'|[0-9T:.+-]+Z?)(?: and (?=\S)|$)/;
  while (rest.length > 0) {
    const match = term.exec(rest);
    if (!match) return `Invalid filter clause: syntax error at '${rest.slice(0, 40)}'.`;
    rest = rest.slice(match[0].length);
    const [, property, operator, literal] = match as unknown as [string, string, string, string];
    if (property === collection.time) {
      const at = Date.parse(literal);
      if (literal.startsWith("'") || Number.isNaN(at) || operator === "eq") return `Invalid filter clause: '${literal}' is not a DateTimeOffset bound.`;
      if (operator === "ge") filter.from = Math.max(filter.from, at);
      if (operator === "gt") filter.from = Math.max(filter.from, at + 1);
      if (operator === "le") filter.to = Math.min(filter.to, at + 1);
      if (operator === "lt") filter.to = Math.min(filter.to, at);
      continue;
    }
    const kind = collection.userProperties[property];
    if (kind === undefined || operator !== "eq" || !literal.startsWith("'")) return `Invalid filter clause: unsupported property or operator '${property} ${operator}'.`;
    if (filter.user !== undefined) return "Invalid filter clause: the user can be named once.";
    const value = literal.slice(1, -1).replace(/''/g, "'");
    // The simulated directory takes a GUID as an object id and anything else as a UPN.
    filter.user = (kind === "id") === isObjectId(value) ? value : null;
  }
  return filter;
}

/** Graph writes whole-second instants without a fraction. */
const wireTime = (iso: string) => iso.replace(/\.000Z$/, "Z");

/** Graph v1's `riskEventTypes` enum; newer detections only appear in `riskEventTypes_v2`. */
const riskEventTypesV1 = new Set(["unlikelyTravel", "anonymizedIPAddress", "maliciousIPAddress", "unfamiliarFeatures", "malwareInfectedIPAddress", "suspiciousIPAddress", "leakedCredentials", "investigationsThreatIntelligence", "generic"]);

function signInOnWire(row: SignInRecord): unknown {
  return {
    id: row.id,
    createdDateTime: wireTime(row.createdDateTime),
    userDisplayName: row.userDisplayName,
    userPrincipalName: row.userPrincipalName,
    userId: row.userId,
    appId: row.appId,
    appDisplayName: row.appDisplayName,
    ipAddress: row.ipAddress,
    clientAppUsed: row.clientAppUsed,
    correlationId: row.correlationId,
    conditionalAccessStatus: row.conditionalAccessStatus,
    isInteractive: row.isInteractive,
    riskDetail: row.riskDetail,
    riskLevelAggregated: row.riskLevelAggregated,
    riskLevelDuringSignIn: row.riskLevelDuringSignIn,
    riskState: row.riskState,
    riskEventTypes: row.riskEventTypes.map((t) => (riskEventTypesV1.has(t) ? t : "unknownFutureValue")),
    riskEventTypes_v2: row.riskEventTypes,
    resourceDisplayName: row.resourceDisplayName,
    resourceId: null,
    status: { ...row.status },
    deviceDetail: {
      deviceId: row.deviceDetail.deviceId ?? "",
      displayName: row.deviceDetail.displayName ?? "",
      operatingSystem: row.deviceDetail.operatingSystem,
      browser: row.deviceDetail.browser,
      isCompliant: row.deviceDetail.isCompliant,
      isManaged: row.deviceDetail.isManaged,
      trustType: row.deviceDetail.trustType ?? "",
    },
    location: {
      city: row.location.city,
      state: row.location.state,
      countryOrRegion: row.location.countryOrRegion,
      geoCoordinates: { altitude: null, latitude: row.location.latitude, longitude: row.location.longitude },
    },
    appliedConditionalAccessPolicies: row.appliedConditionalAccessPolicies.map((p) => ({ ...p })),
  };
}

function auditOnWire(row: DirectoryAuditRecord): unknown {
  const { user, app } = row.initiatedBy;
  return {
    id: row.id,
    category: row.category,
    correlationId: row.correlationId,
    result: row.result,
    resultReason: row.resultReason,
    activityDisplayName: row.activityDisplayName,
    activityDateTime: wireTime(row.activityDateTime),
    loggedByService: row.loggedByService,
    operationType: row.operationType,
    initiatedBy: {
      user: user && { "@odata.type": "#microsoft.graph.userIdentity", ...user },
      app: app && { "@odata.type": "#microsoft.graph.appIdentity", ...app },
    },
    targetResources: row.targetResources.map((t) => ({ ...t, groupType: null, modifiedProperties: t.modifiedProperties.map((p) => ({ ...p })) })),
    additionalDetails: row.additionalDetails.map((d) => ({ ...d })),
  };
}
