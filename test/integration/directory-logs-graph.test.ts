import type { IncomingMessage, ServerResponse } from "node:http";
import type { TokenCredential } from "@azure/identity";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiError } from "../../shared/platform/errors/api-error";
import { createGraphDirectoryLogs, type GraphDirectoryLogsOptions } from "../../shared/systems/directory-logs/graph/graph-directory-logs";
import { encodeLogCursor } from "../../shared/systems/directory-logs/log-cursor";
import { apiErrorOf } from "../support/api-error-of";
import { sendJson, startFakeHttpServer, type FakeHttpServer } from "../support/fake-http-server";

// A fake Microsoft Graph on node:http: it evaluates the adapter's $filter (time bounds and user),
// honours $top and pages with an absolute @odata.nextLink carrying a $skiptoken, as Graph does.

const TENANT = "3f1c9a2b-7d4e-4f6a-8b5c-1d2e3f4a5b6c";
const LEAK = "graph-internal-diagnostic";

interface GraphRow {
  id: string;
  createdDateTime?: string;
  activityDateTime?: string;
  userPrincipalName?: string;
  [key: string]: unknown;
}

let fake: FakeHttpServer;
let origin: string;
let signIns: GraphRow[] = [];
let audits: GraphRow[] = [];
let nextLinkOrigin: string | undefined;
const tokenRequests: { scopes: string | string[]; tenantId?: string }[] = [];


function graph(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", origin);
  if (!req.headers.authorization?.startsWith("Bearer token-for-")) return sendJson(res, 401, { error: { code: "InvalidAuthenticationToken", message: LEAK } });
  const collection = url.pathname === "/v1.0/auditLogs/signIns" ? signIns : url.pathname === "/v1.0/auditLogs/directoryAudits" ? audits : undefined;
  if (!collection) return sendJson(res, 404, { error: { message: LEAK } });
  const field = collection === signIns ? "createdDateTime" : "activityDateTime";
  const filter = url.searchParams.get("$filter") ?? "";
  const ge = new RegExp(`${field} ge (\\S+)`).exec(filter)?.[1];
  const le = new RegExp(`${field} le (\\S+)`).exec(filter)?.[1];
  const upn = /(?:userPrincipalName|initiatedBy\/user\/userPrincipalName) eq '((?:[^']|'')*)'/.exec(filter)?.[1]?.replace(/''/g, "'");
  const rows = collection
    .filter((r) => (ge === undefined || String(r[field]) >= ge) && (le === undefined || String(r[field]) <= le))
    .filter((r) => upn === undefined || r.userPrincipalName === upn)
    .sort((a, b) => (String(a[field]) < String(b[field]) ? 1 : -1));
  const top = Number(url.searchParams.get("$top") ?? 1000);
  const skip = Number(url.searchParams.get("$skiptoken") ?? 0);
  const page = rows.slice(skip, skip + top);
  const next = new URL(url.href);
  next.searchParams.set("$skiptoken", String(skip + top));
  const nextLink = skip + top < rows.length ? (nextLinkOrigin ?? origin) + next.pathname + next.search : undefined;
  sendJson(res, 200, { "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#auditLogs/signIns", value: page, ...(nextLink ? { "@odata.nextLink": nextLink } : {}) });
}

beforeAll(async () => {
  fake = await startFakeHttpServer(graph);
  origin = fake.origin;
});

afterAll(() => fake.close());

beforeEach(() => {
  fake.reset();
  nextLinkOrigin = undefined;
  tokenRequests.length = 0;
  signIns = [];
  audits = [];
});

const credential: TokenCredential = {
  async getToken(scopes, options) {
    tokenRequests.push({ scopes, tenantId: options?.tenantId });
    return { token: `token-for-${options?.tenantId}`, expiresOnTimestamp: Date.now() + 3_600_000 };
  },
};

