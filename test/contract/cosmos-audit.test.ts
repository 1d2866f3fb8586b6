import { auditEvent } from "../support/audit-events";
import type { Container } from "@azure/cosmos";
import { beforeEach, describe, expect, it } from "vitest";
import type { AuditEventRecord } from "../../shared/model/audit/audit-event";
import { auditRecord } from "../../shared/platform/events/audit-record";
import { OutboxRelay } from "../../shared/platform/events/outbox-relay";
import { silentLogger } from "../../shared/platform/logger";
import { serviceActor } from "../../shared/platform/actor";
import { auditPartitionOf, workspaceAuditTrail } from "../../shared/platform/store/audit-trail";
import { AuditSequencer, SEQUENCER_ID, settledMark, withMark, type TrailSequencer } from "../../shared/platform/store/cosmos/audit-sequencer";
import { containers } from "../../shared/platform/store/cosmos/containers";
import { cosmosAudit } from "../../shared/platform/store/cosmos/cosmos-audit";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { AuditStore } from "../../shared/platform/store/ports";
import { useCosmosDatabase } from "../support/cosmos-database";

/*
 * The Cosmos audit trail's own mechanics, beyond the store contract (test/contract/store-contract.ts,
 * which runs on both adapters): what an append touches, the sequencer's recovery from a crash, the
 * settling of the visible mark, the trails recorded before appends were plain creates, and the ttl.
 */

/** One server and database for the file; every test starts from empty containers. */
const cosmos = useCosmosDatabase();
let container: Container;
/** Every call the audit code makes on the container, as `items.<method>` or `item.<method>`. */
let calls: string[];
let clock: number;
const now = () => clock;
const TRAIL = workspaceAuditTrail("ws-1");
const SETTLED = { settleMs: 0, now };

beforeEach(async () => {
  await cosmos.empty();
  calls = [];
  container = counted(cosmos.database.container(containers.audit.name), calls);
  clock = Date.parse("2026-11-26T10:00:00.000Z");
});

describe("cosmos audit: appends", () => {
  it("an append is one create of the event, in its trail's day partition, with its ttl and no sequence: the trail's sequencer is not touched", async () => {
    const audit = cosmosAudit(container, { retentionDays: 30, ...SETTLED });
    await audit.append(event("e1", 1));
    expect(calls).toEqual(["items.create"]);
    // Appended again (the relay after a crash): one create, refused, and the first copy stays.
    await audit.append({ ...event("e1", 1), metadata: '{"again":true}' });
    expect(calls).toEqual(["items.create", "items.create"]);

    const { resource: stored } = await cosmos.database.container(containers.audit.name).item("e1", `${TRAIL}|2025-01-15`).read();
    expect(stored).toMatchObject({ id: "e1", pk: "workspace:ws-1|2025-01-15", trail: TRAIL, docType: "auditEvent", sequence: null, ttl: 30 * 86_400, metadata: "{}" });
    expect((await cosmos.database.container(containers.audit.name).item(SEQUENCER_ID, TRAIL).read()).resource).toBeUndefined();
  });

  it("sequencing one waiting event: read the sequencer, query, write the allocation, set the sequence, move the mark, query again", async () => {
    const audit = cosmosAudit(container, SETTLED);
    await audit.append(event("e1", 1));
    calls.length = 0;
    await audit.sequence([TRAIL]);
    expect(calls).toEqual(["item.read", "items.query", "items.create", "item.patch", "item.replace", "items.query"]);
    calls.length = 0;
    // Nothing waiting: one read and one query.
    await audit.sequence([TRAIL]);
    expect(calls).toEqual(["item.read", "items.query"]);
  });
});

