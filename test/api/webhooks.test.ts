import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAdminAccount } from "../../shared/domain/organizations/admin-account";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => host?.close());

const viewFields = [
  "authenticationType", "createdAt", "disableReason", "disabledAt", "eventTypes", "hasSigningToken", "id", "lastModifiedAt",
  "monitoredAccountIds", "name", "serviceProviderId", "status", "targetAccountId", "targetAccountName", "url", "workspaceId",
].sort();

const newWebhook = (over: Json = {}) => ({
  name: "SOAR intake",
  url: "https://hooks.example.com/soc",
  eventTypes: ["incident.created.v1", "incident.closed.v1"],
  ...over,
});

async function create(over: Json = {}): Promise<Json> {
  const res = await host.call("POST", "/webhooks", { body: newWebhook(over) });
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.data;
}

describe("webhook management", () => {
  it("creates a webhook with the contract's fields and shows its signing secret once", async () => {
    const created = await create({ authenticationType: "Bearer", token: "receiver-token-123" });
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toMatchObject({ status: "Active", hasSigningToken: true, authenticationType: "Bearer", monitoredAccountIds: [], workspaceId: null });
    expect(created.targetAccountId).toBe(host.demo.provider.id);
    expect(created.serviceProviderId).toBe(host.demo.provider.id);

    const res = await host.call("GET", `/webhooks/${created.id}`);
    expect(res.headers.get("etag")).toBeTruthy();
    const { data } = await json(res);
    expect(Object.keys(data).sort()).toEqual(viewFields);
    const raw = JSON.stringify(await json(await host.call("GET", "/webhooks")));
    expect(raw).toContain(created.id);
    expect(raw).not.toContain(created.signingSecret);
    expect(raw).not.toContain("receiver-token-123");
  });

  it("stores secrets sealed, never in clear", async () => {
    const created = await create({ authenticationType: "ApiKey", token: "key-in-clear-987" });
    const stored = await host.services.stores.webhooks.get(created.id);
    expect(JSON.stringify(stored)).not.toContain("key-in-clear-987");
    expect(JSON.stringify(stored)).not.toContain(created.signingSecret.slice(6));
    expect(host.services.secretBox.open(stored!.value.sealedToken!)).toBe("key-in-clear-987");
  });

  it("a signing override (with Bearer) is used instead of a generated secret and not echoed", async () => {
    const created = await create({ authenticationType: "Bearer", token: "t", signingToken: "my-own-signing-token-0001" });
    expect(created.signingSecret).toBeUndefined();
    expect(created.hasSigningToken).toBe(true);
  });

  it("rejects bad bodies with 400 VALIDATION_ERROR naming the field", async () => {
    const cases: [Json, string][] = [
      [newWebhook({ url: "http://hooks.example.com/soc" }), "url"],
      [newWebhook({ url: "https://localhost/soc" }), "url"],
      [newWebhook({ url: "https://10.0.0.8/soc" }), "url"],
      [newWebhook({ url: "https://[::1]/soc" }), "url"],
      [newWebhook({ url: "https://db.internal.test/soc" }), "url"],
      [newWebhook({ url: "https://no-such-host.invalid/soc" }), "url"],
      [newWebhook({ url: "https://user:pw@hooks.example.com/soc" }), "url"],
      [newWebhook({ eventTypes: [] }), "eventTypes"],
      [newWebhook({ eventTypes: ["webhook.test.v1"] }), "eventTypes[0]"],
      [newWebhook({ eventTypes: ["incident.exploded.v1"] }), "eventTypes[0]"],
      [newWebhook({ authenticationType: "Bearer" }), "token"],
      [newWebhook({ token: "x" }), "token"],
      [newWebhook({ authenticationType: "Basic", token: "no-colon" }), "token"],
      [newWebhook({ authenticationType: "ApiKey", token: "k", signingToken: "0123456789abcdef" }), "signingToken"],
      [newWebhook({ monitoredAccountIds: ["0b0e6a3c-1111-4222-8333-944455556666"] }), "monitoredAccountIds"],
      [newWebhook({ color: "blue" }), "color"],
    ];
    for (const [body, field] of cases) {
      const problem = await json(await host.call("POST", "/webhooks", { body }));
      expect([JSON.stringify(body), problem.code, Object.keys(problem.errors ?? {})]).toEqual([JSON.stringify(body), "VALIDATION_ERROR", [field]]);
    }
  });

  it("updates with PUT (If-Match honoured) and deletes", async () => {
    const created = await create();
    const etag = (await host.call("GET", `/webhooks/${created.id}`)).headers.get("etag")!;
    const customer = host.demo.customers[0]!.id;
    const update = { ...newWebhook({ name: "Renamed", eventTypes: ["incident.assignee.changed.v1"] }), monitoredAccountIds: [customer] };
    const res = await host.call("PUT", `/webhooks/${created.id}`, { body: update, headers: { "if-match": etag } });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ name: "Renamed", eventTypes: ["incident.assignee.changed.v1"], monitoredAccountIds: [customer] });
    expect((await json(await host.call("PUT", `/webhooks/${created.id}`, { body: update, headers: { "if-match": etag } }))).code).toBe("CONFLICT");
    expect((await host.call("DELETE", `/webhooks/${created.id}`)).status).toBe(204);
    expect((await json(await host.call("GET", `/webhooks/${created.id}`))).code).toBe("NOT_FOUND");
  });

  it("pause, resume and enable move between Active, Paused and Disabled; a repeated call is 409", async () => {
    const created = await create();
    const post = (action: string) => host.call("POST", `/webhooks/${created.id}/${action}`);
    expect((await json(await post("pause"))).data.status).toBe("Paused");
    expect((await json(await post("pause"))).code).toBe("CONFLICT");
    expect((await json(await post("enable"))).code).toBe("CONFLICT");
    expect((await json(await post("resume"))).data.status).toBe("Active");
    expect((await json(await post("resume"))).code).toBe("CONFLICT");

    // Auto-disable is the delivery pipeline's; enable undoes it.
    const stored = (await host.services.stores.webhooks.get(created.id))!;
    await host.services.stores.webhooks.replace(
      { ...stored.value, status: "Disabled", disableReason: "5 incidents failed final delivery within 24 hours.", disabledAt: new Date().toISOString() },
      stored.etag,
    );
    const enabled = (await json(await post("enable"))).data;
    expect(enabled).toMatchObject({ status: "Active", disableReason: null, disabledAt: null });
  });

  it("credentials: new endpoint token; rotation shows a new secret once and keeps the previous key for 24 hours", async () => {
    const created = await create({ authenticationType: "Bearer", token: "old-token" });
    const res = await host.call("POST", `/webhooks/${created.id}/credentials`, {
      body: { authenticationType: "Basic", token: "svc:new-password", rotateSigningSecret: true },
    });
    const { data } = await json(res);
    expect(res.status).toBe(200);
    expect(data.authenticationType).toBe("Basic");
    expect(data.signingSecret).toMatch(/^whsec_/);
    expect(data.signingSecret).not.toBe(created.signingSecret);
    const keys = (await host.services.stores.webhooks.get(created.id))!.value.signingKeys;
    expect(keys.length).toBe(2);
    expect(keys[0]!.retiresAt).toBeNull();
    const retires = Date.parse(keys[1]!.retiresAt!) - Date.now();
    expect(retires).toBeGreaterThan(23 * 3600_000);
    expect(retires).toBeLessThanOrEqual(24 * 3600_000);
    expect(host.services.secretBox.open(keys[1]!.sealed)).toBe(created.signingSecret);

    const noRotation = (await json(await host.call("POST", `/webhooks/${created.id}/credentials`, { body: { authenticationType: "None" } }))).data;
    expect(noRotation.signingSecret).toBeUndefined();
    expect((await host.services.stores.webhooks.get(created.id))!.value.sealedToken).toBeNull();
  });

  it("acts only inside the caller's organization and needs the webhook scopes", async () => {
    const created = await create();
    const customer = host.demo.customers[0]!;
    const other = await ensureAdminAccount(host.services, { accountId: customer.id, name: "Fabrikam admin", workspaceIds: [] });
    const asCustomer = { clientId: other.clientId, clientSecret: other.clientSecret };
    expect((await json(await host.call("GET", `/webhooks/${created.id}`, { auth: asCustomer }))).code).toBe("NOT_FOUND");
    expect((await json(await host.call("GET", "/webhooks", { auth: asCustomer }))).data.map((w: Json) => w.id)).not.toContain(created.id);

    const reader = await createServiceAccount(host, { scopes: ["webhooks:read"] });
    expect((await host.call("GET", `/webhooks/${created.id}`, { auth: reader })).status).toBe(200);
    expect((await json(await host.call("POST", `/webhooks/${created.id}/pause`, { auth: reader }))).code).toBe("INSUFFICIENT_SCOPE");
    const audit = await host.services.stores.audit.listRecent(host.demo.provider.id, 50);
    expect(audit.some((a) => a.activityType === "Webhook" && a.activityAction === "Create" && a.targetResourceId === created.id)).toBe(true);
  });
});
