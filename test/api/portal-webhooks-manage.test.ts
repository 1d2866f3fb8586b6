import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deliveryLogPartition } from "../../shared/platform/store/delivery-log-partition";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import type { DeliveryLogRecord, IncidentRef } from "../../shared/model/webhooks/delivery-log";
import { RESPONSE_EXCERPT_BYTES } from "../../shared/platform/delivery/response-excerpt";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import { json, type Json } from "../support/json";

/*
 * Configuring webhooks in the portal: create (the signing secret shown once), change, delete, a test
 * event and the attempt it leaves (the request as sent, the receiver's answer), the signing secret's
 * rotation, the endpoint credential, one attempt of an event opened; If-Match, the audit trail with the
 * person as actor, who may, and another organization's webhooks. Deliveries go to a real HTTPS receiver
 * on loopback (private targets allowed on this host); the URL rules are checked on a host as deployed.
 */

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOKEN = "receiver-bearer-7d41c9a0e2";
const HOUR = 3_600_000;

let receiver: HttpsReceiver;
let host: TestHost;
let admin: TestPerson;
let operator: TestPerson;
let member: TestPerson;
let agentAdmin: TestPerson;
let customer: TestPerson;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  host = await startTestHost({
    webhookCa: receiver.certificate,
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_BACKOFF_MS: "150", WEBHOOK_RETRY_WINDOW_MS: "2000" },
  });
  admin = await host.person({ organizationalRole: "Admin" });
  operator = await host.person({ organizationalRole: "WorkspaceAdmin" });
  member = await host.person({ organizationalRole: "Member" });
  agentAdmin = await host.person({ organizationalRole: "AgentAdmin" });
  customer = await host.person({ organizationalRole: "Admin", accountId: host.demo.customers[0]!.id });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});

const newWebhook = (over: Json = {}) => ({
  name: "SOAR intake",
  url: receiver.url(`/hooks/${randomUUID()}`, "127.0.0.1"),
  eventTypes: ["incident.created.v1", "incident.status.changed.v1"],
  authenticationType: "Bearer",
  token: TOKEN,
  ...over,
});

async function create(person: TestPerson = operator, over: Json = {}): Promise<{ data: Json; etag: string }> {
  const res = await host.portal(person, "POST", "/portal/webhooks", { body: newWebhook(over) });
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return { data: body.data, etag: res.headers.get("etag")! };
}

/** The webhook's audit events, in the order written. */
async function audits(webhookId: string): Promise<OutboxAuditRecord["audit"][]> {
  const records = await host.services.stores.outbox.list(outboxScope.webhook(webhookId), 1000);
  return records.filter((r): r is OutboxAuditRecord => r.kind === "audit").map((r) => r.audit);
}

const pathOf = (webhook: Json) => new URL(webhook.url).pathname;
const requestsTo = (webhook: Json) => receiver.requests.filter((r) => r.url === pathOf(webhook));

