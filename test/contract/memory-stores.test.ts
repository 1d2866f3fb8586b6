import { auditEvent } from "../support/audit-events";
import { describe, expect, it } from "vitest";
import type { AuditEventRecord } from "../../shared/model/audit/audit-event";
import type { DeliveryLogRecord } from "../../shared/model/webhooks/delivery-log";
import type { OutboxEventRecord } from "../../shared/platform/events/outbox-record";
import { deliveryLogPartition } from "../../shared/platform/store/delivery-log-partition";
import { PUBLISHED_OUTBOX_TTL_SECONDS } from "../../shared/platform/store/outbox-retention";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import { MEMORY_AUDIT_MAX_EVENTS, memoryAudit } from "../../shared/platform/store/memory/memory-workspace-data";
import { createMemoryStores, MAX_DELIVERY_LOG_ENTRIES_PER_WEBHOOK, MAX_SETTLED_GAMEBOOK_RUNS } from "../../shared/platform/store/memory/memory-stores";
import { MAX_PUBLISHED_OUTBOX_RECORDS } from "../../shared/platform/store/memory/memory-outbox";
import { MAX_IDEMPOTENCY_RECORDS, memoryIdempotencyKeys } from "../../shared/platform/store/memory/memory-idempotency";
import { describeStoreContract, gamebookRun } from "./store-contract";

// The contract's entries are dated early 2026 with the ttls real ones have: its clock, not the wall
// clock, decides what has expired (cosmosdb-server does not enforce ttl at all).
const CONTRACT_NOW = Date.parse("2026-03-05T00:00:00.000Z");
describeStoreContract("memory", async () => ({ stores: createMemoryStores({ now: () => CONTRACT_NOW }), teardown: async () => {} }));

// What Cosmos does by each event's ttl (cosmos-audit.test.ts checks the ttl it stores).
describe("memory audit retention", () => {
  const DAY = 86_400_000;

  it("drops an event once the retention has passed since its append, from the trail and from listRecent", async () => {
    let clock = Date.parse("2026-11-26T10:00:00.000Z");
    const audit = memoryAudit({ retentionDays: 30, now: () => clock });
    await audit.append(event("e1"));
    clock += 10 * DAY;
    await audit.append(event("e2"));
    clock += 20 * DAY - 1;
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "e1"], [2, "e2"]]);

    clock += 1;
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[2, "e2"]]);
    expect((await audit.listRecent("acct-1", 10)).map((e) => e.id)).toEqual(["e2"]);
    // A reader past it goes on as before, and the trail's numbers go on.
    await audit.append(event("e3"));
    expect((await audit.listWorkspaceTrail("ws-1", 1, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[2, "e2"], [3, "e3"]]);
    expect((await audit.listWorkspaceTrail("ws-1", 2, 10)).map((e) => e.event.id)).toEqual(["e3"]);

    clock += 30 * DAY;
    expect(await audit.listWorkspaceTrail("ws-1", 0, 10)).toEqual([]);
    expect(await audit.listRecent("acct-1", 10)).toEqual([]);
  });

  it("keeps every event of a busy trail until its own time comes", async () => {
    let clock = 0;
    const audit = memoryAudit({ retentionDays: 1, now: () => clock });
    for (let i = 0; i < 3_000; i++) {
      await audit.append(event(`e${i}`));
      clock += 60_000;
    }
    // Event i was appended at minute i and is kept 1,440 minutes; at minute 3,000, e0 to e1560 are gone.
    const live = await audit.listWorkspaceTrail("ws-1", 0, 5_000);
    expect(live).toHaveLength(1_439);
    expect(live[0]).toMatchObject({ sequence: 1_562, event: { id: "e1561" } });
    expect(live.at(-1)).toMatchObject({ sequence: 3_000, event: { id: "e2999" } });
  });

  it("keeps at most its bound of events across trails, dropping the oldest appended first", async () => {
    expect(MEMORY_AUDIT_MAX_EVENTS).toBe(2_000);
    const audit = memoryAudit({ maxEvents: 3 });
    const other = (id: string) => auditEvent(id, { workspaceId: "ws-2" });
    for (const e of [event("a1"), other("b1"), event("a2"), other("b2"), event("a3")]) await audit.append(e);
    // a1 and b1, the two oldest, are gone; each trail's sequences go on where they were.
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[2, "a2"], [3, "a3"]]);
    expect((await audit.listWorkspaceTrail("ws-2", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[2, "b2"]]);
    expect(await audit.listRecent("acct-1", 10)).toHaveLength(3);
  });
});

