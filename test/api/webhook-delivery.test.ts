import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { verifyWebhookSignature } from "../../shared/platform/delivery/verify-webhook-signature";
import { incidentCreatedData } from "../../shared/domain/incidents/incident-events";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from "../support/https-receiver";
import { waitFor } from "../support/wait-for";
import { startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 30_000 });

let receiver: HttpsReceiver;
let host: TestHost;
let ws: string;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
  host = await startTestHost({
    webhookCa: receiver.certificate,
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_RETRY_BACKOFF_MS: "150",
      WEBHOOK_RETRY_WINDOW_MS: "4000",
      WEBHOOK_TIMEOUT_MS: "1500",
    },
  });
  ws = host.demo.workspaces[0]!.id;
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});
beforeEach(() => receiver.reset());

async function createWebhook(over: Json = {}): Promise<Json> {
  const res = await host.call("POST", "/webhooks", {
    body: { name: "receiver", url: receiver.url(`/hook/${Math.random().toString(36).slice(2)}`, "127.0.0.1"), eventTypes: ["incident.status.changed.v1", "incident.closed.v1"], ...over },
  });
  const body = await json(res);
  if (res.status !== 201) throw new Error(JSON.stringify(body));
  return body.data;
}

const requestsTo = (webhook: Json) => receiver.requests.filter((r) => webhook.url.endsWith(r.url));
const typeOf = (r: ReceivedRequest) => JSON.parse(r.body).type as string;

function newIncident(workspaceId = ws): VendorIncident {
  return host.simulated.vendors.createIncident("SourceA", workspaceId, { title: "Beaconing to known C2", severity: "High" });
}
const statusPath = (i: VendorIncident) => `/workspaces/${i.workspaceId}/incidents/SourceA/${i.id}/status`;

async function logsOf(webhook: Json): Promise<Json[]> {
  return (await json(await host.call("GET", `/webhooks/${webhook.id}/delivery-logs?pageSize=200`))).data;
}

describe("delivery of incident events", () => {
  it("a close delivers status.changed and closed, signed so that standardwebhooks and the X-Svc scheme both verify", async () => {
    const webhook = await createWebhook({ authenticationType: "Bearer", token: "receiver-bearer-token" });
    const incident = newIncident();
    const res = await host.call("PUT", statusPath(incident), { body: { status: "Closed", classification: "TruePositive", closingComment: "Blocked the C2 domain." } });
    expect(res.status).toBe(204);
    const got = await waitFor(() => requestsTo(webhook).length >= 2 && requestsTo(webhook), "two deliveries");
    expect(got.map(typeOf).sort()).toEqual(["incident.closed.v1", "incident.status.changed.v1"]);

    for (const request of got) {
      const envelope = JSON.parse(request.body);
      expect(request.headers["x-svc-event-id"]).toBe(envelope.id);
      expect(request.headers["webhook-id"]).toBe(envelope.id);
      expect(request.headers["x-svc-event-type"]).toBe(envelope.type);
      expect(request.headers["x-svc-schema"]).toEqual(expect.any(String));
      expect(request.headers.authorization).toBe("Bearer receiver-bearer-token");
      expect(request.headers["x-svc-test"]).toBeUndefined();
      expect(envelope.data.incidentId).toBe(incident.id);
      expect(envelope.occurredAt).toEqual(expect.any(String));
      // As a receiver would: the Standard Webhooks library, and the shipped helper on the X-Svc headers.
      expect(() => new Webhook(webhook.signingSecret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
      const svcOnly = { "x-svc-timestamp": request.headers["x-svc-timestamp"], "x-svc-signature": request.headers["x-svc-signature"], "x-svc-event-id": request.headers["x-svc-event-id"] };
      expect(verifyWebhookSignature({ headers: svcOnly, body: request.body, secret: webhook.signingSecret })).toMatchObject({ ok: true });
    }
    const [a, b] = got.map((r) => JSON.parse(r.body).id);
    expect(a).not.toBe(b);

    const logs = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length >= 2 && l.every((e) => e.status === "Succeeded") && l;
    }, "two Succeeded log entries");
    for (const entry of logs) {
      expect(entry).toMatchObject({ success: true, httpStatusCode: 200, eventPayload: null, requestBody: "", responseBody: "", redelivered: false });
      expect(entry.requestHeaders.Authorization).toBe("[redacted]");
      expect(entry.requestHeaders["X-Svc-Signature"]).toBe("[redacted]");
      expect(entry.requestHeaders["webhook-signature"]).toBe("[redacted]");
      expect(JSON.stringify(entry)).not.toContain("receiver-bearer-token");
    }
    const one = await json(await host.call("GET", `/webhooks/${webhook.id}/delivery-logs/${logs[0]!.id}?createdAt=${encodeURIComponent(logs[0]!.createdAt)}`));
    expect(one.data.eventPayload).toMatchObject({ source: "SourceA", incident: { id: incident.id, status: "Closed" } });
  });

  it("routes by subscription and account: another customer's events and unsubscribed types do not arrive", async () => {
    const [fabrikam, northwind] = host.demo.customers as unknown as [Json, Json];
    const onlyNorthwind = await createWebhook({ monitoredAccountIds: [northwind.id] });
    const assigneeOnly = await createWebhook({ eventTypes: ["incident.assignee.changed.v1"] });
    const everything = await createWebhook();
    const fabrikamWs = host.demo.workspaces.find((w) => w.accountId === fabrikam.id)!.id;
    const incident = newIncident(fabrikamWs);
    expect((await host.call("PUT", statusPath(incident), { body: { status: "Active" } })).status).toBe(204);
    await waitFor(() => requestsTo(everything).length >= 1, "the provider-wide webhook's delivery");
    await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 5000 });
    await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 5000 });
    expect(requestsTo(onlyNorthwind)).toEqual([]);
    expect(requestsTo(assigneeOnly)).toEqual([]);
  });
});