/** The log entry of an event's first attempt, once written, as the portal lists it. */
async function attemptOf(webhookId: string, eventId: string, person: TestPerson = member): Promise<Json> {
  const entry = await waitFor(async () => {
    const listed = (await json(await host.portal(person, "GET", `/portal/webhooks/${webhookId}/delivery-logs?pageSize=50`))).data as Json[];
    return listed.find((e) => e.eventId === eventId && e.status !== "Pending");
  }, `the attempt of ${eventId}`);
  const res = await host.portal(person, "GET", `/portal/webhooks/${webhookId}/delivery-logs/${entry.id}?createdAt=${encodeURIComponent(entry.createdAt)}`);
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

describe("creating a webhook", () => {
  it("answers its configuration and its signing secret, once: no read, audit event or log line carries the secret or the token", async () => {
    const res = await host.portal(operator, "POST", "/portal/webhooks", { body: newWebhook() });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(res.headers.get("location")).toBe(`${host.base}/portal/webhooks/${data.webhook.id}`);
    expect(res.headers.get("etag")).toBeTruthy();
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(data.webhook).toMatchObject({ name: "SOAR intake", status: "Active", authenticationType: "Bearer", hasSigningToken: true, monitoredAccountIds: [], targetAccountId: host.demo.provider.id });
    expect(data.actions).toEqual(["pause"]);
    expect(data.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = data.webhook.id;

    const reads = [
      await host.portal(member, "GET", "/portal/webhooks"),
      await host.portal(member, "GET", `/portal/webhooks/${id}`),
      await host.call("GET", `/webhooks/${id}`),
      await host.call("GET", "/webhooks"),
    ];
    for (const read of reads) {
      const text = await read.text();
      expect(text).toContain(id);
      expect(text).not.toContain(data.signingSecret);
      expect(text).not.toContain(TOKEN);
    }
    const [created] = await audits(id);
    expect(created).toMatchObject({ activityType: "Webhook", activityAction: "Create", actorId: operator.userId, targetResourceId: id, accountId: host.demo.provider.id });
    const everything = JSON.stringify([await audits(id), host.logs, await host.services.stores.webhooks.get(id)]);
    expect(everything).not.toContain(data.signingSecret.slice("whsec_".length));
    expect(everything).not.toContain(TOKEN);
  });

  it("takes monitored accounts of the organization and the contract's credential rules", async () => {
    const managed = host.demo.customers[0]!.id;
    const { data } = await create(admin, { monitoredAccountIds: [managed], authenticationType: "Basic", token: "svc:pa55word" });
    expect(data.webhook).toMatchObject({ monitoredAccountIds: [managed], authenticationType: "Basic" });
    const cases: [Json, string][] = [
      [newWebhook({ authenticationType: "Basic", token: "no-colon" }), "token"],
      [newWebhook({ authenticationType: "None" }), "token"],
      [newWebhook({ eventTypes: ["webhook.test.v1"] }), "eventTypes[0]"],
      [newWebhook({ monitoredAccountIds: [randomUUID()] }), "monitoredAccountIds"],
    ];
    for (const [body, field] of cases) {
      const problem = await json(await host.portal(operator, "POST", "/portal/webhooks", { body }));
      expect([problem.code, Object.keys(problem.errors ?? {})], JSON.stringify(body)).toEqual(["VALIDATION_ERROR", [field]]);
    }
  });
});

describe("the URL rules, on a host as deployed", () => {
  let deployed: TestHost;
  let person: TestPerson;
  beforeAll(async () => {
    // Configuration checks resolve names with the test DNS: *.example.com public, *.internal.test private.
    deployed = await startTestHost();
    person = await deployed.person({ organizationalRole: "WorkspaceAdmin" });
  });
  afterAll(async () => deployed?.close());

  it("refuses what the contract's create refuses, at url, on create and on change", async () => {
    const body = (url: string) => ({ name: "Rules", url, eventTypes: ["incident.created.v1"] });
    const refused = [
      "http://hooks.example.com/soc",
      "https://localhost/soc",
      "https://10.0.0.8/soc",
      "https://[::1]/soc",
      "https://db.internal.test/soc",
      "https://no-such-host.invalid/soc",
      "https://user:pw@hooks.example.com/soc",
    ];
    for (const url of refused) {
      const problem = await json(await deployed.portal(person, "POST", "/portal/webhooks", { body: body(url) }));
      expect([url, problem.code, problem.target]).toEqual([url, "VALIDATION_ERROR", "url"]);
    }
    const res = await deployed.portal(person, "POST", "/portal/webhooks", { body: body("https://hooks.example.com/soc") });
    expect(res.status).toBe(201);
    const id = (await json(res)).data.webhook.id;
    const change = await json(await deployed.portal(person, "PUT", `/portal/webhooks/${id}`, { body: { ...body("https://db.internal.test/soc"), monitoredAccountIds: [] } }));
    expect([change.code, change.target]).toEqual(["VALIDATION_ERROR", "url"]);
  });
});

describe("changing a webhook", () => {
  it("replaces name, URL, event types and monitored accounts with If-Match; a stale ETag is 409 and changes nothing", async () => {
    const { data, etag } = await create();
    const id = data.webhook.id;
    const change = { name: "SOAR intake (EU)", url: receiver.url("/hooks/eu", "127.0.0.1"), eventTypes: ["incident.closed.v1"], monitoredAccountIds: [host.demo.customers[0]!.id] };
    const res = await host.portal(operator, "PUT", `/portal/webhooks/${id}`, { body: change, headers: { "if-match": etag } });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ webhook: expect.objectContaining(change), actions: ["pause"] });
    expect(res.headers.get("etag")).not.toBe(etag);

    const stale = await host.portal(operator, "PUT", `/portal/webhooks/${id}`, { body: { ...change, name: "Lost update" }, headers: { "if-match": etag } });
    expect(stale.status).toBe(409);
    expect((await json(stale)).code).toBe("CONFLICT");
    expect((await host.services.stores.webhooks.get(id))!.value.name).toBe("SOAR intake (EU)");
    // A whole configuration: monitoredAccountIds may not be left out.
    const { monitoredAccountIds: _, ...partial } = change;
    expect((await json(await host.portal(operator, "PUT", `/portal/webhooks/${id}`, { body: partial }))).errors).toHaveProperty("monitoredAccountIds");

    const update = (await audits(id)).find((a) => a.activityAction === "Update")!;
    expect(update).toMatchObject({ actorId: operator.userId, activityType: "Webhook" });
    expect(JSON.parse(update.metadata)).toMatchObject({ url: change.url, eventTypes: change.eventTypes });
  });

  it("deletes with If-Match: a stale ETag is 409; then the webhook is gone everywhere, its deletion audited", async () => {
    const { data, etag } = await create();
    const id = data.webhook.id;
    await host.portal(operator, "PUT", `/portal/webhooks/${id}`, { body: { name: "Renamed", url: data.webhook.url, eventTypes: data.webhook.eventTypes, monitoredAccountIds: [] } });
    expect((await host.portal(operator, "DELETE", `/portal/webhooks/${id}`, { headers: { "if-match": etag } })).status).toBe(409);
    const current = (await host.portal(member, "GET", `/portal/webhooks/${id}`)).headers.get("etag")!;
    const res = await host.portal(admin, "DELETE", `/portal/webhooks/${id}`, { headers: { "if-match": current } });
    expect(res.status).toBe(204);
    expect((await host.portal(member, "GET", `/portal/webhooks/${id}`)).status).toBe(404);
    expect((await host.call("GET", `/webhooks/${id}`)).status).toBe(404);
    expect((await audits(id)).map((a) => [a.activityAction, a.actorId])).toEqual([
      ["Create", operator.userId],
      ["Update", operator.userId],
      ["Delete", admin.userId],
    ]);
  });
});

