import { describe, expect, it } from "vitest";
import type { EventMessage } from "../../shared/events/event-message";
import { OutboxRelay } from "../../shared/events/outbox-relay";
import { silentLogger } from "../../shared/logger";
import type { OutgoingMessage, QueueSender } from "../../shared/queue/queue";
import { createMemoryStores } from "../../shared/store/memory/memory-stores";
import type { OutboxEventRecord } from "../../shared/store/records";

function event(id: string, minute: number): OutboxEventRecord {
  const occurredAt = new Date(Date.UTC(2026, 10, 20, 12, minute)).toISOString();
  return {
    id: `event-${id}`, docType: "outboxEvent", workspaceId: "ws-1", accountId: "acct-1", eventId: id, type: "incident.status.changed.v1", occurredAt,
    envelope: { id, type: "incident.status.changed.v1", occurredAt, data: { incidentId: "inc-1", source: "sourcea", workspaceId: "ws-1" } },
    publishedAt: null,
  };
}

describe("outbox relay", () => {
  it("one event the queue refuses holds up only itself: the others are published and marked", async () => {
    const stores = createMemoryStores();
    const sent: string[] = [];
    const queue: QueueSender<EventMessage> = {
      queueName: "events",
      async send(messages: readonly OutgoingMessage<EventMessage>[]) {
        if (messages.some((m) => m.messageId === "poison")) throw new Error("message too large");
        sent.push(...messages.map((m) => m.messageId));
      },
      async schedule() {},
    };
    await stores.incidents.appendEvents("ws-1", [event("a", 1), event("poison", 2), event("b", 3)]);
    const relay = new OutboxRelay(stores.incidents, queue, () => new Date(), silentLogger);

    expect(await relay.sweep()).toBe(2);
    expect(sent.sort()).toEqual(["a", "b"]);
    expect((await stores.incidents.listUnpublished(10)).map((e) => e.eventId)).toEqual(["poison"]);
    // The next sweep tries the refused one again and nothing else.
    expect(await relay.sweep()).toBe(0);
    expect(sent.sort()).toEqual(["a", "b"]);
  });
});