describe("cosmos audit: the sequencer", () => {
  it("a step that crashed after writing its allocation is finished by the next, after takeoverMs; no sequence is given twice", async () => {
    const audit = cosmosAudit(container, SETTLED);
    for (const [id, minute] of [["e1", 1], ["e2", 2], ["e3", 3]] as const) await audit.append(event(id, minute));
    const crashed = sequencer();
    const allocated = (await crashed.allocate(await crashed.read(TRAIL)))!;
    expect(allocated.doc.pending!.map((s) => [s.id, s.sequence])).toEqual([["e1", 1], ["e2", 2], ["e3", 3]]);
    // The crash: only e1 got its sequence, and the mark did not move.
    await crashed.settle(allocated.doc.pending!.slice(0, 1));
    expect(await audit.listWorkspaceTrail("ws-1", 0, 10)).toEqual([]);

    // Another writer soon after: the allocation may be a live sequencer's, so it leaves it alone.
    await audit.append(event("e4", 4));
    calls.length = 0;
    await audit.sequence([TRAIL]);
    expect(calls).toEqual(["item.read"]);
    expect(await audit.listWorkspaceTrail("ws-1", 0, 10)).toEqual([]);

    // Past takeoverMs, the next sequencer finishes it, then goes on to e4.
    clock += 10_000;
    await audit.sequence([TRAIL]);
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "e1"], [2, "e2"], [3, "e3"], [4, "e4"]]);

    // The crashed sequencer, back, finishing its allocation from what it held: its write loses, and
    // no event's sequence changes (setting one is conditional on the event having none).
    expect(await crashed.finish(allocated)).toBeUndefined();
    expect(await sequencesStored()).toEqual({ e1: 1, e2: 2, e3: 3, e4: 4 });
  });

  it("an event already sequenced that a stale query allocates again keeps its first sequence; its slot stays unused and readers pass over it", async () => {
    const audit = cosmosAudit(container, SETTLED);
    await audit.append(event("e1", 1));
    await audit.sequence([TRAIL]);
    await audit.append(event("e2", 2));
    // What a query served by a replica behind e1's sequence would allocate: e1 and e2 again.
    const raw = cosmos.database.container(containers.audit.name);
    const { resource } = await raw.item(SEQUENCER_ID, TRAIL).read<TrailSequencer>();
    const slot = (id: string, sequence: number) => ({ id, pk: auditPartitionOf(event(id, 1)), sequence });
    await raw.items.upsert({ ...resource!, pending: [slot("e1", 2), slot("e2", 3)], allocatedAt: clock - 60_000 });

    await audit.sequence([TRAIL]);
    expect(await sequencesStored()).toEqual({ e1: 1, e2: 3 });
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "e1"], [3, "e2"]]);
    expect((await audit.listWorkspaceTrail("ws-1", 1, 10)).map((e) => e.event.id)).toEqual(["e2"]);
  });

  it("the sweep finds a trail whose allocation a crash left pending although no event waits any more, and finishes it", async () => {
    const audit = cosmosAudit(container, SETTLED);
    await audit.append(event("e1", 1));
    const crashed = sequencer();
    const allocated = (await crashed.allocate(await crashed.read(TRAIL)))!;
    await crashed.settle(allocated.doc.pending!);
    // Every event has its sequence, but the mark never moved: the export shows nothing yet.
    expect(await audit.listWorkspaceTrail("ws-1", 0, 10)).toEqual([]);
    clock += 10_000;
    expect(await audit.sequenceWaiting()).toBe(1);
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "e1"]]);
    expect(await audit.sequenceWaiting()).toBe(0);
  });

  it("the outbox sweep sequences the events of audit records carried out before a crash kept the relay from sequencing them", async () => {
    const audit = cosmosAudit(container, SETTLED);
    const stores = createMemoryStores();
    const relay = new OutboxRelay({ outbox: stores.outbox, events: idleQueue(), workQueues: { "gamebook-runs": idleQueue(), deliveries: idleQueue() }, audit, now: () => new Date(clock), logger: silentLogger });
    const record = auditRecord(serviceActor("portal", "Portal"), { activityType: "Test", activityAction: "Create", targetResourceType: "T", targetResourceId: "t-1", targetResourceName: "t", accountId: "acct-1", workspaceId: "ws-1" }, outboxScope.workspace("ws-1"), new Date(clock));
    // Committed, its event stored and the record marked carried out; then the crash.
    await stores.outbox.append([record]);
    await audit.append(record.audit);
    await stores.outbox.markPublished(record, new Date(clock).toISOString());
    expect(await audit.listWorkspaceTrail("ws-1", 0, 10)).toEqual([]);

    expect(await relay.sweep()).toBe(0);
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => e.event.id)).toEqual([record.audit.id]);
  });

  it("events recorded before appends were plain creates stay readable in their order, and the trail goes on from their last number", async () => {
    // As the counter kept them: in the trail's own partition, with their sequence, no trail or ttl.
    const raw = cosmos.database.container(containers.audit.name);
    for (const [id, sequence] of [["old-1", 1], ["old-2", 2]] as const) {
      await raw.items.create({ ...event(id, sequence), docType: "auditEvent", sequence, pk: TRAIL });
    }
    await raw.items.create({ id: SEQUENCER_ID, docType: "auditSequence", trail: TRAIL, sequence: 2, pk: TRAIL });

    const audit = cosmosAudit(container, { ...SETTLED, settleMs: 1_000 });
    // The counter's number has stood since before: readable at once.
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event])).toEqual([[1, event("old-1", 1)], [2, event("old-2", 2)]]);
    await audit.append(event("new-3", 3));
    await audit.sequence([TRAIL]);
    clock += 1_000;
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "old-1"], [2, "old-2"], [3, "new-3"]]);
    expect((await audit.listWorkspaceTrail("ws-1", 2, 10))[0]!.event).toStrictEqual(event("new-3", 3));
  });
});

