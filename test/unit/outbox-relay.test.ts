import { describe, expect, it } from "vitest";
import { auditRecord } from "../../shared/platform/events/audit-record";
import { eventRecord } from "../../shared/platform/events/event-record";
import { OutboxRelay } from "../../shared/platform/events/outbox-relay";
import { silentLogger } from "../../shared/platform/logger";
import { serviceActor } from "../../shared/platform/actor";
import type { OutgoingMessage, QueueSender } from "../../shared/platform/queue/queue";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import type { AuditStore } from "../../shared/platform/store/ports";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { EventMessage } from "../../shared/platform/events/event-message";
import type { OutboxRecord } from "../../shared/platform/events/outbox-record";
import { executorMessage } from "../../shared/domain/gamebooks/run-records";

const scope = outboxScope.workspace("ws-1");

function event(minute: number): OutboxRecord {
  const occurredAt = new Date(Date.UTC(2026, 10, 20, 12, minute)).toISOString();
  return eventRecord("incident.status.changed.v1", { scope, accountId: "acct-1", occurredAt }, {} as never);
}

function queue<T = EventMessage>(refuse: (messageId: string) => boolean, sent: string[], queueName = "events"): QueueSender<T> {
  return {
    queueName,
    async send(messages: readonly OutgoingMessage<T>[]) {
      if (messages.some((m) => refuse(m.messageId))) throw new Error("message too large");
      sent.push(...messages.map((m) => m.messageId));
    },
    async schedule() {},
  };
}