describe("retries and failures", () => {
  it("retries 503 with the same event id, then succeeds; every attempt is logged", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.status.changed.v1"] });
    // Other tests' webhooks get these events too: script this webhook's answers only.
    let calls = 0;
    receiver.respondWith((r) => {
      if (!webhook.url.endsWith(r.url)) return {};
      calls++;
      return calls === 1 ? { status: 503 } : calls === 2 ? { status: 503, headers: { "Retry-After": "0" } } : {};
    });
    const incident = newIncident();
    await host.call("PUT", statusPath(incident), { body: { status: "Active" } });
    const got = await waitFor(() => requestsTo(webhook).length >= 3 && requestsTo(webhook), "three attempts");
    expect(new Set(got.map((r) => r.headers["x-svc-event-id"])).size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const logs = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length === 3 && l;
    }, "three log entries");
    expect(logs.map((e) => [e.attempt, e.status, e.httpStatusCode]).sort()).toEqual([
      [1, "Failed", 503],
      [2, "Failed", 503],
      [3, "Succeeded", 200],
    ]);
    // And one log line per attempt, with its outcome: what the operations workbook counts.
    const lines = host.logs.filter((l) => l.message === "webhook delivery attempt" && l.fields.webhookId === webhook.id);
    expect(lines.map((l) => [l.fields.attempt, l.fields.outcome, l.fields.httpStatus]).sort()).toEqual([
      [1, "retry", 503],
      [2, "retry", 503],
      [3, "succeeded", 200],
    ]);
    expect(lines[0]!.fields).toMatchObject({ eventId: got[0]!.headers["x-svc-event-id"], eventType: "incident.status.changed.v1", isTest: false, durationMs: expect.any(Number) });
  });

  it("a permanent status (400) is not retried", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.status.changed.v1"] });
    receiver.respondWith((r) => (webhook.url.endsWith(r.url) ? { status: 400 } : {}));
    await host.call("PUT", statusPath(newIncident()), { body: { status: "Active" } });
    const logs = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length >= 1 && l;
    }, "a log entry");
    await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 5000 });
    expect(requestsTo(webhook).length).toBe(1);
    expect(logs[0]).toMatchObject({ status: "Failed", httpStatusCode: 400, success: false });
    expect(logs[0]!.error).toContain("not retried");
  });

  it("five distinct incidents failing final delivery disable the webhook; test events never count", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.status.changed.v1"] });
    receiver.respondWith((r) => (webhook.url.endsWith(r.url) ? { status: 410 } : {}));
    for (let i = 0; i < 6; i++) expect((await host.call("POST", `/webhooks/${webhook.id}/test`)).status).toBe(202);
    await waitFor(() => requestsTo(webhook).length >= 6, "six test deliveries");
    await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 5000 });
    expect((await json(await host.call("GET", `/webhooks/${webhook.id}`))).data.status).toBe("Active");

    for (let i = 0; i < 4; i++) await host.call("PUT", statusPath(newIncident()), { body: { status: "Active" } });
    await waitFor(() => requestsTo(webhook).length >= 10, "four incident deliveries");
    await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 5000 });
    expect((await json(await host.call("GET", `/webhooks/${webhook.id}`))).data.status).toBe("Active");

    await host.call("PUT", statusPath(newIncident()), { body: { status: "Active" } });
    const disabled = await waitFor(async () => {
      const w = (await json(await host.call("GET", `/webhooks/${webhook.id}`))).data;
      return w.status === "Disabled" && w;
    }, "auto-disable");
    expect(disabled.disableReason).toContain("5 distinct incidents");
    expect(disabled.disabledAt).toEqual(expect.any(String));

    // Deliveries stop.
    const before = requestsTo(webhook).length;
    await host.call("PUT", statusPath(newIncident()), { body: { status: "Active" } });
    await host.services.events.inProcess!.events.idle({ timeoutMs: 5000 });
    await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 5000 });
    expect(requestsTo(webhook).length).toBe(before);
    // Enabled again, it delivers.
    receiver.respondWith({});
    expect((await json(await host.call("POST", `/webhooks/${webhook.id}/enable`))).data.status).toBe("Active");
    await host.call("PUT", statusPath(newIncident()), { body: { status: "Active" } });
    await waitFor(() => requestsTo(webhook).length > before, "a delivery after enable");
  });
});