// What Cosmos does by a published record's ttl (set when it is marked published), and the count that
// bounds a local host's memory.
describe("memory outbox retention", () => {
  const DAY = 86_400_000;
  const scope = outboxScope.workspace("ws-1");
  const ids = async () => (await stores.outbox.list(scope, 100)).map((r) => r.id);
  let clock = Date.parse("2026-11-26T10:00:00.000Z");
  let stores = createMemoryStores({ now: () => clock });
  const fresh = (options: Parameters<typeof createMemoryStores>[0] = {}) => {
    clock = Date.parse("2026-11-26T10:00:00.000Z");
    stores = createMemoryStores({ now: () => clock, ...options });
  };

  it("keeps a published record for the ttl Cosmos gives it, counted from when it was marked", async () => {
    fresh();
    expect(PUBLISHED_OUTBOX_TTL_SECONDS).toBe(7 * 24 * 3600);
    await stores.outbox.append([outboxRecord("r1", 0), outboxRecord("r2", 1)]);
    clock += 3 * DAY;
    await stores.outbox.markPublished({ id: "outbox-r1", scope }, new Date(clock).toISOString());
    clock += 7 * DAY - 1;
    expect(await ids()).toEqual(["outbox-r1", "outbox-r2"]);
    clock += 1;
    expect(await ids()).toEqual(["outbox-r2"]);
    // Marking it again changes nothing: it is gone, not brought back.
    await stores.outbox.markPublished({ id: "outbox-r1", scope }, new Date(clock).toISOString());
    expect(await ids()).toEqual(["outbox-r2"]);
  });

  it("never drops a record not yet published, however old, however many", async () => {
    fresh({ maxPublishedOutboxRecords: 2 });
    await stores.outbox.append(Array.from({ length: 5 }, (_, i) => outboxRecord(`p${i}`, i)));
    clock += 3650 * DAY;
    await stores.outbox.append([outboxRecord("later", 10)]);
    expect((await stores.outbox.listUnpublished(100)).map((r) => r.id)).toEqual(["outbox-p0", "outbox-p1", "outbox-p2", "outbox-p3", "outbox-p4", "outbox-later"]);
    expect(await ids()).toHaveLength(6);
  });

  it("keeps at most the newest published records, the oldest published going first", async () => {
    expect(MAX_PUBLISHED_OUTBOX_RECORDS).toBe(2_000);
    fresh({ maxPublishedOutboxRecords: 2 });
    await stores.outbox.append([outboxRecord("a", 0), outboxRecord("b", 1), outboxRecord("c", 2), outboxRecord("pending", 3)]);
    const at = new Date(clock).toISOString();
    // Published in another order than written: the first published goes first.
    for (const id of ["b", "a"]) await stores.outbox.markPublished({ id: `outbox-${id}`, scope }, at);
    expect(await ids()).toEqual(["outbox-a", "outbox-b", "outbox-c", "outbox-pending"]);
    await stores.outbox.markPublished({ id: "outbox-c", scope }, at);
    expect(await ids()).toEqual(["outbox-a", "outbox-c", "outbox-pending"]);
    expect((await stores.outbox.listUnpublished(10)).map((r) => r.id)).toEqual(["outbox-pending"]);
  });
});