function adapter(extra: Partial<GraphDirectoryLogsOptions> = {}) {
  return createGraphDirectoryLogs({ credential, baseUrl: origin, tenants: [TENANT], timeoutMs: 2000, ...extra });
}

/** n sign-ins, one every `stepMs` back from `end`, newest first. */
function signInRows(n: number, end: string, stepMs: number, upn = "ann@contoso.example"): GraphRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `s${String(i).padStart(3, "0")}`,
    createdDateTime: new Date(Date.parse(end) - (i + 1) * stepMs).toISOString().replace(".000Z", "Z"),
    userId: "5b1f9a7c-0d3e-4c2b-8a6f-1e9d7c5b3a20",
    userPrincipalName: upn,
    userDisplayName: "Ann",
    appDisplayName: "Azure Portal",
    ipAddress: "203.0.113.7",
    location: { city: "Redmond", state: "Washington", countryOrRegion: "US", geoCoordinates: { latitude: 47.68, longitude: -122.12, altitude: null } },
    status: { errorCode: i % 5 === 0 ? 50126 : 0, failureReason: i % 5 === 0 ? "Invalid username or password." : "Other.", additionalDetails: null },
    conditionalAccessStatus: "success",
    riskLevelDuringSignIn: "none",
    riskEventTypes_v2: [],
    deviceDetail: { deviceId: "", displayName: "", operatingSystem: "Windows10", browser: "Edge 124", isCompliant: false, isManaged: false, trustType: "" },
  }));
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await apiErrorOf(promise);
  expect(error.message).not.toContain(LEAK);
  return error;
}

const filterOf = (url: string) => new URL(url, origin).searchParams.get("$filter");

