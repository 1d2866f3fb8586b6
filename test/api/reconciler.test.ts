import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { stateIdOf } from "../../shared/domain/incidents/incident-state";
import { agentInvestigationCompletedData, incidentCommentAddedData } from "../../shared/model/events/event-catalogue";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { outboxEvents } from "../support/outbox";
import { startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

// A clock the test moves: the simulated vendors, the service and the reconciler all read it.
let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);
const advance = (ms: number) => (clock += ms);

let receiver: HttpsReceiver;
let host: TestHost;
let ws: string;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
  host = await startTestHost({ now, webhookCa: receiver.certificate, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", SIMULATED_INCIDENTS_PER_WORKSPACE: "60" } });
  ws = host.demo.workspaces[0]!.id;
  await host.call("POST", "/webhooks", {
    body: { name: "ingest", url: receiver.url("/reconciler", "127.0.0.1"), eventTypes: ["incident.created.v1", "incident.closed.v1", "incident.status.changed.v1"] },
  });
  // The first pass sets every workspace's baseline: incidents already there are not "new".
  await json(await host.local("POST", "/reconcile"));
  advance(60_000);
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});
beforeEach(() => receiver.reset());

async function settle(): Promise<void> {
  await host.services.events.inProcess!.events.idle({ timeoutMs: 10_000 });
  await host.services.events.inProcess!.deliveries.idle({ timeoutMs: 10_000 });
}
const delivered = (type: string, incidentId: string) =>
  receiver.requests.map((r) => JSON.parse(r.body)).filter((e) => e.type === type && e.data.incidentId === incidentId);