describe("credentials", () => {
  it("rotates the signing secret: a new one, shown once; the previous one keeps signing beside it for 24 hours", async () => {
    const { data, etag } = await create();
    const id = data.webhook.id;
    const before = Date.now();
    const res = await host.portal(operator, "POST", `/portal/webhooks/${id}/rotate-signing-secret`, { headers: { "if-match": etag } });
    expect(res.status).toBe(200);
    const rotated = (await json(res)).data;
    expect(rotated.signingSecret).toMatch(/^whsec_/);
    expect(rotated.signingSecret).not.toBe(data.signingSecret);
    const retires = Date.parse(rotated.previousSecretRetiresAt) - before;
    expect(retires).toBeGreaterThan(23 * HOUR);
    expect(retires).toBeLessThanOrEqual(24 * HOUR + 60_000);
    // The endpoint credential stays.
    const stored = (await host.services.stores.webhooks.get(id))!.value;
    expect(host.services.secretBox.open(stored.sealedToken!)).toBe(TOKEN);
    expect(stored.signingKeys.map((k) => host.services.secretBox.open(k.sealed))).toEqual([rotated.signingSecret, data.signingSecret]);
    expect((await host.portal(operator, "POST", `/portal/webhooks/${id}/rotate-signing-secret`, { headers: { "if-match": etag } })).status).toBe(409);

    // A delivery now verifies with either secret, so the receiver can switch when it likes.
    const { eventId } = (await json(await host.portal(operator, "POST", `/portal/webhooks/${id}/test`))).data;
    const got = await waitFor(() => requestsTo(data.webhook).find((r) => r.headers["x-svc-event-id"] === eventId), "the test delivery");
    for (const secret of [rotated.signingSecret, data.signingSecret]) {
      expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    }
    const rotation = (await audits(id)).find((a) => a.activityAction === "Update")!;
    expect(rotation.actorId).toBe(operator.userId);
    expect(JSON.parse(rotation.metadata)).toEqual({ signingSecretRotated: true });
    expect(JSON.stringify(await audits(id))).not.toContain(rotated.signingSecret.slice("whsec_".length));
    // Never shown again.
    expect(await (await host.portal(member, "GET", `/portal/webhooks/${id}`)).text()).not.toContain(rotated.signingSecret);
  });

  it("replaces the endpoint credential (the signing secret stays), by the contract's rules", async () => {
    const { data } = await create();
    const id = data.webhook.id;
    const res = await host.portal(operator, "POST", `/portal/webhooks/${id}/credentials`, { body: { authenticationType: "ApiKey", token: "api-key-93c1f0" } });
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(answer.data).toMatchObject({ webhook: { authenticationType: "ApiKey" }, actions: ["pause"] });
    expect(answer.data.signingSecret).toBeUndefined();
    expect(JSON.stringify(answer)).not.toContain("api-key-93c1f0");
    const stored = (await host.services.stores.webhooks.get(id))!.value;
    expect(host.services.secretBox.open(stored.sealedToken!)).toBe("api-key-93c1f0");
    expect(stored.signingKeys.map((k) => host.services.secretBox.open(k.sealed))).toEqual([data.signingSecret]);
    const change = (await audits(id)).find((a) => a.activityAction === "Update")!;
    expect(change.actorId).toBe(operator.userId);
    expect(JSON.parse(change.metadata)).toEqual({ credentials: true, authenticationType: "ApiKey", signingSecretRotated: false });

    const refused: [Json, string][] = [
      [{ authenticationType: "Basic", token: "no-colon" }, "token"],
      [{ authenticationType: "None", token: "x" }, "token"],
      [{ authenticationType: "Bearer" }, "token"],
      [{ authenticationType: "Bearer", token: "t", signingToken: "0123456789abcdef" }, "signingToken"],
    ];
    for (const [body, field] of refused) {
      const problem = await json(await host.portal(operator, "POST", `/portal/webhooks/${id}/credentials`, { body }));
      expect([problem.code, Object.keys(problem.errors ?? {})], JSON.stringify(body)).toEqual(["VALIDATION_ERROR", [field]]);
    }
    // Cleared with None.
    await host.portal(operator, "POST", `/portal/webhooks/${id}/credentials`, { body: { authenticationType: "None" } });
    expect((await host.services.stores.webhooks.get(id))!.value.sealedToken).toBeNull();
  });
});