describe("pause, test events, redelivery", () => {
  it("a paused webhook holds deliveries as Pending and sends them on resume", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.status.changed.v1"] });
    expect((await host.call("POST", `/webhooks/${webhook.id}/pause`)).status).toBe(200);
    await host.call("PUT", statusPath(newIncident()), { body: { status: "Active" } });
    const held = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length === 1 && l[0];
    }, "a Pending entry");
    expect(held.status).toBe("Pending");
    expect(requestsTo(webhook)).toEqual([]);
    expect((await host.call("POST", `/webhooks/${webhook.id}/resume`)).status).toBe(200);
    await waitFor(() => requestsTo(webhook).length === 1, "the held delivery after resume");
    const logs = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length === 1 && l[0]!.status === "Succeeded" && l;
    }, "the held entry completed");
    expect(logs[0]!.id).toBe(held.id);
  });

  it("a redelivery to a paused webhook is held and sent after resume", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.created.v1"] });
    receiver.respondWith((r) => (webhook.url.endsWith(r.url) ? { status: 400 } : {}));
    const incident = newIncident();
    const envelope = { id: "0c7f3f2e-58a1-4c7a-9b0e-3d2f1a6b8c90", type: "incident.created.v1", occurredAt: "2026-11-20T11:00:00.000Z", data: incidentCreatedData(incident, host.demo.workspaces[0]!.accountId, null) };
    await host.services.events.events.send([{ messageId: envelope.id, body: { envelope, accountId: host.demo.workspaces[0]!.accountId, incident: { workspaceId: ws, source: "SourceA", incidentId: incident.id } } }]);
    const [failed] = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length === 1 && l[0]!.status === "Failed" && l;
    }, "the failed entry");
    receiver.respondWith({});
    expect((await host.call("POST", `/webhooks/${webhook.id}/pause`)).status).toBe(200);
    expect((await host.call("POST", `/webhooks/${webhook.id}/delivery-logs/${failed!.id}/redeliver?createdAt=${encodeURIComponent(failed!.createdAt)}`)).status).toBe(202);
    await waitFor(async () => (await logsOf(webhook)).some((e) => e.redelivered && e.status === "Pending"), "the held redelivery");
    expect((await host.call("POST", `/webhooks/${webhook.id}/resume`)).status).toBe(200);
    await waitFor(async () => (await logsOf(webhook)).some((e) => e.redelivered && e.status === "Succeeded"), "the redelivery after resume");
    expect(host.services.events.inProcess!.deliveries.deadLetters()).toEqual([]);
  });

  it("delivery logs: a far-future `to` is now, a malformed log id is 400", async () => {
    const webhook = await createWebhook();
    const res = await host.call("GET", `/webhooks/${webhook.id}/delivery-logs?to=9999-12-31T00:00:00Z`);
    expect(res.status).toBe(200);
    expect((await json(await host.call("GET", `/webhooks/${webhook.id}/delivery-logs/not%23a-guid?createdAt=2026-01-01T00:00:00Z`))).code).toBe("VALIDATION_ERROR");
  });

  it("POST /test sends webhook.test.v1 with isTest and X-Svc-Test, to that webhook only", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.closed.v1"] });
    const accepted = await json(await host.call("POST", `/webhooks/${webhook.id}/test`));
    expect(accepted.data).toMatchObject({ eventId: expect.any(String), status: "Pending" });
    const [request] = await waitFor(() => requestsTo(webhook).length === 1 && requestsTo(webhook), "the test delivery");
    const envelope = JSON.parse(request!.body);
    expect(envelope).toMatchObject({ id: accepted.data.eventId, type: "webhook.test.v1", isTest: true });
    expect(envelope.data.vendorIdentifiers.sourceA).toBeDefined();
    expect(request!.headers["x-svc-test"]).toBe("true");
  });

  it("redeliver: only a Failed incident.created.v1, rebuilt with the same id and occurredAt; others are 409 or 422", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.created.v1", "incident.status.changed.v1"] });
    receiver.respondWith((r) => (webhook.url.endsWith(r.url) ? { status: 400 } : {}));
    const incident = newIncident();
    const envelope = { id: "6f8c1e52-3a0b-4c8e-9d2f-7b1a0c9e4d31", type: "incident.created.v1", occurredAt: "2026-11-20T10:00:00.000Z", data: incidentCreatedData(incident, host.demo.workspaces[0]!.accountId, null) };
    await host.services.events.events.send([{ messageId: envelope.id, body: { envelope, accountId: host.demo.workspaces[0]!.accountId, incident: { workspaceId: ws, source: "SourceA", incidentId: incident.id } } }]);
    await host.call("PUT", statusPath(incident), { body: { status: "Active" } });
    const logs = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length === 2 && l;
    }, "two failed entries");
    const created = logs.find((e) => e.eventType === "incident.created.v1")!;
    const changed = logs.find((e) => e.eventType === "incident.status.changed.v1")!;
    const redeliver = (e: Json) => host.call("POST", `/webhooks/${webhook.id}/delivery-logs/${e.id}/redeliver?createdAt=${encodeURIComponent(e.createdAt)}`);

    const wrongType = await redeliver(changed);
    expect(wrongType.status).toBe(422);
    expect((await json(wrongType)).code).toBe("VALIDATION_ERROR");

    receiver.respondWith({});
    expect((await redeliver(created)).status).toBe(202);
    await waitFor(() => requestsTo(webhook).filter((r) => typeOf(r) === "incident.created.v1").length === 2, "the redelivery");
    const sent = requestsTo(webhook).filter((r) => typeOf(r) === "incident.created.v1").map((r) => JSON.parse(r.body));
    expect(sent[1]).toMatchObject({ id: envelope.id, occurredAt: envelope.occurredAt, data: { incidentId: incident.id, status: "Active" } });
    const newest = await waitFor(async () => (await logsOf(webhook)).find((e) => e.redelivered && e.status === "Succeeded"), "a Succeeded redelivery entry");
    expect((await json(await redeliver(newest))).code).toBe("CONFLICT");
    expect((await json(await host.call("POST", `/webhooks/${webhook.id}/delivery-logs/${created.id}/redeliver`))).code).toBe("VALIDATION_ERROR");
  });

  it("redeliver again: an entry already redelivered, and a redelivery that failed, can each be sent again, under the same event id", async () => {
    const webhook = await createWebhook({ eventTypes: ["incident.created.v1"] });
    receiver.respondWith((r) => (webhook.url.endsWith(r.url) ? { status: 400 } : {}));
    const incident = newIncident();
    const envelope = { id: randomUUID(), type: "incident.created.v1", occurredAt: "2026-11-20T10:00:00.000Z", data: incidentCreatedData(incident, host.demo.workspaces[0]!.accountId, null) };
    await host.services.events.events.send([{ messageId: envelope.id, body: { envelope, accountId: host.demo.workspaces[0]!.accountId, incident: { workspaceId: ws, source: "SourceA", incidentId: incident.id } } }]);
    const [original] = await waitFor(async () => {
      const l = await logsOf(webhook);
      return l.length === 1 && l[0]!.status === "Failed" && l;
    }, "the failed delivery");
    const redeliver = (e: Json) => host.call("POST", `/webhooks/${webhook.id}/delivery-logs/${e.id}/redeliver?createdAt=${encodeURIComponent(e.createdAt)}`);
    const failedRedeliveries = async (n: number, what: string) =>
      waitFor(async () => {
        const l = (await logsOf(webhook)).filter((e) => e.redelivered && e.status === "Failed");
        return l.length === n && l;
      }, what);

    expect((await redeliver(original!)).status).toBe(202);
    const [first] = await failedRedeliveries(1, "the first redelivery, failed");
    // The entry redelivered once is still the failure it was: it can be sent again.
    expect((await redeliver(original!)).status).toBe(202);
    await failedRedeliveries(2, "the second redelivery of the same entry");
    // And so can a redelivery that failed.
    expect((await redeliver(first!)).status).toBe(202);
    await failedRedeliveries(3, "the redelivery of a redelivery");
    const sent = requestsTo(webhook).map((r) => JSON.parse(r.body));
    expect(sent.map((e) => e.id)).toEqual([envelope.id, envelope.id, envelope.id, envelope.id]);
  });
});