async function createInConsole(title: string): Promise<string> {
  const res = await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents`, { title, severity: "High" });
  expect(res.status).toBe(201);
  return (await json(res)).data.id;
}

describe("reconciler", () => {
  it("ingests a new incident with exactly one incident.created.v1 across overlapping passes", async () => {
    const id = await createInConsole("Ransomware note dropped on FILESRV-02");
    advance(30_000);
    const first = (await json(await host.local("POST", "/reconcile"))).data;
    expect(first.created).toBe(1);
    advance(30_000); // inside the overlap: the next window sees the incident again
    const second = (await json(await host.local("POST", "/reconcile"))).data;
    expect(second.created).toBe(0);
    await settle();
    const created = delivered("incident.created.v1", id);
    expect(created.length).toBe(1);
    expect(created[0].data).toMatchObject({ incidentId: id, source: "sourceb", workspaceId: ws, title: "Ransomware note dropped on FILESRV-02" });
    expect(created[0].data).not.toHaveProperty("owner");
    expect(created[0].data.vendorIdentifiers.sourceB).toBeDefined();
    // One event in the outbox too: a repeat of the same subject would have the same id and replace it.
    const events = await outboxEvents(host.services, ws);
    expect(events.filter((e) => e.type === "incident.created.v1" && e.data.incidentId === id)).toHaveLength(1);
  });

  it("an incident created in the very millisecond a pass starts is left to the next pass, which ingests it", async () => {
    const id = await createInConsole("Credential dumping on DC-03");
    // No time passes: the window ends at the pass's start, that millisecond excluded.
    const same = (await json(await host.local("POST", "/reconcile"))).data;
    expect(same.created).toBe(0);
    expect(await host.services.stores.incidents.getMany(ws, [stateIdOf("SourceB", id)])).toEqual([]);
    advance(30_000);
    const next = (await json(await host.local("POST", "/reconcile"))).data;
    expect(next.created).toBe(1);
    expect((await host.services.stores.incidents.getMany(ws, [stateIdOf("SourceB", id)]))[0]?.value.id).toBe(stateIdOf("SourceB", id));
  });

  it("the pass summary counts every event its sources published, when both sources change at once", async () => {
    for (const source of ["SourceA", "SourceB", "SourceA", "SourceB"]) {
      const res = await host.local("POST", `/sources/${source}/workspaces/${ws}/incidents`, { title: `Beaconing to a new domain (${source})`, severity: "Medium" });
      expect(res.status).toBe(201);
    }
    advance(10_000);
    const pass = (await json(await host.local("POST", "/reconcile"))).data;
    expect(pass.created).toBe(4);
    expect(pass.eventsPublished).toBe(4);
  });

  it("a close made in the vendor console fires status.changed and closed with upstream origins and different ids", async () => {
    const id = await createInConsole("Impossible travel for CFO");
    advance(10_000);
    await host.local("POST", "/reconcile");
    advance(10_000);
    const close = await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${id}/close`, { classification: "FalsePositive", closingComment: "VPN egress." });
    expect(close.status).toBe(204);
    advance(10_000);
    const pass = (await json(await host.local("POST", "/reconcile"))).data;
    expect(pass.closed).toBe(1);
    await settle();
    const [changed] = delivered("incident.status.changed.v1", id);
    const [closed] = delivered("incident.closed.v1", id);
    expect(changed.data).toMatchObject({ status: "Closed", changedBy: { origin: "upstream" } });
    expect(closed.data).toMatchObject({ classification: "FalsePositive", closingComment: "VPN egress.", closedBy: { origin: "upstream" } });
    expect(changed.id).not.toBe(closed.id);
    const view = (await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceB/${id}`))).data;
    expect(view).toMatchObject({ incident: { status: "Closed" }, serviceStatus: "Closed", sla: { state: "Stopped" } });
  });

  it("a console close of an incident that was already open when the service first looked is a close too", async () => {
    const page = await host.services.sources.gateway("SourceA").listIncidents({
      workspaceId: ws, field: "createdAt", from: new Date(0).toISOString(), to: now().toISOString(), limit: 1, filters: { statuses: ["New", "Active"] },
    });
    const old = page.items[0]!;
    expect(old.createdAt < now().toISOString()).toBe(true);
    advance(10_000);
    await host.local("POST", `/sources/SourceA/workspaces/${ws}/incidents/${old.id}/close`, { classification: "TruePositive" });
    advance(10_000);
    const pass = (await json(await host.local("POST", "/reconcile"))).data;
    expect(pass.closed).toBe(1);
    await settle();
    expect(delivered("incident.closed.v1", old.id).map((e) => e.data.closedBy.origin)).toEqual(["upstream"]);
    expect(delivered("incident.created.v1", old.id)).toEqual([]);
  });

  it("a close made through the API and then seen by the reconciler fires nothing twice", async () => {
    const id = await createInConsole("Mass download from SharePoint");
    advance(10_000);
    await host.local("POST", "/reconcile");
    expect((await host.call("PUT", `/workspaces/${ws}/incidents/SourceB/${id}/status`, { body: { status: "Closed", classification: "TruePositive" } })).status).toBe(204);
    advance(10_000);
    const pass = (await json(await host.local("POST", "/reconcile"))).data;
    expect(pass.closed).toBe(0);
    await settle();
    expect(delivered("incident.closed.v1", id).length).toBe(1);
    expect(delivered("incident.status.changed.v1", id).length).toBe(1);
    expect(delivered("incident.closed.v1", id)[0].data.closedBy.origin).toBe("api");
  });

  it("a crash between store and publish is repaired by the next pass", async () => {
    const id = await createInConsole("Credential dumping via LSASS access");
    advance(10_000);
    const relay = host.services.events.outbox;
    const publish = vi.spyOn(relay, "publish").mockResolvedValue(0); // the process "dies" before publishing
    await host.local("POST", "/reconcile");
    publish.mockRestore();
    await settle();
    expect(delivered("incident.created.v1", id)).toEqual([]);
    advance(10_000);
    await host.local("POST", "/reconcile"); // its sweep publishes what the outbox still holds
    await settle();
    expect(delivered("incident.created.v1", id).length).toBe(1);
  });

  it("two passes run concurrently produce no duplicate state or events", async () => {
    const ids = await Promise.all(["A", "B", "C"].map((n) => createInConsole(`Concurrent ingestion ${n}`)));
    advance(10_000);
    // Three passes at once, as a doubled timer or a second instance would start them.
    const passes = (await Promise.all([1, 2, 3].map(() => host.local("POST", "/reconcile").then(json)))).map((b) => b.data as Json);
    expect(passes.reduce((n, p) => n + p.created, 0)).toBe(3);
    // Each pass covered every workspace; the etag-checked commits and the ids from the subject kept
    // the overlapping passes from storing or sending anything twice.
    for (const pass of passes) expect([pass.workspaces, pass.failed]).toEqual([host.demo.workspaces.length, 0]);
    await settle();
    for (const id of ids) expect(delivered("incident.created.v1", id).length).toBe(1);
    const events = await outboxEvents(host.services, ws);
    for (const id of ids) expect(events.filter((e) => e.type === "incident.created.v1" && e.data.incidentId === id).length).toBe(1);
  });

  it("a pass in which nothing changed reads each workspace's reconciler document once and writes nothing", async () => {
    // Take in whatever the earlier tests left, then let their changes leave the windows' overlap.
    for (let i = 0; i < 3; i++) {
      advance(100_000);
      await host.local("POST", "/reconcile");
    }
    advance(60_000);
    const stores = host.services.stores;
    const spies = {
      reads: vi.spyOn(stores.reconciler, "get"),
      creates: vi.spyOn(stores.reconciler, "create"),
      replaces: vi.spyOn(stores.reconciler, "replace"),
      commits: vi.spyOn(stores.incidents, "commit"),
      stateReads: vi.spyOn(stores.incidents, "getMany"),
    };
    const pass = (await json(await host.local("POST", "/reconcile"))).data;
    const counts = Object.fromEntries(Object.entries(spies).map(([name, spy]) => [name, spy.mock.calls.length]));
    Object.values(spies).forEach((spy) => spy.mockRestore());
    const workspaces = host.demo.workspaces.length;
    expect(counts).toEqual({ reads: workspaces, creates: 0, replaces: 0, commits: 0, stateReads: 0 });
    expect(pass).toMatchObject({ workspaces, failed: 0, incidentsSeen: 0, watermarkWrites: 0, vendorCalls: 2 * workspaces, workspacesBehind: 0 });
    expect(pass.lagMs).toBe(0);
  });

  it("a vendor that throttles holds up only its own source; its windows are covered once it lets the service back in", async () => {
    advance(60_000);
    await host.local("POST", "/reconcile");
    const a = (await json(await host.local("POST", `/sources/SourceA/workspaces/${ws}/incidents`, { title: "Token theft via AiTM proxy", severity: "High" }))).data.id;
    const b = await createInConsole("Mass download from SharePoint");
    advance(10_000);
    host.simulated.vendors.rateLimit("SourceA", 120);
    const throttled = (await json(await host.local("POST", "/reconcile"))).data;
    // SourceB went on; every workspace's SourceA window was left for later, so those shares failed.
    expect(throttled).toMatchObject({ created: 1, failed: host.demo.workspaces.length });
    // Asked to wait (Retry-After), no workspace is re-sent within the pass: its batches are all it took.
    expect(throttled.messages).toBe(Math.ceil(host.demo.workspaces.length / host.services.config.reconcileBatchSize));
    advance(60_000); // still throttled: the limiter answers for the vendor, which is not called
    expect((await json(await host.local("POST", "/reconcile"))).data).toMatchObject({ created: 0, failed: host.demo.workspaces.length });
    advance(61_000); // past the Retry-After
    const recovered = (await json(await host.local("POST", "/reconcile"))).data;
    expect(recovered).toMatchObject({ created: 1, failed: 0 });
    await settle();
    expect(delivered("incident.created.v1", a)).toHaveLength(1);
    expect(delivered("incident.created.v1", b)).toHaveLength(1);
  });

  it("a deletion in the vendor is recorded on the stored state; later reads are 404", async () => {
    const id = await createInConsole("Suspicious inbox rule");
    advance(10_000);
    await host.local("POST", "/reconcile");
    advance(10_000);
    expect((await host.local("DELETE", `/sources/SourceB/workspaces/${ws}/incidents/${id}`)).status).toBe(204);
    advance(10_000);
    const pass = (await json(await host.local("POST", "/reconcile"))).data;
    expect(pass.deleted).toBe(1);
    const stored = await host.services.stores.incidents.get(ws, stateIdOf("SourceB", id));
    expect(stored?.value.deletedAt).toEqual(expect.any(String));
    expect((await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceB/${id}`))).code).toBe("NOT_FOUND");
    advance(10_000);
    expect((await json(await host.local("POST", "/reconcile"))).data.deleted).toBe(0);
  });

  it("a comment added through the service by an agent fires incident.comment.added.v1 with the incident block", async () => {
    const commentHook = (await json(await host.call("POST", "/webhooks", {
      body: { name: "comments", url: receiver.url("/comments", "127.0.0.1"), eventTypes: ["incident.comment.added.v1"] },
    }))).data;
    const id = await createInConsole("Phishing reported by user");
    const res = await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${id}/comments`, { message: "Sender domain is 3 days old.", origin: "agent", name: "Triage agent" });
    expect(res.status).toBe(201);
    const { eventId, commentId } = (await json(res)).data;
    await settle();
    const got = receiver.requests.filter((r) => r.url === "/comments").map((r) => JSON.parse(r.body));
    expect(got.map((e) => e.id)).toEqual([eventId]);
    const data = incidentCommentAddedData.parse(got[0].data);
    expect(data).toMatchObject({ incidentId: id, source: "sourceb", comment: { id: commentId, isAgentComment: true, agentName: "Triage agent" }, addedBy: { origin: "agent" } });
    expect(data.incident).toMatchObject({ title: "Phishing reported by user", sourceDisplayName: "Falconridge XDR" });
    const comments = (await json(await host.call("GET", `/workspaces/${ws}/incidents/SourceB/${id}/comments`))).data;
    expect(comments.map((c: Json) => c.id)).toContain(commentId);
    await host.call("DELETE", `/webhooks/${commentHook.id}`);
  });

  it("the manual trigger fires incident.created.v1 past subscriptions, with a fresh id per fire, within monitoredAccountIds", async () => {
    const statusOnly = (await json(await host.call("POST", "/webhooks", {
      body: { name: "status only", url: receiver.url("/status-only", "127.0.0.1"), eventTypes: ["incident.status.changed.v1"] },
    }))).data;
    const otherCustomer = host.demo.customers.find((c) => c.id !== host.demo.workspaces[0]!.accountId)!;
    const elsewhere = (await json(await host.call("POST", "/webhooks", {
      body: { name: "other customer", url: receiver.url("/elsewhere", "127.0.0.1"), eventTypes: ["incident.created.v1"], monitoredAccountIds: [otherCustomer.id] },
    }))).data;
    const id = await createInConsole("Manual trigger target");
    const fire = async () => (await json(await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${id}/trigger`, {}))).data.eventId;
    const first = await fire();
    const second = await fire();
    expect(first).not.toBe(second);
    await settle();
    const to = (path: string) => receiver.requests.filter((r) => r.url === path).map((r) => JSON.parse(r.body));
    expect(to("/status-only").map((e) => e.type)).toEqual(["incident.created.v1", "incident.created.v1"]);
    expect(new Set(to("/status-only").map((e) => e.id))).toEqual(new Set([first, second]));
    expect(to("/elsewhere")).toEqual([]);
    await host.call("DELETE", `/webhooks/${statusOnly.id}`);
    await host.call("DELETE", `/webhooks/${elsewhere.id}`);
  });

  it("an agent investigation reaches the webhooks its classification card names that subscribe; a bound unsubscribed one is recorded Failed", async () => {
    const mk = async (name: string, eventTypes: string[]) =>
      (await json(await host.call("POST", "/webhooks", { body: { name, url: receiver.url(`/${name}`, "127.0.0.1"), eventTypes } }))).data;
    const bound = await mk("agent-bound", ["agent.investigation.completed.v1"]);
    const boundUnsubscribed = await mk("agent-unsubscribed", ["incident.closed.v1"]);
    const subscribedNotBound = await mk("agent-not-bound", ["agent.investigation.completed.v1"]);
    const onOtherCard = await mk("agent-other-card", ["agent.investigation.completed.v1"]);
    // An AgentAdmin on the workspace binds them in the portal.
    const agentAdmin = await host.person({ organizationalRole: "AgentAdmin", workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
    const configured = await host.portal(agentAdmin, "PUT", `/portal/workspaces/${ws}/agent-configuration`, {
      body: {
        agentName: "Triage agent",
        cards: [
          { classification: "TruePositive", webhookIds: [bound.id, boundUnsubscribed.id] },
          { classification: "FalsePositive", webhookIds: [onOtherCard.id] },
        ],
      },
    });
    expect(configured.status).toBe(200);
    const id = await createInConsole("Beacon to rare domain");
    const res = await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${id}/investigation`, { classification: "TruePositive", maliciousScore: 87, summary: "C2 beaconing confirmed." });
    expect(res.status).toBe(202);
    const { eventId } = (await json(res)).data;
    await settle();
    const to = (w: Json) => receiver.requests.filter((r) => r.url === `/${w.name}`).map((r) => JSON.parse(r.body));
    const [delivered] = to(bound);
    expect(delivered.id).toBe(eventId);
    expect(agentInvestigationCompletedData.parse(delivered.data)).toMatchObject({ classificationBucket: "TruePositive", verdict: { maliciousScore: 87 }, incidentId: id });
    expect(to(boundUnsubscribed)).toEqual([]);
    expect(to(subscribedNotBound)).toEqual([]);
    expect(to(onOtherCard)).toEqual([]);
    const logs = (await json(await host.call("GET", `/webhooks/${boundUnsubscribed.id}/delivery-logs`))).data;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ status: "Failed", eventType: "agent.investigation.completed.v1", httpStatusCode: 0 });
    expect(logs[0].error).toContain("not subscribed");

    // The legacy agent path has no score: the key is there, null.
    await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${id}/investigation`, { classification: "TruePositive" });
    await settle();
    expect(to(bound)[1].data.verdict).toEqual({ maliciousScore: null, summary: null });
    // A classification without a card sends nothing.
    const none = (await json(await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${id}/investigation`, { classification: "Undetermined" }))).data;
    expect(none.eventId).toBeNull();
    for (const w of [bound, boundUnsubscribed, subscribedNotBound, onOtherCard]) await host.call("DELETE", `/webhooks/${w.id}`);
  });

  it("an incident written through the API before the reconciler first saw it still gets its one incident.created.v1", async () => {
    const id = await createInConsole("Assigned before ingestion");
    expect((await host.call("PUT", `/workspaces/${ws}/incidents/SourceB/${id}/assignee`, { body: { userId: null, email: "first.responder@contoso-mssp.example" } })).status).toBe(204);
    advance(10_000);
    await host.local("POST", "/reconcile");
    advance(10_000);
    await host.local("POST", "/reconcile");
    await settle();
    const created = delivered("incident.created.v1", id);
    expect(created).toHaveLength(1);
    expect(created[0].data.owner.email).toBe("first.responder@contoso-mssp.example");
  });

  it("an incident created and closed in the console between two passes gets created, status.changed and closed", async () => {
    const id = await createInConsole("Auto-closed by the vendor");
    await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/${id}/close`, { classification: "BenignPositive", closingComment: "Auto-resolved." });
    advance(10_000);
    const pass = (await json(await host.local("POST", "/reconcile"))).data;
    expect(pass.created).toBe(1);
    await settle();
    expect(delivered("incident.created.v1", id)).toHaveLength(1);
    expect(delivered("incident.status.changed.v1", id)[0].data).toMatchObject({ status: "Closed", changedBy: { origin: "upstream" } });
    expect(delivered("incident.closed.v1", id)[0].data).toMatchObject({ classification: "BenignPositive", closingComment: "Auto-resolved.", closedBy: { origin: "upstream" } });
  });

  it("local controls validate their input and answer 404 for unknown incidents", async () => {
    expect((await json(await host.local("POST", `/sources/SourceZ/workspaces/${ws}/incidents`, { title: "x" }))).code).toBe("VALIDATION_ERROR");
    expect((await json(await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents/nope/close`, { classification: "TruePositive" }))).code).toBe("NOT_FOUND");
    expect((await host.local("DELETE", `/sources/SourceB/workspaces/${ws}/incidents/nope`)).status).toBe(404);
    expect((await host.local("GET", "/nothing")).status).toBe(404);
  });
});