// What Cosmos does by each entry's ttl, and the per-webhook count that bounds a local host's memory.
describe("memory delivery-log retention", () => {
  const DAY = 86_400_000;
  const range = { from: "2026-01-01T00:00:00.000Z", to: "2027-01-01T00:00:00.000Z", notBefore: "2026-01-01T00:00:00.000Z" };

  it("drops an entry once its ttl has passed since createdAt, from reads, listings and outcomes", async () => {
    let clock = Date.parse("2026-11-26T10:00:00.000Z");
    const { deliveryLogs } = createMemoryStores({ now: () => clock });
    await deliveryLogs.put(deliveryLog("old", "wh-1", "2026-11-20T10:00:00.000Z", 7 * 86_400));
    await deliveryLogs.put(deliveryLog("new", "wh-1", "2026-11-26T09:00:00.000Z", 7 * 86_400));
    const listed = async () => (await deliveryLogs.list("wh-1", range, 10)).items.map((e) => e.id);
    expect(await listed()).toEqual(["new", "old"]);

    clock = Date.parse("2026-11-27T10:00:00.000Z") - 1;
    expect(await deliveryLogs.get("wh-1", "old", "2026-11-20T10:00:00.000Z")).toMatchObject({ id: "old" });
    clock += 1;
    expect(await deliveryLogs.get("wh-1", "old", "2026-11-20T10:00:00.000Z")).toBeUndefined();
    expect(await listed()).toEqual(["new"]);
    expect((await deliveryLogs.outcomes("wh-1", range, 10)).items.map((e) => e.id)).toEqual(["new"]);

    // Written after expiring entries (which it drops), a new entry is kept as long as its own ttl says.
    clock += 7 * DAY;
    await deliveryLogs.put(deliveryLog("latest", "wh-1", new Date(clock).toISOString(), 86_400));
    expect(await listed()).toEqual(["latest"]);
    clock += DAY;
    expect(await listed()).toEqual([]);
  });

  it("keeps each webhook's newest entries up to the bound; a webhook's entries never crowd out another's", async () => {
    expect(MAX_DELIVERY_LOG_ENTRIES_PER_WEBHOOK).toBe(1_000);
    const clock = Date.parse("2026-11-26T10:00:00.000Z");
    const { deliveryLogs } = createMemoryStores({ now: () => clock, maxDeliveryLogEntriesPerWebhook: 3 });
    const at = (minute: number) => new Date(clock - 60 * 60_000 + minute * 60_000).toISOString();
    await deliveryLogs.put(deliveryLog("other", "wh-2", at(0)));
    for (let i = 1; i <= 5; i++) await deliveryLogs.put(deliveryLog(`e${i}`, "wh-1", at(i)));
    // A later write of a kept entry (a held attempt's outcome) replaces it and keeps its place.
    await deliveryLogs.put(deliveryLog("e3", "wh-1", at(3), 30 * 86_400, "Failed"));
    expect((await deliveryLogs.list("wh-1", range, 10)).items.map((e) => [e.id, e.status])).toEqual([["e5", "Succeeded"], ["e4", "Succeeded"], ["e3", "Failed"]]);
    expect(await deliveryLogs.get("wh-1", "e1", at(1))).toBeUndefined();
    expect((await deliveryLogs.list("wh-2", range, 10)).items.map((e) => e.id)).toEqual(["other"]);
  });
});

// Cosmos keeps every run; the memory store keeps every run still waiting or running and the newest
// settled ones up to its bound.
describe("memory gamebook-run retention", () => {
  const settledIds = async (stores: ReturnType<typeof createMemoryStores>) => (await stores.gamebookRuns.list("ws-1", {}, 100)).items.map((r) => r.id);

  it("keeps at most its bound of settled runs, the first settled going first, from every read and index", async () => {
    expect(MAX_SETTLED_GAMEBOOK_RUNS).toBe(1_000);
    const stores = createMemoryStores({ maxSettledGamebookRuns: 2 });
    const running = await stores.gamebookRuns.create({ ...gamebookRun("running", "ws-1", "SourceA", "inc-r", 0), status: "Running" }, []);
    const waiting = gamebookRun("waiting", "ws-1", "SourceA", "inc-w", 0);
    await stores.gamebookRuns.create({ ...waiting, status: "Pending", isQueued: true, approval: { ...waiting.approval, expiresAt: "2099-01-01T00:00:00.000Z" } }, []);
    for (const [i, id] of ["s1", "s2", "s3"].entries()) await stores.gamebookRuns.create(gamebookRun(id, "ws-1", "SourceA", "inc-1", i + 1), []);
    expect(await settledIds(stores)).toEqual(["s3", "s2", "waiting", "running"]);
    expect(await stores.gamebookRuns.get("ws-1", "s1")).toBeUndefined();
    expect((await stores.gamebookRuns.listForIncident("ws-1", "inc-1", undefined, 10)).map((r) => r.id)).toEqual(["s3", "s2"]);

    // The running run settles later than s2 and s3: s2, the first settled, goes.
    await stores.gamebookRuns.replace({ ...running.value, status: "Succeeded" }, running.etag, []);
    expect(await settledIds(stores)).toEqual(["s3", "waiting", "running"]);
    expect((await stores.gamebookRuns.latestForIncident("ws-1", "SourceA", "inc-1"))?.id).toBe("s3");
    expect((await stores.gamebookRuns.listAwaitingApproval({}, { limit: 10 })).items.map((r) => r.id)).toEqual(["waiting"]);
  });

  it("a dropped decided run leaves the decided approvals too", async () => {
    const stores = createMemoryStores({ maxSettledGamebookRuns: 1 });
    const decided = (id: string, minute: number) => {
      const run = gamebookRun(id, "ws-1", "SourceA", `inc-${id}`, minute);
      return { ...run, status: "Denied" as const, approval: { ...run.approval, decision: "Denied" as const, decidedBy: "Jonas Becker", decidedAt: run.creationDate } };
    };
    await stores.gamebookRuns.create(decided("d1", 1), []);
    expect((await stores.gamebookRuns.listDecided(["ws-1"], { limit: 10 })).items.map((r) => r.id)).toEqual(["d1"]);
    await stores.gamebookRuns.create(decided("d2", 2), []);
    expect((await stores.gamebookRuns.listDecided(["ws-1"], { limit: 10 })).items.map((r) => r.id)).toEqual(["d2"]);
  });

  it("never drops a run still waiting or running, however many settle after it", async () => {
    const stores = createMemoryStores({ maxSettledGamebookRuns: 1 });
    await stores.gamebookRuns.create({ ...gamebookRun("running", "ws-1", "SourceA", "inc-r", 0), status: "Running" }, []);
    for (let i = 1; i <= 5; i++) await stores.gamebookRuns.create(gamebookRun(`s${i}`, "ws-1", "SourceA", "inc-1", i), []);
    expect(await settledIds(stores)).toEqual(["s5", "running"]);
  });
});

