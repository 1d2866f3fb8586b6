import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deliveryLogPartition } from "../../shared/platform/store/delivery-log-partition";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import { RETRY_SCHEDULED, type DeliveryLogRecord, type IncidentRef } from "../../shared/model/webhooks/delivery-log";
import { fakeDns, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/*
 * Webhooks and their health in the portal: figures computed from a delivery log written with known
 * entries (times relative to now, so every window holds exactly what it should), the log's filters,
 * the state actions, redelivery of one entry and of every failure since a time, the chart's buckets,
 * and who may see and do what. Webhook URLs pass configuration against public DNS, but deliveries
 * resolve to loopback, which the sender refuses: nothing leaves the machine.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let host: TestHost;
let now: number;
let admin: TestPerson;
let operator: TestPerson;
let member: TestPerson;
let agentAdmin: TestPerson;
let customer: TestPerson;
let incident: IncidentRef;
const gone: IncidentRef = { workspaceId: "", source: "SourceA", incidentId: "no-such-incident" };

beforeAll(async () => {
  host = await startTestHost({ resolveHost: async () => ["127.0.0.1"] });
  host.services.resolveHost = fakeDns;
  now = host.services.now().getTime();
  admin = await host.person({ organizationalRole: "Admin" });
  operator = await host.person({ organizationalRole: "WorkspaceAdmin" });
  member = await host.person({ organizationalRole: "Member" });
  agentAdmin = await host.person({ organizationalRole: "AgentAdmin" });
  customer = await host.person({ organizationalRole: "Admin", accountId: host.demo.customers[0]!.id });
  const ws = host.demo.workspaces[0]!.id;
  const created = host.simulated.vendors.createIncident("SourceA", ws, { title: "Impossible travel", severity: "High" });
  incident = { workspaceId: ws, source: "SourceA", incidentId: created.id };
  gone.workspaceId = ws;
});
afterAll(() => host?.close());

async function createWebhook(name: string): Promise<string> {
  const res = await host.call("POST", "/webhooks", { body: { name, url: `https://hooks.example.com/${randomUUID()}`, eventTypes: ["incident.closed.v1"] } });
  expect(res.status).toBe(201);
  return (await json(res)).data.id;
}

interface EntrySpec {
  ago: number;
  status: DeliveryLogRecord["status"];
  code?: number;
  ms?: number;
  type?: string;
  eventId?: string;
  attempt?: number;
  final?: boolean;
  isTest?: boolean;
  incident?: IncidentRef | null;
}

/** Writes an entry as the delivery worker logs one; a failure is final unless `final: false`. */
async function put(webhookId: string, spec: EntrySpec): Promise<DeliveryLogRecord> {
  const createdAt = new Date(now - spec.ago).toISOString();
  const code = spec.code ?? (spec.status === "Succeeded" ? 200 : 0);
  const error =
    spec.status === "Succeeded" ? null : spec.status === "Pending" ? "Held: the webhook is paused." : spec.final === false ? `HTTP ${code}${RETRY_SCHEDULED}${createdAt}` : `HTTP ${code}; not retried, dead-lettered`;
  const entry: DeliveryLogRecord = {
    id: randomUUID(),
    partitionKey: deliveryLogPartition(webhookId, createdAt),
    webhookConfigurationId: webhookId,
    eventId: spec.eventId ?? randomUUID(),
    eventType: spec.type ?? "incident.created.v1",
    eventOccurredAt: createdAt,
    status: spec.status,
    httpStatusCode: code,
    success: spec.status === "Succeeded",
    requestUrl: "https://hooks.example.com/in",
    requestHeaders: { "Content-Type": "application/json" },
    durationMs: spec.ms ?? 0,
    createdAt,
    redelivered: false,
    attempt: spec.attempt ?? 1,
    isTest: spec.isTest ?? false,
    incident: spec.incident === undefined ? incident : spec.incident,
    error,
    ttl: 30 * 86_400,
  };
  await host.services.stores.deliveryLogs.put(entry);
  return entry;
}

/** The health suite's webhook and its log: the figures below are these entries'. */
let hook: string;
const e: Record<string, DeliveryLogRecord> = {};

beforeAll(async () => {
  hook = await createWebhook("SOAR intake");
  const retried = randomUUID();
  const later = randomUUID();
  Object.assign(e, {
    // The last 24 hours.
    ok1: await put(hook, { ago: 1 * HOUR, status: "Succeeded", ms: 100 }),
    ok2: await put(hook, { ago: 2 * HOUR, status: "Succeeded", ms: 200 }),
    ok3: await put(hook, { ago: 3 * HOUR, status: "Succeeded", code: 201, ms: 300 }),
    retry: await put(hook, { ago: 4 * HOUR, status: "Failed", code: 503, ms: 1000, eventId: retried, final: false }),
    dead: await put(hook, { ago: 4 * HOUR - 30_000, status: "Failed", code: 503, ms: 2000, eventId: retried, attempt: 2 }),
    timeout: await put(hook, { ago: 5 * HOUR, status: "Failed", code: 0, ms: 30_000, type: "incident.closed.v1" }),
    held: await put(hook, { ago: 30 * 60_000, status: "Pending" }),
    test: await put(hook, { ago: 10 * 60_000, status: "Failed", code: 500, ms: 700, type: "webhook.test.v1", isTest: true, incident: null }),
    // The rest of the week.
    refused: await put(hook, { ago: 30 * HOUR, status: "Failed", code: 404, ms: 60, eventId: later }),
    delivered: await put(hook, { ago: 29 * HOUR, status: "Succeeded", ms: 600, eventId: later, attempt: 2 }),
    ok4: await put(hook, { ago: 2 * DAY, status: "Succeeded", ms: 400 }),
    goneFailed: await put(hook, { ago: 3 * DAY, status: "Failed", code: 410, ms: 50, incident: gone }),
    ok5: await put(hook, { ago: 6 * DAY, status: "Succeeded", ms: 500 }),
    // Before the week.
    old: await put(hook, { ago: 8 * DAY, status: "Succeeded", ms: 9000 }),
  });
});

describe("webhook health", () => {
  it("lists the organization's webhooks by name, each with its last 24 hours' counts (test events left out)", async () => {
    const res = await host.portal(member, "GET", "/portal/webhooks");
    expect(res.status).toBe(200);
    const item = ((await json(res)).data as Json[]).find((w) => w.webhook.id === hook)!;
    expect(item.actions).toEqual(["pause"]);
    expect(item.last24h).toMatchObject({ succeeded: 3, pending: 1, failed: 3, successRate: 0.5, lastAttemptAt: e.held!.createdAt, lastFailureAt: e.dead!.createdAt });
  });

  it("gives one webhook's figures over 24 hours and 7 days: counts, success rate, final failures, latency percentiles, last failures", async () => {
    const res = await host.portal(member, "GET", `/portal/webhooks/${hook}`);
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.webhook).toMatchObject({ id: hook, status: "Active", disableReason: null, disabledAt: null });
    expect(data.last24h).toMatchObject({
      succeeded: 3,
      pending: 1,
      failed: 3,
      successRate: 0.5,
      finalFailures: 2,
      // Answered attempts: 100, 200, 300, 1000, 2000 ms (the timeout got no answer).
      latencyMs: { p50: 300, p95: 2000, p99: 2000, sampleSize: 5 },
      truncated: false,
    });
    expect(data.last7d).toMatchObject({
      succeeded: 6,
      pending: 1,
      failed: 5,
      successRate: 0.5455,
      finalFailures: 4,
      // 50, 60, 100, 200, 300, 400, 500, 600, 1000, 2000 ms.
      latencyMs: { p50: 300, p95: 2000, p99: 2000, sampleSize: 10 },
    });
    expect(data.recentFailures.map((f: Json) => f.logId)).toEqual([e.test, e.dead, e.retry, e.timeout, e.refused, e.goneFailed].map((x) => x!.id));
    expect(data.recentFailures[1]).toMatchObject({ httpStatusCode: 503, statusClass: "5xx", eventType: "incident.created.v1", createdAt: e.dead!.createdAt, attempt: 2, final: true });
    expect(data.recentFailures[2]).toMatchObject({ final: false });
    expect(data.recentFailures[3]).toMatchObject({ httpStatusCode: 0, statusClass: "none" });
  });

  it("charts attempts by outcome in hourly buckets over 24 hours and daily buckets over 7 days", async () => {
    const day = (await json(await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-chart`))).data;
    expect(day).toMatchObject({ window: "24h", bucket: "1h" });
    expect(day.buckets).toHaveLength(24);
    expect(Date.parse(day.buckets[23].start)).toBe(Math.floor(now / HOUR) * HOUR);
    const sum = (buckets: Json[], k: string) => buckets.reduce((n, b) => n + b[k], 0);
    expect([sum(day.buckets, "succeeded"), sum(day.buckets, "pending"), sum(day.buckets, "failed")]).toEqual([3, 1, 3]);
    const holding = day.buckets.find((b: Json) => b.start <= e.held!.createdAt && e.held!.createdAt < new Date(Date.parse(b.start) + HOUR).toISOString());
    expect(holding.pending).toBe(1);

    const week = (await json(await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-chart?window=7d`))).data;
    expect(week).toMatchObject({ window: "7d", bucket: "1d", truncated: false });
    expect(week.buckets.map((b: Json) => b.start)).toEqual(Array.from({ length: 7 }, (_, i) => new Date(Math.floor(now / DAY) * DAY - (6 - i) * DAY).toISOString()));
    expect([sum(week.buckets, "succeeded"), sum(week.buckets, "pending"), sum(week.buckets, "failed")]).toEqual([6, 1, 5]);
    expect((await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-chart?window=30d`)).status).toBe(400);
  });

  it("filters the delivery log by outcome and by status class, newest first, and pages within the filter", async () => {
    const ids = async (query: string) => ((await json(await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-logs?${query}`))).data as Json[]).map((x) => x.id);
    expect(await ids("outcome=Failed")).toEqual([e.test, e.dead, e.retry, e.timeout, e.refused, e.goneFailed].map((x) => x!.id));
    expect(await ids("statusClass=5xx")).toEqual([e.test, e.dead, e.retry].map((x) => x!.id));
    expect(await ids("statusClass=none")).toEqual([e.held, e.timeout].map((x) => x!.id));
    expect(await ids("outcome=Failed&statusClass=4xx")).toEqual([e.refused, e.goneFailed].map((x) => x!.id));
    expect(await ids("outcome=Pending")).toEqual([e.held!.id]);
    expect(await ids("statusClass=2xx")).toHaveLength(7);
    const first = await json(await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-logs?outcome=Failed&pageSize=4`));
    expect(first.data[0]).toMatchObject({ statusClass: "5xx", eventPayload: null, requestBody: "" });
    expect(first.pagination.hasMore).toBe(true);
    const token = encodeURIComponent(first.pagination.continuationToken);
    const second = await json(await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-logs?outcome=Failed&pageSize=4&continuationToken=${token}`));
    expect(second.data.map((x: Json) => x.id)).toEqual([e.refused, e.goneFailed].map((x) => x!.id));
    // A token is bound to its filter.
    expect((await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-logs?outcome=Succeeded&pageSize=4&continuationToken=${token}`)).status).toBe(400);
    expect((await host.portal(member, "GET", `/portal/webhooks/${hook}/delivery-logs?statusClass=1xx`)).status).toBe(400);
  });
});

describe("state actions", () => {
  it("pauses, resumes and enables, each from its own state only, audited with the person as actor", async () => {
    const id = await createWebhook("ITSM bridge");
    const pause = await host.portal(operator, "POST", `/portal/webhooks/${id}/pause`);
    expect(pause.status).toBe(200);
    expect((await json(pause)).data).toMatchObject({ webhook: { id, status: "Paused" }, actions: ["resume"] });
    expect((await host.portal(operator, "POST", `/portal/webhooks/${id}/pause`)).status).toBe(409);
    expect((await host.portal(operator, "POST", `/portal/webhooks/${id}/enable`)).status).toBe(409);
    const resume = await json(await host.portal(operator, "POST", `/portal/webhooks/${id}/resume`));
    expect(resume.data).toMatchObject({ webhook: { status: "Active" }, actions: ["pause"] });

    // Auto-disabled, as the delivery worker leaves it.
    const found = (await host.services.stores.webhooks.get(id))!;
    const disabledAt = new Date(now - HOUR).toISOString();
    const reason = "Final delivery failed for 5 distinct incidents within 24 hours.";
    await host.services.stores.webhooks.replace({ ...found.value, status: "Disabled", disableReason: reason, disabledAt, finalFailures: [{ incidentKey: "a", at: disabledAt }] }, found.etag);
    const health = (await json(await host.portal(member, "GET", `/portal/webhooks/${id}`))).data;
    expect(health.webhook).toMatchObject({ status: "Disabled", disableReason: reason, disabledAt });
    expect(health.actions).toEqual(["enable"]);
    const enable = await json(await host.portal(admin, "POST", `/portal/webhooks/${id}/enable`));
    expect(enable.data.webhook).toMatchObject({ status: "Active", disableReason: null, disabledAt: null });
    expect((await host.services.stores.webhooks.get(id))!.value.finalFailures).toEqual([]);

    const audits = (await host.services.stores.outbox.list(outboxScope.webhook(id), 1000)).filter((r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.activityType === "Webhook");
    const byPeople = audits.filter((a) => a.audit.activityAction === "Update").map((a) => [a.audit.actorId, JSON.parse(a.audit.metadata).status.to]);
    expect(byPeople).toEqual([
      [operator.userId, "Paused"],
      [operator.userId, "Active"],
      [admin.userId, "Active"],
    ]);
  });

  it("honours If-Match: a stale ETag is 409 and changes nothing", async () => {
    const id = await createWebhook("Pager");
    const etag = (await host.portal(member, "GET", `/portal/webhooks/${id}`)).headers.get("etag")!;
    await host.portal(operator, "POST", `/portal/webhooks/${id}/pause`);
    expect((await host.portal(operator, "POST", `/portal/webhooks/${id}/resume`, { headers: { "if-match": etag } })).status).toBe(409);
    expect((await host.services.stores.webhooks.get(id))!.value.status).toBe("Paused");
  });
});

describe("redelivery", () => {
  it("sends one failed incident.created.v1 again, audited; a delivered entry is 409", async () => {
    const res = await host.portal(operator, "POST", `/portal/webhooks/${hook}/delivery-logs/${e.dead!.id}/redeliver?createdAt=${encodeURIComponent(e.dead!.createdAt)}`);
    expect(res.status).toBe(202);
    expect((await json(res)).data).toEqual({ eventId: e.dead!.eventId, status: "Pending" });
    const audits = (await host.services.stores.outbox.list(outboxScope.webhook(hook), 1000)).filter((r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.activityType === "WebhookDelivery");
    expect(audits.map((a) => [a.audit.actorId, JSON.parse(a.audit.metadata).redeliverOf])).toEqual([[operator.userId, e.dead!.id]]);
    const delivered = await host.portal(operator, "POST", `/portal/webhooks/${hook}/delivery-logs/${e.ok1!.id}/redeliver?createdAt=${encodeURIComponent(e.ok1!.createdAt)}`);
    expect(delivered.status).toBe(409);
    const closed = await host.portal(operator, "POST", `/portal/webhooks/${hook}/delivery-logs/${e.timeout!.id}/redeliver?createdAt=${encodeURIComponent(e.timeout!.createdAt)}`);
    expect(closed.status).toBe(422);
  });

  it("sends every finally failed event since a time again, oldest first, 100 at most, and says where to go on", async () => {
    const id = await createWebhook("Data lake");
    const later = randomUUID();
    await put(id, { ago: 3 * HOUR, status: "Failed", code: 500, type: "incident.closed.v1" });
    await put(id, { ago: 3 * HOUR - 1_000, status: "Failed", code: 410, incident: gone });
    await put(id, { ago: 3 * HOUR - 2_000, status: "Failed", code: 503, eventId: later });
    await put(id, { ago: 3 * HOUR - 3_000, status: "Succeeded", eventId: later, attempt: 2 });
    await put(id, { ago: 3 * HOUR - 4_000, status: "Failed", code: 503, final: false });
    await put(id, { ago: 3 * HOUR - 5_000, status: "Pending" });
    const failed: DeliveryLogRecord[] = [];
    for (let i = 0; i < 101; i++) failed.push(await put(id, { ago: 2 * HOUR - i * 1_000, status: "Failed", code: 502 }));
    await put(id, { ago: 5 * HOUR, status: "Failed", code: 502 });

    const res = await host.portal(operator, "POST", `/portal/webhooks/${id}/redeliver-failed`, { body: { since: new Date(now - 4 * HOUR).toISOString() } });
    expect(res.status).toBe(202);
    const { data } = await json(res);
    expect(data).toMatchObject({ queued: 100, notRedeliverable: 1, incidentGone: 1, nextSince: failed[100]!.createdAt });
    expect(data.eventIds).toEqual(failed.slice(0, 100).map((f) => f.eventId));
    const audit = (await host.services.stores.outbox.list(outboxScope.webhook(id), 1000)).filter((r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.activityType === "WebhookDelivery");
    expect(audit.map((a) => [a.audit.actorId, JSON.parse(a.audit.metadata).eventIds.length])).toEqual([[operator.userId, 100]]);

    // Going on from nextSince reaches the one left (and, at least once, whichever redelivery has failed again meanwhile).
    const rest = await json(await host.portal(operator, "POST", `/portal/webhooks/${id}/redeliver-failed`, { body: { since: data.nextSince } }));
    expect(rest.data.eventIds[0]).toBe(failed[100]!.eventId);
  });

  it("bounds since: in the past, at most 7 days back", async () => {
    const since = (ms: number) => ({ body: { since: new Date(now + ms).toISOString() } });
    const future = await host.portal(operator, "POST", `/portal/webhooks/${hook}/redeliver-failed`, since(HOUR));
    expect(future.status).toBe(400);
    expect((await json(future)).target).toBe("since");
    expect((await host.portal(operator, "POST", `/portal/webhooks/${hook}/redeliver-failed`, since(-8 * DAY))).status).toBe(400);
  });
});

describe("who may", () => {
  it("reads for anyone of the organization; changes for WorkspaceAdmin and Admin only", async () => {
    expect((await host.portal(agentAdmin, "GET", `/portal/webhooks/${hook}`)).status).toBe(200);
    for (const person of [member, agentAdmin]) {
      for (const path of [`/portal/webhooks/${hook}/pause`, `/portal/webhooks/${hook}/redeliver-failed`]) {
        const res = await host.portal(person, "POST", path, { body: path.endsWith("failed") ? { since: new Date(now - HOUR).toISOString() } : undefined });
        expect(res.status, path).toBe(403);
        expect((await json(res)).target).toBe("organizationalRole");
      }
    }
    expect((await host.services.stores.webhooks.get(hook))!.value.status).toBe("Active");
  });

  it("a webhook of another organization does not exist: 404, and not listed", async () => {
    const listed = ((await json(await host.portal(customer, "GET", "/portal/webhooks"))).data as Json[]).map((w) => w.webhook.id);
    expect(listed).not.toContain(hook);
    for (const [method, path] of [
      ["GET", `/portal/webhooks/${hook}`],
      ["GET", `/portal/webhooks/${hook}/delivery-logs`],
      ["GET", `/portal/webhooks/${hook}/delivery-chart`],
      ["POST", `/portal/webhooks/${hook}/pause`],
    ] as const) {
      const res = await host.portal(customer, method, path);
      expect(res.status, path).toBe(404);
      expect((await json(res)).target).toBe("webhookId");
    }
    expect((await host.portal(operator, "GET", `/portal/webhooks/${randomUUID()}`)).status).toBe(404);
  });
});