describe("cosmos audit: the visible mark", () => {
  it("readers go up to a mark only once it has stood for settleMs", async () => {
    const audit = cosmosAudit(container, { settleMs: 1_000, now });
    await record(audit, event("e1", 1));
    expect(await audit.listWorkspaceTrail("ws-1", 0, 10)).toEqual([]);
    clock += 999;
    expect(await audit.listWorkspaceTrail("ws-1", 0, 10)).toEqual([]);
    clock += 1;
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => e.event.id)).toEqual(["e1"]);
    await record(audit, event("e2", 2));
    clock += 500;
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => e.event.id)).toEqual(["e1"]);
    clock += 500;
    expect((await audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => e.event.id)).toEqual(["e1", "e2"]);
  });

  it("keeps few marks however often the mark moves, and never lets a reader past a mark younger than settleMs", () => {
    let marks = withMark([], 0, 1, 0, 1_000);
    for (let at = 1; at <= 5_000; at++) {
      marks = withMark(marks, at, at + 1, at, 1_000);
      expect(marks.length).toBeLessThanOrEqual(11);
      const doc = { id: SEQUENCER_ID, docType: "auditSequence", trail: TRAIL, sequence: at + 1, marks } as const;
      // Mark s was reached at time s - 1: at `at`, a reader may go up to at most at - 1000 + 1.
      expect(settledMark(doc, at, 1_000)).toBeLessThanOrEqual(Math.max(0, at - 1_000 + 1));
      // And it is held back by no more than an eighth of settleMs beyond that.
      if (at > 1_200) expect(settledMark(doc, at, 1_000)).toBeGreaterThanOrEqual(at - 1_000 + 1 - 125);
    }
    // A counter from before marks had settled long ago.
    expect(settledMark({ id: SEQUENCER_ID, docType: "auditSequence", trail: TRAIL, sequence: 7 }, 0, 1_000)).toBe(7);
  });
});

function sequencer(): AuditSequencer {
  return new AuditSequencer(container, { now, settleMs: 0, takeoverMs: 10_000, batch: 100 });
}

async function record(audit: AuditStore, e: AuditEventRecord): Promise<void> {
  await audit.append(e);
  await audit.sequence([TRAIL]);
}