function outboxRecord(id: string, minute: number): OutboxEventRecord {
  const occurredAt = new Date(Date.parse("2026-11-26T09:00:00.000Z") + minute * 60_000).toISOString();
  return {
    id: `outbox-${id}`,
    docType: "outbox",
    kind: "event",
    scope: outboxScope.workspace("ws-1"),
    createdAt: occurredAt,
    publishedAt: null,
    message: { envelope: { id, type: "incident.status.changed.v1", occurredAt, data: { status: "Active" } }, accountId: "acct-1", incident: null },
  };
}

function deliveryLog(id: string, webhookId: string, createdAt: string, ttl = 30 * 86_400, status: DeliveryLogRecord["status"] = "Succeeded"): DeliveryLogRecord {
  return {
    id,
    partitionKey: deliveryLogPartition(webhookId, createdAt),
    webhookConfigurationId: webhookId,
    eventId: `ev-${id}`,
    eventType: "incident.created.v1",
    eventOccurredAt: createdAt,
    status,
    httpStatusCode: status === "Succeeded" ? 200 : 503,
    success: status === "Succeeded",
    requestUrl: "https://hooks.example.com/in",
    requestHeaders: { "content-type": "application/json" },
    durationMs: 12,
    createdAt,
    redelivered: false,
    attempt: 1,
    isTest: false,
    incident: null,
    error: null,
    ttl,
  };
}

function event(id: string): AuditEventRecord {
  return auditEvent(id, { timeGenerated: "2026-11-26T10:00:00.000Z" });
}

// What Cosmos does by each record's ttl (the rest of the key's lifetime).
describe("memory idempotency records", () => {
  const record = (id: string, expiresAt: string) => ({ id, scope: "service-account:a:s", fingerprint: "f", createdAt: "2026-03-05T00:00:00.000Z", expiresAt });

  it("drops a record once its key has expired, at the next write", async () => {
    let clock = Date.parse("2026-03-05T00:00:00.000Z");
    const keys = memoryIdempotencyKeys({ now: () => clock });
    await keys.create(record("k1", "2026-03-06T00:00:00.000Z"));
    clock = Date.parse("2026-03-06T00:00:00.001Z");
    await keys.create(record("k2", "2026-03-07T00:00:00.000Z"));
    expect(await keys.get("service-account:a:s", "k1")).toBeUndefined();
    expect(await keys.get("service-account:a:s", "k2")).toBeDefined();
  });

  it(`keeps at most ${MAX_IDEMPOTENCY_RECORDS} by default, the oldest going first`, async () => {
    const keys = memoryIdempotencyKeys({ now: () => Date.parse("2026-03-05T00:00:00.000Z"), max: 3 });
    for (const id of ["k1", "k2", "k3", "k4"]) await keys.create(record(id, "2026-03-06T00:00:00.000Z"));
    expect(await keys.get("service-account:a:s", "k1")).toBeUndefined();
    expect(await keys.get("service-account:a:s", "k4")).toBeDefined();
  });
});
