import { describe, expect, it } from "vitest";
import type { AuditEventRecord } from "../../shared/domain/audit/audit-event";
import { memoryAudit } from "../../shared/platform/store/memory/memory-workspace-data";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import { describeStoreContract } from "./store-contract";

describeStoreContract("memory", async () => ({ stores: createMemoryStores(), teardown: async () => {} }));

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
});

function event(id: string): AuditEventRecord {
  return {
    id,
    accountId: "acct-1",
    timeGenerated: "2026-11-26T10:00:00.000Z",
    workspaceId: "ws-1",
    discriminator: "Workspace",
    activityType: "TicketLink",
    activityAction: "Create",
    actorId: "2f9b6a3e-0c1d-4e5f-8a7b-9c0d1e2f3a4b",
    actorName: "SOAR connector",
    actorEmail: "",
    targetResourceType: "TicketLink",
    targetResourceId: `link-${id}`,
    targetResourceName: "INC0012345",
    metadata: "{}",
  };
}
