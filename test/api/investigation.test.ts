import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
let WS: string;
let TENANT: string;
const USER = "tom.oneill@fabrikam.example";
const signIns = (query = "") => host.call("GET", `/workspaces/${WS}/investigation/users/signin-logs${query}`);
const audits = (query = "") => host.call("GET", `/workspaces/${WS}/investigation/users/directory-logs${query}`);
/** A WorkspaceAdmin of the provider: switches the workspace's integrations in the portal. */
let workspaceAdmin: TestPerson;
const switchIntegrations = async (body: Record<string, boolean>) => {
  const res = await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${WS}/integrations`, { body });
  expect(res.status).toBe(200);
};

beforeAll(async () => {
  host = await startTestHost();
  WS = host.demo.workspaces[0]!.id;
  TENANT = host.demo.workspaces[0]!.tenantId;
  workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
afterAll(async () => host?.close());

/** Follows the page tokens to the end (at most 50 pages, so that a broken token fails rather than hangs). */
async function everyRow(first: string, read: (query: string) => Promise<Response>): Promise<Json[]> {
  const rows: Json[] = [];
  let query = first;
  for (let i = 0; i < 50; i++) {
    const res = await read(query);
    expect(res.status).toBe(200);
    const body = await json(res);
    rows.push(...body.data);
    if (!body.pagination.hasMore) return rows;
    query = `${first}&pageToken=${encodeURIComponent(body.pagination.continuationToken)}`;
  }
  throw new Error("more than 50 pages");
}

describe("sign-in logs", () => {
  it("lists the tenant's sign-ins of the last 24 hours, newest first, with Graph's fields", async () => {
    const res = await signIns("?pageSize=20");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.data.length).toBeGreaterThan(0);
    const times = body.data.map((r: Json) => r.createdDateTime);
    expect(times).toEqual([...times].sort().reverse());
    expect(Date.parse(times.at(-1))).toBeGreaterThan(Date.now() - 24 * 3_600_000 - 60_000);
    expect(Object.keys(body.data[0])).toEqual(
      expect.arrayContaining(["userPrincipalName", "appDisplayName", "ipAddress", "location", "status", "conditionalAccessStatus", "riskLevelDuringSignIn", "deviceDetail"]),
    );
  });

  it("filters by user, follows page tokens to the end with every row once, and shows a sign-in made now first", async () => {
    const added = host.simulated.directory.addSignIn(TENANT, { userPrincipalName: USER, ipAddress: "203.0.113.77" });
    // The window ends just after the added sign-in: the simulated logs keep generating rows up to
    // "now", and one generated after it would otherwise come first or between the two reads.
    const to = encodeURIComponent(new Date(Date.parse(added.createdDateTime) + 1).toISOString());
    const rows = await everyRow(`?user=${encodeURIComponent(USER)}&to=${to}&pageSize=5`, signIns);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => r.userPrincipalName.toLowerCase() === USER)).toBe(true);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(rows[0]!.ipAddress).toBe("203.0.113.77");
    const all = await everyRow(`?user=${encodeURIComponent(USER)}&to=${to}&pageSize=1000`, signIns);
    expect(all.map((r) => r.id)).toEqual(rows.map((r) => r.id));
  });

  it("a page token works only with the query it came from, and only unmodified (400 VALIDATION_ERROR at pageToken)", async () => {
    const first = await json(await signIns("?pageSize=1"));
    const token = encodeURIComponent(first.pagination.continuationToken);
    const other = await signIns(`?pageSize=1&user=${encodeURIComponent(USER)}&pageToken=${token}`);
    expect([other.status, (await json(other)).target]).toEqual([400, "pageToken"]);
    const forged = await signIns(`?pageSize=1&pageToken=A${token}`);
    expect(forged.status).toBe(400);
    expect((await json(await audits(`?pageSize=1&pageToken=${token}`))).target).toBe("pageToken");
  });

  it("refuses a page size over 1,000, a window older than 30 days or inverted, and unknown parameters", async () => {
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    for (const query of ["?pageSize=1001", "?pageSize=0", `?from=${old}`, `?from=${hourAgo}&to=${new Date(Date.now() - 2 * 3_600_000).toISOString()}`, "?from=yesterday", "?top=5"]) {
      const res = await signIns(query);
      expect(res.status, query).toBe(400);
      expect((await json(res)).code).toBe("VALIDATION_ERROR");
    }
  });

  it("an explicit window bounds the rows", async () => {
    const to = Date.now() - 2 * 3_600_000;
    const from = to - 6 * 3_600_000;
    const rows = await everyRow(`?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&pageSize=1000`, signIns);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(Date.parse(r.createdDateTime)).toBeGreaterThanOrEqual(from);
      expect(Date.parse(r.createdDateTime)).toBeLessThan(to);
    }
  });
});

describe("directory audit logs", () => {
  it("lists directory audits newest first; the user filter matches the initiator", async () => {
    const added = host.simulated.directory.addDirectoryAudit(TENANT, {
      activityDisplayName: "Add member to role",
      initiatedBy: { user: { id: null, displayName: "Tom O'Neill", userPrincipalName: USER, ipAddress: "198.51.100.20" }, app: null },
    });
    // As for sign-ins: a window that ends just after the added audit, so no later generated row can come first.
    const to = encodeURIComponent(new Date(Date.parse(added.activityDateTime) + 1).toISOString());
    const rows = await everyRow(`?user=${encodeURIComponent(USER)}&to=${to}&pageSize=50`, audits);
    expect(rows[0]).toMatchObject({ activityDisplayName: "Add member to role" });
    expect(rows.every((r) => r.initiatedBy.user?.userPrincipalName?.toLowerCase() === USER)).toBe(true);
    const all = (await json(await audits("?pageSize=100"))).data as Json[];
    const times = all.map((r) => r.activityDateTime);
    expect(times).toEqual([...times].sort().reverse());
    expect(Object.keys(all[0]!)).toEqual(expect.arrayContaining(["activityDisplayName", "category", "result", "initiatedBy", "targetResources", "additionalDetails"]));
  });
});

describe("the default window", () => {
  it("ends just after now: a sign-in stamped in the same millisecond as the request is listed", async () => {
    // A clock that stands still puts the sign-in and the request in one millisecond.
    const frozen = new Date(Date.now());
    const still = await startTestHost({ now: () => frozen });
    try {
      const workspace = still.demo.workspaces[0]!;
      const added = still.simulated.directory.addSignIn(workspace.tenantId, { userPrincipalName: USER, ipAddress: "203.0.113.78" });
      expect(added.createdDateTime).toBe(frozen.toISOString());
      const res = await still.call("GET", `/workspaces/${workspace.id}/investigation/users/signin-logs?user=${encodeURIComponent(USER)}&pageSize=5`);
      expect(res.status).toBe(200);
      expect((await json(res)).data[0]).toMatchObject({ id: added.id, ipAddress: "203.0.113.78" });
    } finally {
      await still.close();
    }
  });
});

describe("who may read investigation logs", () => {
  it("needs investigation:read and a role on the workspace", async () => {
    const noScope = await createServiceAccount(host, { scopes: ["incidents:read"], workspaceAssignments: [{ workspaceId: WS, role: "Analyst" }] });
    expect((await json(await host.call("GET", `/workspaces/${WS}/investigation/users/signin-logs`, { auth: noScope }))).code).toBe("INSUFFICIENT_SCOPE");
    const noRole = await createServiceAccount(host, { scopes: ["investigation:read"], workspaceAssignments: [] });
    expect((await json(await host.call("GET", `/workspaces/${WS}/investigation/users/directory-logs`, { auth: noRole }))).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
  });

  it("answers 400 EXTENSION_NOT_ENABLED naming directoryLogs when the workspace's integration is off", async () => {
    await switchIntegrations({ directoryLogs: false });
    try {
      for (const read of [signIns, audits]) {
        const res = await read();
        expect(res.status).toBe(400);
        expect(await json(res)).toMatchObject({ code: "EXTENSION_NOT_ENABLED", target: "directoryLogs" });
      }
    } finally {
      await switchIntegrations({ directoryLogs: true });
    }
  });

  it("passes the directory's throttling through as 429 RATE_LIMITED with Retry-After", async () => {
    const spy = vi.spyOn(host.services.directoryLogs, "listSignIns").mockRejectedValueOnce(new ApiError("RATE_LIMITED", "Graph throttled the request.", { headers: { "Retry-After": "30" } }));
    const res = await signIns();
    spy.mockRestore();
    expect([res.status, res.headers.get("retry-after"), (await json(res)).code]).toEqual([429, "30", "RATE_LIMITED"]);
  });
});