describe("Microsoft Graph directory logs adapter", () => {
  const window = { tenantId: TENANT, from: "2024-06-01T00:00:00.000Z", to: "2024-06-02T00:00:00.000Z" };

  it("asks for the window and user with Graph's $filter and $top, with a token for the workspace's tenant", async () => {
    signIns = signInRows(3, window.to, 60_000);
    const page = await adapter().listSignIns({ ...window, user: "ann@contoso.example", pageSize: 50 });
    expect(page.cursor).toBeUndefined();
    expect(page.items.map((r) => r.id)).toEqual(["s000", "s001", "s002"]);
    expect(fake.requests).toHaveLength(1);
    const url = new URL(fake.requests[0]!.url, origin);
    expect(url.pathname).toBe("/v1.0/auditLogs/signIns");
    expect(url.searchParams.get("$filter")).toBe(
      "createdDateTime ge 2024-06-01T00:00:00.000Z and createdDateTime le 2024-06-02T00:00:00.000Z and userPrincipalName eq 'ann@contoso.example'",
    );
    expect(url.searchParams.get("$top")).toBe("50");
    expect(url.searchParams.has("$orderby")).toBe(false); // signIns documents no $orderby; its default order is newest first
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer token-for-${TENANT}`);
    expect(tokenRequests[0]).toEqual({ scopes: `${origin}/.default`, tenantId: TENANT });
  });

  it("maps Graph's rows to the record, filling what Graph leaves out", async () => {
    signIns = signInRows(1, window.to, 60_000);
    const [row] = (await adapter().listSignIns({ ...window, pageSize: 1 })).items;
    expect(row).toMatchObject({
      id: "s000",
      createdDateTime: "2024-06-01T23:59:00.000Z",
      location: { city: "Redmond", countryOrRegion: "US", latitude: 47.68, longitude: -122.12 },
      status: { errorCode: 50126, failureReason: "Invalid username or password." },
      deviceDetail: { deviceId: null, displayName: null, trustType: null, operatingSystem: "Windows10" },
      appliedConditionalAccessPolicies: [],
      riskEventTypes: [],
      correlationId: null,
    });
  });

  it("follows @odata.nextLink on the server and resumes mid-page from its own cursor, each row once, newest first", async () => {
    signIns = signInRows(25, window.to, 60_000);
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = await adapter().listSignIns({ ...window, pageSize: 7, cursor });
      sizes.push(page.items.length);
      seen.push(...page.items.map((r) => r.id));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual(signIns.map((r) => r.id));
    expect(sizes.slice(0, 3)).toEqual([7, 7, 7]);
    expect(fake.requests.some((r) => new URL(r.url, origin).searchParams.has("$skiptoken"))).toBe(true);
    expect(JSON.stringify(cursor ?? "")).not.toContain("token-for");
  });

  it("reads a long window in one-day slices, newest slice first, never returning a row twice at a slice boundary", async () => {
    const to = "2024-06-04T00:00:00.000Z";
    signIns = signInRows(18, to, 4 * 3_600_000); // one every four hours over three days
    signIns.push({ ...signInRows(1, "2024-06-03T00:00:00.001Z", 1)[0]!, id: "boundary" }); // exactly at a slice edge
    const page = await adapter().listSignIns({ tenantId: TENANT, from: "2024-06-01T00:00:00.000Z", to, pageSize: 1000 });
    expect(page.items.map((r) => r.id).filter((id) => id === "boundary")).toHaveLength(1);
    expect(page.items).toHaveLength(19);
    const times = page.items.map((r) => r.createdDateTime);
    expect([...times].sort().reverse()).toEqual(times);
    expect(fake.requests.map((r) => filterOf(r.url))).toEqual([
      "createdDateTime ge 2024-06-03T00:00:00.000Z and createdDateTime le 2024-06-04T00:00:00.000Z",
      "createdDateTime ge 2024-06-02T00:00:00.000Z and createdDateTime le 2024-06-03T00:00:00.000Z",
      "createdDateTime ge 2024-06-01T00:00:00.000Z and createdDateTime le 2024-06-02T00:00:00.000Z",
    ]);
  });

  it("returns a short page with a cursor when a sparse window spends the page's request budget", async () => {
    const to = "2024-06-11T00:00:00.000Z";
    signIns = signInRows(1, "2024-06-01T12:00:00.000Z", 1);
    const first = await adapter({ maxRequestsPerPage: 3 }).listSignIns({ tenantId: TENANT, from: "2024-06-01T00:00:00.000Z", to, pageSize: 10 });
    expect(first.items).toEqual([]);
    expect(first.cursor).toBeDefined();
    expect(fake.requests).toHaveLength(3);
    let cursor = first.cursor;
    const found: string[] = [];
    while (cursor) {
      const page = await adapter({ maxRequestsPerPage: 3 }).listSignIns({ tenantId: TENANT, from: "2024-06-01T00:00:00.000Z", to, pageSize: 10, cursor });
      found.push(...page.items.map((r) => r.id));
      cursor = page.cursor;
    }
    expect(found).toEqual(["s000"]);
  });

  it("orders directory audits with $orderby and filters on the initiator, escaping quotes", async () => {
    audits = [
      { id: "Directory_1", activityDateTime: "2024-06-01T10:00:00Z", activityDisplayName: "Reset user password", userPrincipalName: "tom.o'neill@fabrikam.example", initiatedBy: { user: { id: "u1", userPrincipalName: "tom.o'neill@fabrikam.example" } }, targetResources: [{ id: "t1", type: "User", modifiedProperties: [{ displayName: "AccountEnabled", oldValue: "[true]", newValue: "[false]" }] }] },
    ];
    const page = await adapter().listDirectoryAudits({ ...window, user: "tom.o'neill@fabrikam.example", pageSize: 10 });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({
      activityDisplayName: "Reset user password",
      initiatedBy: { user: { id: "u1", displayName: null }, app: null },
      targetResources: [{ id: "t1", type: "User", displayName: null, modifiedProperties: [{ displayName: "AccountEnabled", newValue: "[false]" }] }],
      additionalDetails: [],
    });
    const url = new URL(fake.requests[0]!.url, origin);
    expect(url.pathname).toBe("/v1.0/auditLogs/directoryAudits");
    expect(url.searchParams.get("$orderby")).toBe("activityDateTime desc");
    expect(url.searchParams.get("$filter")).toContain("initiatedBy/user/userPrincipalName eq 'tom.o''neill@fabrikam.example'");
    await adapter().listDirectoryAudits({ ...window, user: "5B1F9A7C-0D3E-4C2B-8A6F-1E9D7C5B3A20", pageSize: 10 });
    expect(filterOf(fake.requests[1]!.url)).toContain("initiatedBy/user/id eq '5B1F9A7C-0D3E-4C2B-8A6F-1E9D7C5B3A20'");
  });

  it("passes Graph's 429 through as RATE_LIMITED with Retry-After in seconds", async () => {
    fake.override((_req, res) => sendJson(res, 429, { error: { code: "TooManyRequests", message: LEAK } }, { "retry-after": "30" }));
    const error = await rejection(adapter().listSignIns({ ...window, pageSize: 10 }));
    expect(error).toMatchObject({ code: "RATE_LIMITED", status: 429, headers: { "Retry-After": "30" } });
    expect(error.message).toContain("Microsoft Graph");
  });

  it("reports Graph's 403 (permission or licence missing) as the service's credential refused", async () => {
    fake.override((_req, res) => sendJson(res, 403, { error: { code: "Authentication_RequestFromNonPremiumTenantOrB2CTenant", message: LEAK } }));
    const error = await rejection(adapter().listDirectoryAudits({ ...window, pageSize: 10 }));
    expect(error).toMatchObject({ code: "UPSTREAM_ERROR", status: 502 });
    expect(error.message).toContain("refused the service's credential (status 403)");
  });

  it("never follows a nextLink off the configured Graph", async () => {
    signIns = signInRows(15, window.to, 60_000);
    nextLinkOrigin = "http://evil.example";
    const error = await rejection(adapter().listSignIns({ ...window, pageSize: 10 }));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain("@odata.nextLink points outside the collection");
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests.every((r) => r.url.startsWith("/v1.0/"))).toBe(true);
  });

  it("refuses a cursor whose link leaves the collection", async () => {
    const forged = encodeLogCursor({ e: window.to, u: "http://evil.example/v1.0/auditLogs/signIns?$top=1" });
    expect((await rejection(adapter().listSignIns({ ...window, pageSize: 10, cursor: forged }))).code).toBe("VALIDATION_ERROR");
    const other = encodeLogCursor({ e: window.to, u: "/v1.0/users?$top=1" });
    expect((await rejection(adapter().listSignIns({ ...window, pageSize: 10, cursor: other }))).code).toBe("VALIDATION_ERROR");
    expect(fake.requests).toHaveLength(0);
  });

  it("reads only the configured tenants (EXTENSION_NOT_ENABLED otherwise, no token asked), or any with '*'", async () => {
    const other = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b";
    expect(adapter().isEnabled(other)).toBe(false);
    expect((await rejection(adapter().listSignIns({ ...window, tenantId: other, pageSize: 10 }))).code).toBe("EXTENSION_NOT_ENABLED");
    expect(tokenRequests).toHaveLength(0);
    expect(adapter({ tenants: "*" }).isEnabled(other)).toBe(true);
    await adapter({ tenants: "*" }).listSignIns({ ...window, tenantId: other, pageSize: 10 });
    expect(tokenRequests[0]?.tenantId).toBe(other);
  });

  it("turns a credential that cannot produce a token into UPSTREAM_ERROR without calling Graph", async () => {
    const broken: TokenCredential = {
      getToken: async () => {
        throw new Error("ManagedIdentityCredential: no identity endpoint");
      },
    };
    const error = await rejection(adapter({ credential: broken }).listSignIns({ ...window, pageSize: 10 }));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toBe(`The service could not obtain a token for Microsoft Graph while reading the sign-ins of tenant ${TENANT}.`);
    expect(fake.requests).toHaveLength(0);
  });
});