describe("a test event and its attempt", () => {
  it("shows the request as sent (credentials and signatures redacted), the sample body that went out, and the receiver's answer", async () => {
    const { data } = await create();
    const id = data.webhook.id;
    // An echo endpoint: it answers with the credential it got, which the log must not keep.
    receiver.respondWith((r) => (r.url === pathOf(data.webhook) ? { status: 202, headers: { "content-type": "application/json" }, body: JSON.stringify({ accepted: true, authorization: r.headers.authorization }) } : {}));
    const res = await host.portal(operator, "POST", `/portal/webhooks/${id}/test`);
    expect(res.status).toBe(202);
    const { eventId, status } = (await json(res)).data;
    expect(status).toBe("Pending");
    const sent = await waitFor(() => requestsTo(data.webhook).find((r) => r.headers["x-svc-event-id"] === eventId), "the test delivery");

    const attempt = await attemptOf(id, eventId);
    expect(attempt).toMatchObject({ eventId, eventType: "webhook.test.v1", isTest: true, status: "Succeeded", statusClass: "2xx", attempt: 1, eventPayload: null });
    expect(attempt.request.url).toBe(data.webhook.url);
    expect(attempt.request.headers).toMatchObject({ Authorization: "[redacted]", "X-Svc-Signature": "[redacted]", "webhook-signature": "[redacted]", "X-Svc-Event-Id": eventId, "X-Svc-Test": "true" });
    // The test event's sample data with its id and time: exactly the bytes the receiver got.
    expect(attempt.request).toMatchObject({ bodySource: "sample", body: sent.body });
    expect(attempt.response).toMatchObject({ httpStatusCode: 202, error: null, body: { excerpt: JSON.stringify({ accepted: true, authorization: "[redacted]" }), truncated: false } });
    expect(attempt.response.durationMs).toEqual(expect.any(Number));
    expect(JSON.stringify(attempt)).not.toContain(TOKEN);
    expect(JSON.stringify(await host.services.stores.deliveryLogs.get(id, attempt.id, attempt.createdAt))).not.toContain(TOKEN);

    const test = (await audits(id)).find((a) => a.activityType === "WebhookDelivery")!;
    expect(test).toMatchObject({ activityAction: "Create", actorId: operator.userId });
    expect(JSON.parse(test.metadata)).toEqual({ test: true, eventId });
  });

  it("keeps at most the first 2 KiB of the answer, and says it was cut", async () => {
    const { data } = await create();
    receiver.respondWith((r) => (r.url === pathOf(data.webhook) ? { status: 500, body: "e".repeat(10_000) } : {}));
    const { eventId } = (await json(await host.portal(admin, "POST", `/portal/webhooks/${data.webhook.id}/test`))).data;
    const attempt = await attemptOf(data.webhook.id, eventId);
    expect(attempt.status).toBe("Failed");
    expect(attempt.response).toMatchObject({ httpStatusCode: 500, body: { excerpt: "e".repeat(RESPONSE_EXCERPT_BYTES), truncated: true } });
    expect(attempt.response.error).toContain("HTTP 500");
  });
});