describe("outbox relay", () => {
  it("one event the queue refuses holds up only itself: the others are published and marked", async () => {
    const stores = createMemoryStores();
    const sent: string[] = [];
    const [a, poison, b] = [event(1), event(2), event(3)] as [OutboxRecord, OutboxRecord, OutboxRecord];
    const poisonId = poison.kind === "event" ? poison.message.envelope.id : "";
    await stores.outbox.append([a, poison, b]);
    const relay = new OutboxRelay({ outbox: stores.outbox, events: queue((id) => id === poisonId, sent), workQueues: { "gamebook-runs": queue(() => false, []), deliveries: queue(() => false, []) }, audit: stores.audit, now: () => new Date(), logger: silentLogger });

    expect(await relay.sweep()).toBe(2);
    expect(sent).toHaveLength(2);
    expect(sent).not.toContain(poisonId);
    expect((await stores.outbox.listUnpublished(10)).map((r) => r.id)).toEqual([poison.id]);
    // The next sweep tries the refused one again and nothing else.
    expect(await relay.sweep()).toBe(0);
    expect(sent).toHaveLength(2);
  });

  it("a sweep drains a backlog batch after batch, not one batch a run, and stops when a batch carries nothing out", async () => {
    const stores = createMemoryStores();
    const sent: string[] = [];
    const backlog = Array.from({ length: 1_200 }, (_, i) => event(100 + i));
    await stores.outbox.append(backlog);
    const relay = new OutboxRelay({ outbox: stores.outbox, events: queue(() => false, sent), workQueues: { "gamebook-runs": queue(() => false, []), deliveries: queue(() => false, []) }, audit: stores.audit, now: () => new Date(), logger: silentLogger });
    expect(await relay.sweepAndCount(500)).toEqual({ waiting: 1_200, carriedOut: 1_200 });
    expect(await stores.outbox.listUnpublished(10)).toEqual([]);

    // A full batch the queue refuses entirely: one pass, then the sweep gives up until its next run.
    const refused = Array.from({ length: 3 }, (_, i) => event(5_000 + i));
    await stores.outbox.append(refused);
    const refusing = new OutboxRelay({ outbox: stores.outbox, events: queue(() => true, []), workQueues: { "gamebook-runs": queue(() => false, []), deliveries: queue(() => false, []) }, audit: stores.audit, now: () => new Date(), logger: silentLogger });
    expect(await refusing.sweepAndCount(3)).toEqual({ waiting: 3, carriedOut: 0 });
  });

  it("appends audit records to the trail once, however often they are carried out", async () => {
    const stores = createMemoryStores();
    const relay = new OutboxRelay({ outbox: stores.outbox, events: queue(() => false, []), workQueues: { "gamebook-runs": queue(() => false, []), deliveries: queue(() => false, []) }, audit: stores.audit, now: () => new Date(), logger: silentLogger });
    const audit = auditRecord(
      serviceActor("portal", "Portal"),
      { activityType: "Test", activityAction: "Create", targetResourceType: "T", targetResourceId: "t-1", targetResourceName: "t", accountId: "acct-1" },
      scope,
      new Date(),
    );
    await relay.record([audit], undefined);
    // A crash between the append and the mark: the sweep carries it out again.
    await stores.outbox.append([audit]);
    expect(await relay.sweep()).toBe(1);
    expect(await stores.audit.listRecent("acct-1", 10)).toHaveLength(1);
    expect(await stores.outbox.listUnpublished(10)).toEqual([]);
  });

  it("asks for the trails it appended to be sequenced once their events are stored, without waiting for it, and the sweep sequences any trail left waiting", async () => {
    const stores = createMemoryStores();
    const asked: string[][] = [];
    let sweeps = 0;
    let sequencing = Promise.resolve();
    const audit: AuditStore = {
      ...stores.audit,
      append: (e) => stores.audit.append(e),
      sequence: async (trails) => {
        asked.push([...trails]);
        await sequencing;
      },
      sequenceWaiting: async () => ++sweeps,
    };
    const relay = new OutboxRelay({ outbox: stores.outbox, events: queue(() => false, []), workQueues: { "gamebook-runs": queue(() => false, []), deliveries: queue(() => false, []) }, audit, now: () => new Date(), logger: silentLogger });
    const entry = (targetResourceId: string, workspaceId: string | null) =>
      auditRecord(serviceActor("portal", "Portal"), { activityType: "Test", activityAction: "Create", targetResourceType: "T", targetResourceId, targetResourceName: "t", accountId: "acct-1", workspaceId }, scope, new Date());
    await relay.record([entry("t-1", "ws-1"), entry("t-2", "ws-1"), entry("t-3", null), event(1)], undefined);
    expect(asked.map((trails) => [...new Set(trails)].sort())).toEqual([["account:acct-1", "workspace:ws-1"]]);
    expect(await stores.audit.listRecent("acct-1", 10)).toHaveLength(3);

    // Sequencing that has not finished (a busy trail) does not hold up the record's request.
    let finish!: () => void;
    sequencing = new Promise<void>((resolve) => (finish = resolve));
    await relay.record([entry("t-5", "ws-1")], undefined);
    expect(asked).toHaveLength(2);
    expect(await stores.outbox.listUnpublished(10)).toEqual([]);
    finish();

    // Sequencing that fails leaves the records carried out: the events are stored, the sweep sequences them.
    sequencing = Promise.reject(new Error("store unavailable"));
    sequencing.catch(() => {});
    await relay.record([entry("t-4", "ws-1")], undefined);
    expect(await stores.outbox.listUnpublished(10)).toEqual([]);
    expect(await relay.sweep()).toBe(0);
    expect(sweeps).toBe(1);
  });

  it("sends work messages to their queue after the commit, and the sweep resends one the queue refused", async () => {
    const stores = createMemoryStores();
    const sent: string[] = [];
    let down = true;
    const relay = new OutboxRelay({
      outbox: stores.outbox,
      events: queue(() => false, []),
      workQueues: { "gamebook-runs": queue(() => down, sent, "gamebook-runs"), deliveries: queue(() => false, []) },
      audit: stores.audit,
      now: () => new Date(),
      logger: silentLogger,
    });
    const message = executorMessage({ workspaceId: "ws-1", id: "run-1" }, 1, 1, new Date().toISOString());
    await relay.record([message], undefined);
    expect(sent).toEqual([]);
    expect((await stores.outbox.listUnpublished(10)).map((r) => r.id)).toEqual([message.id]);
    down = false;
    expect(await relay.sweep()).toBe(1);
    expect(sent).toEqual(["gamebook-run/run-1/1/1"]);
    expect(await stores.outbox.listUnpublished(10)).toEqual([]);
  });
});
