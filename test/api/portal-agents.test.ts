import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { agentInvestigationCompletedData } from "../../shared/model/events/event-catalogue";
import type { WebhookRecord } from "../../shared/model/webhooks/webhook";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { outboxEvents } from "../support/outbox";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

let receiver: HttpsReceiver;
let host: TestHost;
/** fabrikam-sentinel-prod, of the customer Fabrikam Retail, managed by the provider. */
let ws: string;
let fabrikamId: string;
let agentAdmin: TestPerson;
let agent: { clientId: string; clientSecret: string };
let subscribed: Json;
let unsubscribed: Json;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  host = await startTestHost({ webhookCa: receiver.certificate, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  const workspace = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!;
  ws = workspace.id;
  fabrikamId = workspace.accountId;
  agentAdmin = await host.person({ organizationalRole: "AgentAdmin", workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
  // The provider's webhooks (the admin's account), which receive its customers' events.
  const webhook = async (name: string, eventTypes: string[]) =>
    (await json(await host.call("POST", "/webhooks", { body: { name, url: receiver.url(`/${name}`, "127.0.0.1"), eventTypes } }))).data;
  subscribed = await webhook("agent-verdicts", ["agent.investigation.completed.v1"]);
  unsubscribed = await webhook("closures-only", ["incident.closed.v1"]);
  agent = await createServiceAccount(host, { name: "Investigation agent", scopes: ["incidents:write"], workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});
beforeEach(() => receiver.reset());

const configPath = (workspaceId = ws) => `/portal/workspaces/${workspaceId}/agent-configuration`;
const reportPath = (incidentId: string) => `/workspaces/${ws}/incidents/SourceB/${incidentId}/agent-investigations`;

async function settle(): Promise<void> {
  await host.services.events.inProcess!.events.idle({ timeoutMs: 10_000 });
  await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 10_000 });
}

async function audited(activityType: string): Promise<Json[]> {
  await host.auditSequenced(ws);
  const body = await json(await host.call("GET", `/workspaces/${ws}/export/audit?pageSize=1000`));
  return body.value.filter((e: Json) => e.activityType === activityType);
}

async function newIncident(title = "Beacon to a rare domain from FAB-WS-0042"): Promise<string> {
  const res = await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents`, { title, severity: "High" });
  return (await json(res)).data.id;
}

/** A webhook written straight to the store: of another account, or monitoring only some. */
async function storedWebhook(id: string, fields: Partial<WebhookRecord>): Promise<void> {
  const template = (await host.services.stores.webhooks.get(subscribed.id))!.value;
  await host.services.stores.webhooks.create({ ...template, id, name: `Webhook ${id.slice(0, 4)}`, ...fields });
}

describe("the agent configuration in the portal", () => {
  it("answers the defaults, without an ETag, while the workspace has none", async () => {
    const res = await host.portal(agentAdmin, "GET", configPath());
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeNull();
    expect((await json(res)).data).toEqual({ workspaceId: ws, agentName: "Triage agent", cards: [], updatedAt: null });
  });

  it("binds webhooks to classification cards, says which subscribe to the event, and audits each change with the person as actor", async () => {
    const body = {
      agentName: "Fabrikam triage agent",
      cards: [
        { classification: "TruePositive", webhookIds: [subscribed.id, unsubscribed.id.toUpperCase()] },
        { classification: "FalsePositive", webhookIds: [] },
      ],
    };
    const res = await host.portal(agentAdmin, "PUT", configPath(), { body });
    expect(res.status).toBe(200);
    const etag = res.headers.get("etag");
    expect(etag).toBeTruthy();
    const { data } = await json(res);
    expect(data.cards[0]).toEqual({
      classification: "TruePositive",
      webhookIds: [subscribed.id, unsubscribed.id],
      webhooks: [
        { id: subscribed.id, name: "agent-verdicts", status: "Active", subscribed: true },
        { id: unsubscribed.id, name: "closures-only", status: "Active", subscribed: false },
      ],
    });
    expect((await json(await host.portal(agentAdmin, "GET", configPath()))).data).toEqual(data);

    const changed = await host.portal(agentAdmin, "PUT", configPath(), { body: { ...body, cards: [body.cards[0]] }, headers: { "if-match": etag! } });
    expect(changed.status).toBe(200);
    const events = await audited("AgentConfiguration");
    expect(events.map((e) => e.activityAction)).toEqual(["Create", "Update"]);
    expect(events[1]).toMatchObject({ actorId: agentAdmin.userId, actorName: agentAdmin.name, targetResourceId: ws, discriminator: "Workspace" });
    expect(JSON.parse(events[1]!.metadata).before.cards).toHaveLength(2);

    const stale = await host.portal(agentAdmin, "PUT", configPath(), { body, headers: { "if-match": etag! } });
    expect(stale.status).toBe(409);
  });

  it("refuses cards that cannot hold, every problem at its place, and changes nothing", async () => {
    const northwind = host.demo.customers.find((c) => c.id !== fabrikamId)!;
    const otherCustomers = "b1000000-0000-4000-8000-000000000001";
    const elsewhere = "b1000000-0000-4000-8000-000000000002";
    await storedWebhook(otherCustomers, { targetAccountId: northwind.id, targetAccountName: northwind.name });
    await storedWebhook(elsewhere, { monitoredAccountIds: [northwind.id] });
    const before = (await json(await host.portal(agentAdmin, "GET", configPath()))).data;
    const res = await host.portal(agentAdmin, "PUT", configPath(), {
      body: {
        cards: [
          { classification: "TruePositive", webhookIds: [subscribed.id, "00000000-0000-4000-8000-00000000dead", subscribed.id] },
          { classification: "BenignPositive", webhookIds: [otherCustomers, elsewhere] },
          { classification: "TruePositive", webhookIds: [] },
        ],
      },
    });
    expect(res.status).toBe(400);
    const problem = await json(res);
    expect(problem.code).toBe("VALIDATION_ERROR");
    expect(problem.errors).toEqual({
      "cards[0].webhookIds[1]": ["No webhook of your organization has this id."],
      "cards[0].webhookIds[2]": ["Named twice on this card."],
      "cards[1].webhookIds[0]": [expect.stringContaining("does not receive this workspace's events")],
      "cards[1].webhookIds[1]": [expect.stringContaining("monitoredAccountIds")],
      "cards[2].classification": [expect.stringContaining("one card per classification")],
    });
    expect((await json(await host.portal(agentAdmin, "GET", configPath()))).data).toEqual(before);
  });

  it("does not let a customer's person bind the provider's webhook, which they cannot see, but keeps one already bound", async () => {
    const customerAdmin = await host.person({ organizationalRole: "AgentAdmin", accountId: fabrikamId, workspaceAssignments: [{ workspaceId: ws, role: "Owner" }] });
    const view = (await json(await host.portal(customerAdmin, "GET", configPath()))).data;
    // Bound by the provider: shown without its details.
    expect(view.cards[0].webhooks[0]).toEqual({ id: subscribed.id, name: null, status: null, subscribed: null });
    const kept = await host.portal(customerAdmin, "PUT", configPath(), { body: { agentName: "Renamed by the customer", cards: [{ classification: "TruePositive", webhookIds: view.cards[0].webhookIds }] } });
    expect(kept.status).toBe(200);
    const added = await host.portal(customerAdmin, "PUT", configPath(), { body: { cards: [{ classification: "Undetermined", webhookIds: [subscribed.id] }, { classification: "TruePositive", webhookIds: [] }] } });
    expect(added.status).toBe(200);
    const refused = await host.portal(customerAdmin, "PUT", configPath(), { body: { cards: [{ classification: "Undetermined", webhookIds: [unsubscribed.id] }] } });
    expect(refused.status).toBe(400);
    expect((await json(refused)).errors["cards[0].webhookIds[0]"]).toEqual(["No webhook of your organization has this id."]);
  });
});

describe("the agent's report of a completed investigation", () => {
  it("sends agent.investigation.completed.v1 to the card's subscribed webhooks, records the unsubscribed one Failed, and audits the report", async () => {
    expect((await host.portal(agentAdmin, "PUT", configPath(), { body: { agentName: "Fabrikam triage agent", cards: [{ classification: "TruePositive", webhookIds: [subscribed.id, unsubscribed.id] }] } })).status).toBe(200);
    const incidentId = await newIncident();
    const investigationId = "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d";
    const res = await host.call("POST", reportPath(incidentId), { auth: agent, body: { investigationId, classification: "TruePositive", maliciousScore: 91, summary: "C2 beaconing confirmed." } });
    expect(res.status).toBe(202);
    const { data } = await json(res);
    expect(data).toEqual({ investigationId, eventId: expect.any(String), webhookIds: [subscribed.id, unsubscribed.id] });
    await settle();
    const delivered = receiver.requests.filter((r) => r.url === "/agent-verdicts").map((r) => JSON.parse(r.body));
    expect(delivered).toHaveLength(1);
    expect(delivered[0].id).toBe(data.eventId);
    expect(agentInvestigationCompletedData.parse(delivered[0].data)).toMatchObject({
      investigationId,
      incidentId,
      agentName: "Fabrikam triage agent",
      classificationBucket: "TruePositive",
      verdict: { maliciousScore: 91, summary: "C2 beaconing confirmed." },
    });
    expect(receiver.requests.filter((r) => r.url === "/closures-only")).toEqual([]);
    const logs = (await json(await host.call("GET", `/webhooks/${unsubscribed.id}/delivery-logs`))).data;
    expect(logs[0]).toMatchObject({ status: "Failed", eventType: "agent.investigation.completed.v1" });

    const [report] = (await audited("AgentInvestigation")).filter((e) => e.targetResourceId === incidentId);
    expect(report).toMatchObject({ actorId: agent.clientId, actorName: "Investigation agent", activityAction: "Create", targetResourceType: "Incident" });
    expect(JSON.parse(report!.metadata)).toMatchObject({ investigationId, classification: "TruePositive", maliciousScore: 91, eventId: data.eventId });
  });

  it("is the same event when the agent reports the same investigation again, and none for a classification without a card", async () => {
    const incidentId = await newIncident();
    const body = { investigationId: "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9", classification: "TruePositive" };
    const first = (await json(await host.call("POST", reportPath(incidentId), { auth: agent, body }))).data;
    const again = (await json(await host.call("POST", reportPath(incidentId), { auth: agent, body }))).data;
    expect(again.eventId).toBe(first.eventId);
    const events = (await outboxEvents(host.services, ws)).filter((e) => e.type === "agent.investigation.completed.v1" && e.data.incidentId === incidentId);
    expect(events.map((e) => e.id)).toEqual([first.eventId]);
    expect((events[0]!.data as Json).verdict).toEqual({ maliciousScore: null, summary: null });

    const none = (await json(await host.call("POST", reportPath(incidentId), { auth: agent, body: { classification: "Undetermined" } }))).data;
    expect(none).toEqual({ investigationId: expect.any(String), eventId: null, webhookIds: [] });
  });

  it("needs incidents:write and a role on the workspace, an incident that exists, and only the documented fields", async () => {
    const incidentId = await newIncident();
    const reader = await createServiceAccount(host, { name: "Reader", scopes: ["incidents:read"], workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
    expect((await json(await host.call("POST", reportPath(incidentId), { auth: reader, body: { classification: "TruePositive" } }))).code).toBe("INSUFFICIENT_SCOPE");
    const elsewhere = await createServiceAccount(host, { name: "Elsewhere", scopes: ["incidents:write"], workspaceAssignments: [] });
    expect((await json(await host.call("POST", reportPath(incidentId), { auth: elsewhere, body: { classification: "TruePositive" } }))).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
    expect((await host.call("POST", reportPath("no-such-incident"), { auth: agent, body: { classification: "TruePositive" } })).status).toBe(404);
    const extra = await host.call("POST", reportPath(incidentId), { auth: agent, body: { classification: "TruePositive", maliciousScore: 101, agentName: "x" } });
    expect(extra.status).toBe(400);
    expect(Object.keys((await json(extra)).errors).sort()).toEqual(["agentName", "maliciousScore"]);
  });

  it("the local console's investigation control reports through the same operation", async () => {
    const incidentId = await newIncident();
    const res = await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${incidentId}/investigation`, { classification: "TruePositive", maliciousScore: 40 });
    expect(res.status).toBe(202);
    const { data } = await json(res);
    expect(data.eventId).toEqual(expect.any(String));
    const [report] = (await audited("AgentInvestigation")).filter((e) => e.targetResourceId === incidentId);
    expect(report).toMatchObject({ actorName: "Triage agent", activityAction: "Create" });
  });
});
