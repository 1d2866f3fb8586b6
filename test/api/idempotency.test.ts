import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { IDEMPOTENCY_KEY_LIFETIME_MS } from "../../shared/platform/http/idempotency";
import { outboxEvents } from "../support/outbox";
import { createServiceAccount, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import { json, type Json } from "../support/json";

// Fifty concurrent creations on the Cosmos protocol server take seconds on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

/*
 * `Idempotency-Key` on the POSTs that create or start something: a request sent again with its key
 * is carried out once, on both stores (TEST_STORE).
 */

let clock = Date.now();
let host: TestHost;
/** fabrikam-sentinel-prod: no approval anywhere, so a run is dispatched at once. */
let ws: string;
let lead: TestPerson;

beforeAll(async () => {
  host = await startTestHost({ now: () => new Date(clock), env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  ws = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  lead = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
}, 120_000);
afterAll(() => host?.close());
afterEach(() => vi.restoreAllMocks());

const key = () => `"${randomUUID()}"`;
const webhookBody = (name = `idempotent ${randomUUID().slice(0, 8)}`) => ({ name, url: "https://receiver.example.com/hook", eventTypes: ["incident.created.v1"], authenticationType: "None" });
const webhooksNamed = async (name: string) => (await host.services.stores.webhooks.listByAccounts(host.demo.workspaces.map((w) => w.accountId))).filter((w) => w.name === name);

/** A new incident and a run body of one playbook on an entity it acts on. */
async function runBody(): Promise<{ incident: VendorIncident; body: Json }> {
  const catalogue = (await host.services.stores.playbookCatalogues.get(ws))!;
  const playbook = catalogue.playbooks.find((p) => p.referenceId === "revoke-sessions")!;
  for (let i = 0; i < 300; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Retried run", severity: "High" });
    const entity = incident.entities.find((e) => actsOn(playbook, e));
    if (entity) {
      return { incident, body: { incidentId: incident.id, incidentTitle: incident.title, source: "SourceA", playbooks: [{ id: playbook.id, sequence: 1, entityId: entity.id, parameters: {} }] } };
    }
  }
  throw new Error("no incident with an account");
}

/** Sends the request until it is not refused as in progress, waiting `Retry-After` between: what the key's rules tell a client to do. */
async function untilNotInProgress(send: () => Promise<Response>): Promise<Response> {
  for (;;) {
    const res = await send();
    if (res.status !== 409 || (await json(res)).code !== "IDEMPOTENCY_KEY_IN_USE") return res;
    expect(res.headers.get("retry-after")).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("Idempotency-Key", () => {
  it("a gamebook run sent again with its key after the client timed out is one run and one gamebook.run.v1, and the retry gets the first answer", async () => {
    const { incident, body } = await runBody();
    const idempotencyKey = key();
    const path = `/workspaces/${ws}/gamebooks/run`;
    // The run's events are carried out slowly: the first request is still answering when its client gives up.
    const relay = host.services.events.outbox;
    const publish = relay.publish.bind(relay);
    vi.spyOn(relay, "publish").mockImplementation(async (records) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return publish(records);
    });
    const timedOut = new AbortController();
    const first = fetch(host.base + path, {
      method: "POST",
      headers: { authorization: host.basic(host.admin.clientId, host.admin.clientSecret), "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify(body),
      signal: timedOut.signal,
    }).catch((error: unknown) => error);
    await waitFor(async () => (await host.services.stores.gamebookRuns.listForIncident(ws, incident.id, "SourceA", 10)).length > 0, "the first run to be stored");
    timedOut.abort();
    expect(await first).toBeInstanceOf(Error);
    vi.restoreAllMocks();

    const retry = await untilNotInProgress(() => host.call("POST", path, { body, headers: { "idempotency-key": idempotencyKey } }));
    expect(retry.status).toBe(200);
    const runs = await host.services.stores.gamebookRuns.listForIncident(ws, incident.id, "SourceA", 10);
    expect(runs.map((r) => r.id)).toEqual([(await json(retry)).data.id]);
    const events = (await outboxEvents(host.services, ws)).filter((e) => e.type === "gamebook.run.v1" && (e.data as Json).incidentId === incident.id);
    expect(events).toHaveLength(1);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");

    // Once more, answered again in full: the same body, byte for byte.
    const again = await host.call("POST", path, { body, headers: { "idempotency-key": idempotencyKey } });
    expect(await again.text()).toBe(await retry.text());
  });

  it("50 concurrent webhook creations with one key make one webhook; every other answer is the first one again or 409 IDEMPOTENCY_KEY_IN_USE", async () => {
    const body = webhookBody();
    const idempotencyKey = key();
    const answers = await Promise.all(Array.from({ length: 50 }, () => host.call("POST", "/webhooks", { body, headers: { "idempotency-key": idempotencyKey } })));
    const created = answers.filter((r) => r.status === 201);
    const inUse = answers.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const res of inUse) expect(await json(res)).toMatchObject({ code: "IDEMPOTENCY_KEY_IN_USE", target: "Idempotency-Key" });
    const ids = new Set(await Promise.all(created.map(async (r) => (await json(r)).data.id as string)));
    expect(ids.size).toBe(1);
    expect(new Set(created.map((r) => r.headers.get("location"))).size).toBe(1);
    expect(await webhooksNamed(body.name)).toHaveLength(1);
    // The ones refused meanwhile get the first answer when they send again.
    const late = await host.call("POST", "/webhooks", { body, headers: { "idempotency-key": idempotencyKey } });
    expect([late.status, (await json(late)).data.id, late.headers.get("location")]).toEqual([201, [...ids][0], created[0]!.headers.get("location")]);
    expect(await webhooksNamed(body.name)).toHaveLength(1);
  });

  it("the key sent again with another body is 422 IDEMPOTENCY_KEY_REUSED naming the key, and nothing is created", async () => {
    const idempotencyKey = key();
    const first = webhookBody();
    expect((await host.call("POST", "/webhooks", { body: first, headers: { "idempotency-key": idempotencyKey } })).status).toBe(201);
    const other = webhookBody();
    const res = await host.call("POST", "/webhooks", { body: other, headers: { "idempotency-key": idempotencyKey } });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await json(res)).toMatchObject({ status: 422, code: "IDEMPOTENCY_KEY_REUSED", target: "Idempotency-Key" });
    expect(await webhooksNamed(other.name)).toHaveLength(0);
    // The same key on another operation is another request too.
    const elsewhere = await host.call("POST", "/service-accounts", { body: { name: "reused key", organizationalRole: "Member", scopes: ["incidents:read"] }, headers: { "idempotency-key": idempotencyKey } });
    expect(elsewhere.status).toBe(422);
  });

  it("the same body sent again with its JSON spaced and ordered otherwise is the same request", async () => {
    const idempotencyKey = key();
    const body = webhookBody();
    const first = await host.call("POST", "/webhooks", { body, headers: { "idempotency-key": idempotencyKey } });
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
    const res = await host.fetch(`${host.base}/webhooks`, {
      method: "POST",
      headers: { authorization: host.basic(host.admin.clientId, host.admin.clientSecret), "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: reordered,
    });
    expect(res.status).toBe(201);
    expect((await json(res)).data.id).toBe((await json(first)).data.id);
  });

  it("keys are the caller's own: another service account, or a person, sending the same key and body gets an answer of its own", async () => {
    const idempotencyKey = key();
    const body = webhookBody();
    const mine = await json(await host.call("POST", "/webhooks", { body, headers: { "idempotency-key": idempotencyKey } }));
    const other = await createServiceAccount(host, { scopes: ["webhooks:manage"], workspaceAssignments: [] });
    const theirs = await host.call("POST", "/webhooks", { body, auth: other, headers: { "idempotency-key": idempotencyKey } });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect((await json(theirs)).data.id).not.toBe(mine.data.id);
    const person = await host.portal(lead, "POST", "/portal/webhooks", { body, headers: { "idempotency-key": idempotencyKey } });
    expect(person.status).toBe(201);
    expect((await json(person)).data.webhook?.id ?? (await json(person)).data.id).not.toBe(mine.data.id);
    expect(await webhooksNamed(body.name)).toHaveLength(3);
  });

  it("a portal creation sent again with its key is answered again, Location included, and made once", async () => {
    const idempotencyKey = key();
    const body = webhookBody();
    const first = await host.portal(lead, "POST", "/portal/webhooks", { body, headers: { "idempotency-key": idempotencyKey } });
    const again = await host.portal(lead, "POST", "/portal/webhooks", { body, headers: { "idempotency-key": idempotencyKey } });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
    expect(await webhooksNamed(body.name)).toHaveLength(1);
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["an empty quoted string", '""'],
    ["longer than 255 characters", "k".repeat(256)],
    ["not ASCII", "clé-é"],
    ["an unterminated quoted string", '"abc'],
    ["a quoted string with a stray quote", '"a"b"'],
  ])("a key that is %s is 400 VALIDATION_ERROR naming Idempotency-Key, and nothing is created", async (_, value) => {
    const body = webhookBody();
    const res = await host.fetch(`${host.base}/webhooks`, {
      method: "POST",
      headers: { authorization: host.basic(host.admin.clientId, host.admin.clientSecret), "content-type": "application/json", "idempotency-key": value },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: "VALIDATION_ERROR", target: "Idempotency-Key" });
    expect(await webhooksNamed(body.name)).toHaveLength(0);
  });

  it("a key of 255 characters, bare or quoted, is taken", async () => {
    for (const value of ["k".repeat(255), `"${"q".repeat(253)}\\""`]) {
      const res = await host.call("POST", "/webhooks", { body: webhookBody(), headers: { "idempotency-key": value } });
      expect(res.status, value).toBe(201);
    }
  });

  it("a request refused before it changed anything keeps no answer: sent again, corrected, with the same key it is carried out", async () => {
    const idempotencyKey = key();
    const { body } = await runBody();
    const missing = { ...body, incidentId: "does-not-exist" };
    const refused = await host.call("POST", `/workspaces/${ws}/gamebooks/run`, { body: missing, headers: { "idempotency-key": idempotencyKey } });
    expect(refused.status).toBe(404);
    const corrected = await host.call("POST", `/workspaces/${ws}/gamebooks/run`, { body, headers: { "idempotency-key": idempotencyKey } });
    expect(corrected.status).toBe(200);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a key is kept 24 hours: after that, the same request is carried out anew", async () => {
    const idempotencyKey = key();
    const body = webhookBody();
    const first = await json(await host.call("POST", "/webhooks", { body, headers: { "idempotency-key": idempotencyKey } }));
    clock += IDEMPOTENCY_KEY_LIFETIME_MS - 60_000;
    const within = await json(await host.call("POST", "/webhooks", { body, headers: { "idempotency-key": idempotencyKey } }));
    expect(within.data.id).toBe(first.data.id);
    clock += 120_000;
    const after = await host.call("POST", "/webhooks", { body, headers: { "idempotency-key": idempotencyKey } });
    expect(after.status).toBe(201);
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect((await json(after)).data.id).not.toBe(first.data.id);
    expect(await webhooksNamed(body.name)).toHaveLength(2);
  });

  it("a route that creates nothing ignores the header", async () => {
    const res = await host.call("GET", "/webhooks", { headers: { "idempotency-key": "" } });
    expect(res.status).toBe(200);
  });
});