describe("an event delivery's attempt", () => {
  it("keeps no response body; its body is the event rebuilt from the incident as it is now, and says so", async () => {
    const { data } = await create(operator, { eventTypes: ["incident.status.changed.v1"] });
    receiver.respondWith((r) => (r.url === pathOf(data.webhook) ? { status: 200, body: "answer-of-an-event-delivery" } : {}));
    const ws = host.demo.workspaces[0]!.id;
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Impossible travel", severity: "High" });
    expect((await host.call("PUT", `/workspaces/${ws}/incidents/SourceA/${incident.id}/status`, { body: { status: "Active" } })).status).toBe(204);
    const sent = await waitFor(() => requestsTo(data.webhook)[0], "the status change's delivery");
    const attempt = await attemptOf(data.webhook.id, sent.headers["x-svc-event-id"] as string, operator);
    expect(attempt).toMatchObject({ eventType: "incident.status.changed.v1", status: "Succeeded", isTest: false });
    expect(attempt.response).toMatchObject({ httpStatusCode: 200, body: null });
    // A status change is built from the change itself, which nothing keeps: it cannot be rebuilt.
    expect(attempt.request).toMatchObject({ bodySource: "unavailable", body: null });
    expect(attempt.eventPayload).toMatchObject({ incident: { id: incident.id, status: "Active" } });
    expect(JSON.stringify(await host.services.stores.deliveryLogs.get(data.webhook.id, attempt.id, attempt.createdAt))).not.toContain("answer-of-an-event-delivery");
  });

  it("rebuilds incident.created.v1 with the event's id and time for whoever reads its workspace; withholds it from others; a vanished incident shows no body", async () => {
    const { data } = await create();
    const id = data.webhook.id;
    const ws = host.demo.workspaces[0]!.id;
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Beaconing to a new domain", severity: "Medium" });
    const put = async (eventType: string, ref: IncidentRef): Promise<DeliveryLogRecord> => {
      const createdAt = new Date(Date.now() - HOUR).toISOString();
      const entry: DeliveryLogRecord = {
        id: randomUUID(),
        partitionKey: deliveryLogPartition(id, createdAt),
        webhookConfigurationId: id,
        eventId: randomUUID(),
        eventType,
        eventOccurredAt: new Date(Date.now() - 2 * HOUR).toISOString(),
        status: "Failed",
        httpStatusCode: 503,
        success: false,
        requestUrl: data.webhook.url,
        requestHeaders: { "Content-Type": "application/json", Authorization: "[redacted]" },
        durationMs: 812,
        createdAt,
        redelivered: false,
        attempt: 10,
        isTest: false,
        incident: ref,
        error: "HTTP 503; retries exhausted, dead-lettered",
        ttl: 30 * 86_400,
      };
      await host.services.stores.deliveryLogs.put(entry);
      return entry;
    };
    // Someone of the organization who reads the incident's workspace: an analyst there.
    const reader = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
    const open = async (entry: DeliveryLogRecord, who: TestPerson = reader) =>
      (await json(await host.portal(who, "GET", `/portal/webhooks/${id}/delivery-logs/${entry.id}?createdAt=${encodeURIComponent(entry.createdAt)}`))).data;

    const created = await put("incident.created.v1", { workspaceId: ws, source: "SourceA", incidentId: incident.id });
    const rebuilt = await open(created);
    expect(rebuilt.request.bodySource).toBe("rebuilt");
    expect(JSON.parse(rebuilt.request.body)).toMatchObject({ id: created.eventId, type: "incident.created.v1", occurredAt: created.eventOccurredAt, data: { incidentId: incident.id, title: "Beaconing to a new domain" } });
    expect(rebuilt.response).toEqual({ httpStatusCode: 503, durationMs: 812, error: created.error, body: null });
    expect(rebuilt.eventPayload).toMatchObject({ incident: { id: incident.id } });
    // Someone of the organization with no role on the incident's workspace sees the attempt, not the incident.
    const withheld = await open(created, member);
    expect(withheld).toMatchObject({ request: { bodySource: "withheld", body: null }, response: rebuilt.response, eventPayload: null });
    expect(JSON.stringify(withheld)).not.toContain("Beaconing to a new domain");

    const gone = await open(await put("incident.created.v1", { workspaceId: ws, source: "SourceA", incidentId: "no-such-incident" }));
    expect(gone).toMatchObject({ request: { bodySource: "unavailable", body: null }, eventPayload: null });
    expect((await host.portal(member, "GET", `/portal/webhooks/${id}/delivery-logs/${randomUUID()}?createdAt=${encodeURIComponent(created.createdAt)}`)).status).toBe(404);
  });
});

