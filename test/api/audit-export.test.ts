import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEventRecord } from "../../shared/model/audit/audit-event";
import { auditTrailOf } from "../../shared/platform/store/audit-trail";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
let WS: string;
/** A WorkspaceAdmin of the provider, whose integration switches in the portal are the audited writes. */
let workspaceAdmin: TestPerson;
const exportPage = (query = "", auth?: { clientId: string; clientSecret: string }, workspaceId = WS) =>
  host.call("GET", `/workspaces/${workspaceId}/export/audit${query}`, { auth });

beforeAll(async () => {
  host = await startTestHost();
  // A workspace of its own, so that other tests' events do not mix in.
  WS = host.demo.workspaces[2]!.id;
  workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
afterAll(async () => host?.close());

/** One audited write in the workspace: its integration switches, flipped in the portal. */
let flips = 0;
async function auditedWrite(workspaceId = WS): Promise<void> {
  const res = await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${workspaceId}/integrations`, { body: { logAnalytics: flips++ % 2 === 0 } });
  expect(res.status).toBe(200);
}

/** Follows nextPageToken until a short page; returns the events and the last token. */
async function followToEnd(start: string | undefined, pageSize: number): Promise<{ events: Json[]; token: string }> {
  const events: Json[] = [];
  let token = start;
  for (let i = 0; i < 200; i++) {
    const res = await exportPage(`?pageSize=${pageSize}${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`);
    expect(res.status).toBe(200);
    const body = await json(res);
    events.push(...body.value);
    token = body.nextPageToken;
    if (body.value.length < pageSize) return { events, token: token! };
  }
  throw new Error("the export did not end");
}

describe("audit export", () => {
  it("answers a bare {value, nextPageToken} with docs/contract.md §2.12's audit events, no envelope", async () => {
    await auditedWrite();
    const res = await exportPage("?pageSize=5");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(["nextPageToken", "value"]);
    expect(body.nextPageToken).toEqual(expect.any(String));
    for (const event of body.value) {
      expect(Object.keys(event).sort()).toEqual(
        ["actorEmail", "actorId", "actorName", "activityAction", "activityType", "discriminator", "id", "metadata", "targetResourceId", "targetResourceName", "targetResourceType", "timeGenerated", "workspaceId"].sort(),
      );
    }
    // The trail begins with what the demo seed did there; the write is among the events.
    expect(body.value.find((e: Json) => e.activityType === "WorkspaceIntegrations")).toMatchObject({ workspaceId: WS, discriminator: "Workspace", actorId: workspaceAdmin.userId });
  });

  it("a consumer that follows to the end and resumes later from the last token gets exactly the new events, in order", async () => {
    for (let i = 0; i < 7; i++) await auditedWrite();
    const first = await followToEnd(undefined, 3);
    expect(new Set(first.events.map((e) => e.id)).size).toBe(first.events.length);
    // Caught up: the last token gives nothing new, and a token again to wait on.
    const idle = await json(await exportPage(`?pageSize=3&pageToken=${encodeURIComponent(first.token)}`));
    expect(idle.value).toEqual([]);

    for (let i = 0; i < 5; i++) await auditedWrite();
    const resumed = await followToEnd(first.token, 2);
    expect(resumed.events).toHaveLength(5);
    const trail = await followToEnd(undefined, 1000);
    expect(trail.events.map((e) => e.id)).toEqual([...first.events, ...resumed.events].map((e) => e.id));
  });

  it("events written while a consumer pages are each seen exactly once, in one stable order", async () => {
    const start = (await followToEnd(undefined, 1000)).token;
    const written: Promise<void>[] = [];
    const seen: Json[] = [];
    let token = start;
    // Page slowly (2 at a time) while 12 audited writes land concurrently, then follow to the end.
    for (let i = 0; i < 12; i++) written.push(appendDirect());
    for (let i = 0; i < 4; i++) {
      const body = await json(await exportPage(`?pageSize=2&pageToken=${encodeURIComponent(token)}`));
      seen.push(...body.value);
      token = body.nextPageToken;
    }
    await Promise.all(written);
    seen.push(...(await followToEnd(token, 2)).events);
    expect(seen).toHaveLength(12);
    expect(new Set(seen.map((e) => e.id)).size).toBe(12);
    const again = (await followToEnd(start, 1000)).events;
    expect(again.map((e) => e.id)).toEqual(seen.map((e) => e.id));
  });

  it("startTime keeps only events generated from then on, and binds the token", async () => {
    const all = (await followToEnd(undefined, 1000)).events;
    const cut = all[Math.floor(all.length / 2)]!.timeGenerated as string;
    const res = await json(await exportPage(`?pageSize=1000&startTime=${cut}`));
    expect(res.value.length).toBeGreaterThan(0);
    expect(res.value.every((e: Json) => e.timeGenerated >= cut)).toBe(true);
    const mixed = await exportPage(`?pageToken=${encodeURIComponent(res.nextPageToken)}`);
    expect([mixed.status, (await json(mixed)).target]).toEqual([400, "pageToken"]);
  });

  it("a token of another workspace, or modified, is 400 VALIDATION_ERROR; page sizes are 1 to 1,000", async () => {
    const other = host.demo.workspaces[1]!.id;
    const token = (await json(await exportPage("?pageSize=1", undefined, other))).nextPageToken as string;
    expect((await json(await exportPage(`?pageToken=${encodeURIComponent(token)}`))).code).toBe("VALIDATION_ERROR");
    expect((await exportPage(`?pageToken=${encodeURIComponent(token)}x`, undefined, other)).status).toBe(400);
    for (const query of ["?pageSize=0", "?pageSize=1001", "?startTime=today", "?since=2025-01-01T00:00:00Z"]) {
      expect((await exportPage(query)).status, query).toBe(400);
    }
  });

  it("shows only the workspace's own events", async () => {
    const other = host.demo.workspaces[4]!.id;
    await auditedWrite(other);
    const mine = (await followToEnd(undefined, 1000)).events;
    expect(mine.every((e) => e.workspaceId === WS)).toBe(true);
  });

  it("needs audit:read and a role on the workspace", async () => {
    const noScope = await createServiceAccount(host, { scopes: ["incidents:read"], workspaceAssignments: [{ workspaceId: WS, role: "Owner" }] });
    expect((await json(await exportPage("", noScope))).code).toBe("INSUFFICIENT_SCOPE");
    const noRole = await createServiceAccount(host, { scopes: ["audit:read"], workspaceAssignments: [] });
    expect((await json(await exportPage("", noRole))).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
    const analyst = await createServiceAccount(host, { scopes: ["audit:read"], workspaceAssignments: [{ workspaceId: WS, role: "Analyst" }] });
    expect((await exportPage("", analyst)).status).toBe(200);
  });
});

/** An audit event recorded as the relay does (stored, then its trail sequenced), without waiting for anything else. */
async function appendDirect(): Promise<void> {
  const event: AuditEventRecord = {
    id: randomUUID(),
    accountId: host.demo.workspaces[2]!.accountId,
    timeGenerated: new Date().toISOString(),
    workspaceId: WS,
    discriminator: "Workspace",
    activityType: "IncidentStatus",
    activityAction: "Update",
    actorId: host.admin.clientId,
    actorName: "Local admin",
    actorEmail: "",
    targetResourceType: "Incident",
    targetResourceId: `SourceA/${randomUUID()}`,
    targetResourceName: "Suspicious sign-in",
    metadata: "{}",
  };
  await host.services.stores.audit.append(event);
  await host.services.stores.audit.sequence([auditTrailOf(event)]);
}