/** The sequence each stored event of the trail holds, by id. */
async function sequencesStored(): Promise<Record<string, number | null>> {
  const { resources } = await cosmos.database
    .container(containers.audit.name)
    .items.query<{ id: string; sequence: number | null }>({ query: "SELECT c.id, c.sequence FROM c WHERE c.trail = @trail AND c.docType = 'auditEvent'", parameters: [{ name: "@trail", value: TRAIL }] })
    .fetchAll();
  return Object.fromEntries(resources.map((r) => [r.id, r.sequence]).sort());
}


function idleQueue() {
  return { queueName: "idle", async send() {}, async schedule() {} };
}

/** The container, every call made on it (and on its items) written to `log`. */
describe("cosmos audit: the search", () => {
  const at = (minute: number) => new Date(Date.UTC(2025, 0, 15, 9, minute)).toISOString();
  const byActor = (id: string, minute: number, actorName: string) => ({ ...auditEvent(id, { timeGenerated: at(minute) }), actorName });

  it("without the actor's text a page is one query, whatever the other filters", async () => {
    const audit = cosmosAudit(container, SETTLED);
    for (let i = 0; i < 5; i++) await audit.append(byActor(`e${i}`, i, "SOAR connector"));
    calls.length = 0;
    const page = await audit.search({ trails: [TRAIL], activityType: "TicketLink", from: at(1) }, 2);
    expect(page.items.map((e) => e.id)).toEqual(["e4", "e3"]);
    expect(calls).toEqual(["items.query"]);
  });

  it("with the actor's text a call reads at most its bound, and says where to go on when the bound ended it", async () => {
    const audit = cosmosAudit(container, { ...SETTLED, searchReadLimit: 3 });
    await audit.append(byActor("match-old", 1, "Li Wei"));
    for (let i = 2; i <= 6; i++) await audit.append(byActor(`other-${i}`, i, "SOAR connector"));
    await audit.append(byActor("match-new", 7, "Li Wei"));
    calls.length = 0;
    const first = await audit.search({ trails: [TRAIL], actorText: "li wei" }, 10);
    // Read match-new, other-6, other-5: the bound, in one query of three.
    expect(first.items.map((e) => e.id)).toEqual(["match-new"]);
    expect(first.next).toEqual({ timeGenerated: at(5), id: "other-5" });
    expect(calls).toEqual(["items.query"]);
    const second = await audit.search({ trails: [TRAIL], actorText: "li wei" }, 10, first.next);
    expect(second.items).toEqual([]);
    expect(second.next).toEqual({ timeGenerated: at(2), id: "other-2" });
    const third = await audit.search({ trails: [TRAIL], actorText: "li wei" }, 10, second.next);
    expect(third.items.map((e) => e.id)).toEqual(["match-old"]);
    expect(third.next).toBeUndefined();
  });
});

function counted(target: Container, log: string[]): Container {
  const items = new Proxy(target.items, {
    get(items, key) {
      const member: unknown = Reflect.get(items, key);
      if (typeof member !== "function") return member;
      return (...args: unknown[]) => {
        log.push(`items.${String(key)}`);
        return (member as (...a: unknown[]) => unknown).apply(items, args);
      };
    },
  });
  return new Proxy(target, {
    get(container, key) {
      if (key === "items") return items;
      if (key === "item") {
        return (id: string, partitionKey: string) =>
          new Proxy(container.item(id, partitionKey), {
            get(item, method) {
              const member: unknown = Reflect.get(item, method);
              if (typeof member !== "function") return member;
              return (...args: unknown[]) => {
                log.push(`item.${String(method)}`);
                return (member as (...a: unknown[]) => unknown).apply(item, args);
              };
            },
          });
      }
      const member: unknown = Reflect.get(container, key);
      return typeof member === "function" ? (member as (...a: unknown[]) => unknown).bind(container) : member;
    },
  });
}

function event(id: string, minute: number): AuditEventRecord {
  return auditEvent(id, { timeGenerated: new Date(Date.UTC(2025, 0, 15, 9, minute)).toISOString() });
}
