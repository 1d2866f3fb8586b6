import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { concurrentWrite } from "../../shared/platform/store/conflict";
import { startTestHost, type TestHost } from "../support/test-host";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => host?.close());

describe("audit events commit with their writes", () => {
  it("a write accepted while the audit trail is down keeps its audit event in the outbox; the sweep appends it once", async () => {
    const append = vi.spyOn(host.services.stores.audit, "append").mockRejectedValue(new Error("audit store unavailable"));
    const userId = randomUUID();
    const res = await host.call("PUT", "/users", {
      body: { userId, displayName: "Ada Responder", email: `ada.${userId.slice(0, 8)}@contoso-mssp.example`, tenantId: randomUUID(), isOwner: false },
    });
    append.mockRestore();
    expect(res.status).toBe(201);
    const trail = () => host.services.stores.audit.listRecent(host.demo.provider.id, 500);
    expect((await trail()).filter((e) => e.targetResourceId === userId)).toEqual([]);
    const pending = await host.services.stores.outbox.listUnpublished(500);
    expect(pending.filter((r) => r.kind === "audit" && r.audit.targetResourceId === userId)).toHaveLength(1);

    await host.services.events.outbox.sweep();
    await host.services.events.outbox.sweep();
    const entries = (await trail()).filter((e) => e.targetResourceId === userId);
    expect(entries.map((e) => [e.activityType, e.actorId])).toEqual([["UserCreated", host.admin.clientId]]);
  });

  it("a write the store refuses leaves no audit event behind: the route audits only through the write", async () => {
    const userId = randomUUID();
    const body = { userId, displayName: "Bo Hunter", email: `bo.${userId.slice(0, 8)}@contoso-mssp.example`, tenantId: randomUUID(), isOwner: false };
    expect((await host.call("PUT", "/users", { body })).status).toBe(201);
    // Other writers keep getting there first: the store refuses every attempt, as it does on a stale
    // etag; the unit of work reads again and retries a few times, then answers the conflict.
    const replace = vi.spyOn(host.services.stores.users, "replace").mockRejectedValue(concurrentWrite("user"));
    expect((await host.call("PUT", "/users", { body: { ...body, displayName: "Bo H." } })).status).toBe(409);
    expect(replace).toHaveBeenCalledTimes(5);
    replace.mockRestore();
    const records = (await host.services.stores.outbox.listUnpublished(500)).filter((r) => r.kind === "audit" && r.audit.targetResourceId === userId);
    expect(records).toEqual([]);
    const entries = (await host.services.stores.audit.listRecent(host.demo.provider.id, 500)).filter((e) => e.targetResourceId === userId);
    expect(entries.map((e) => e.activityType)).toEqual(["UserCreated"]);
  });
});