describe("who may", () => {
  it("only WorkspaceAdmin and Admin configure, test and rotate; anyone of the organization opens an attempt", async () => {
    const { data } = await create();
    const id = data.webhook.id;
    const writes: [string, string, unknown][] = [
      ["POST", "/portal/webhooks", newWebhook()],
      ["PUT", `/portal/webhooks/${id}`, { name: "x", url: data.webhook.url, eventTypes: ["incident.created.v1"], monitoredAccountIds: [] }],
      ["DELETE", `/portal/webhooks/${id}`, undefined],
      ["POST", `/portal/webhooks/${id}/test`, undefined],
      ["POST", `/portal/webhooks/${id}/rotate-signing-secret`, undefined],
      ["POST", `/portal/webhooks/${id}/credentials`, { authenticationType: "None" }],
    ];
    for (const person of [member, agentAdmin]) {
      for (const [method, path, body] of writes) {
        const res = await host.portal(person, method, path, { body });
        expect([method, path, res.status]).toEqual([method, path, 403]);
        expect((await json(res)).target).toBe("organizationalRole");
      }
    }
    const stored = (await host.services.stores.webhooks.get(id))!.value;
    expect(stored).toMatchObject({ name: "SOAR intake", signingKeys: [expect.anything()] });
    expect((await audits(id)).map((a) => a.activityAction)).toEqual(["Create"]);

    const { eventId } = (await json(await host.portal(operator, "POST", `/portal/webhooks/${id}/test`))).data;
    expect((await attemptOf(id, eventId, agentAdmin)).eventId).toBe(eventId);
  });

  it("another organization's webhook does not exist: 404 at webhookId for every route", async () => {
    const { data } = await create();
    const id = data.webhook.id;
    const { eventId } = (await json(await host.portal(operator, "POST", `/portal/webhooks/${id}/test`))).data;
    const entry = await attemptOf(id, eventId);
    for (const [method, path, body] of [
      ["PUT", `/portal/webhooks/${id}`, { name: "x", url: data.webhook.url, eventTypes: ["incident.created.v1"], monitoredAccountIds: [] }],
      ["DELETE", `/portal/webhooks/${id}`, undefined],
      ["POST", `/portal/webhooks/${id}/test`, undefined],
      ["POST", `/portal/webhooks/${id}/rotate-signing-secret`, undefined],
      ["POST", `/portal/webhooks/${id}/credentials`, { authenticationType: "None" }],
      ["GET", `/portal/webhooks/${id}/delivery-logs/${entry.id}?createdAt=${encodeURIComponent(entry.createdAt)}`, undefined],
    ] as const) {
      const res = await host.portal(customer, method, path, { body });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect((await json(res)).target).toBe("webhookId");
    }
    expect((await host.services.stores.webhooks.get(id))!.value.name).toBe("SOAR intake");
  });
});
