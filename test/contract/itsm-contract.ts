import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../shared/platform/errors/api-error";
import { ticketPriorities, ticketStates, type NewTicketNote, type Ticket, type TicketingSystem } from "../../shared/systems/itsm/port";
import { createSimulatedItsm, type ItsmConsole, type SimulatedItsm } from "../../shared/systems/itsm/simulated/simulated-itsm";
import { apiErrorOf } from "../support/api-error-of";

const T0 = Date.parse("2024-06-03T12:00:00.000Z");
const MINUTE = 60_000;

/** Needs encoding as a path segment ("/", " ", "+"), so that an adapter over HTTP must carry it intact. */
const WS = "ws fabrikam/prod+1";
const OTHER_WS = "ws-northwind";
/** Known to the ITSM, but set up without ticketing. */
const DISABLED_WS = "ws-clinics";

/** The ITSM every fixture puts behind its adapter, on a clock the test moves by hand. */
export interface SimulatedItsmWorld {
  itsm: SimulatedItsm;
  clock: { now: number };
}

export function simulatedItsmWorld(): SimulatedItsmWorld {
  const clock = { now: T0 };
  const itsm = createSimulatedItsm({
    seed: "itsm-contract",
    workspaces: [
      { id: WS, name: "fabrikam-sentinel-prod" },
      { id: OTHER_WS, name: "northwind-sentinel-hq" },
      { id: DISABLED_WS, name: "clinics-sentinel" },
    ],
    disabledWorkspaceIds: [DISABLED_WS],
    ticketsPerWorkspace: 20,
    now: () => new Date(clock.now),
  });
  return { itsm, clock };
}

export interface ItsmFixture {
  /** The adapter under test. */
  system: TicketingSystem;
  /** Acting in the ITSM behind the adapter. */
  console: ItsmConsole;
  /** The ITSM's clock. */
  clock: { now: number };
  teardown(): Promise<void>;
}

/**
 * The behaviour every TicketingSystem adapter must have, pinned once and run against each adapter.
 * `setup` gives every test a fresh ITSM (simulatedItsmWorld) behind its adapter.
 */
export function describeItsmContract(name: string, setup: () => Promise<ItsmFixture>): void {
  describe(`${name} ticketing`, () => {
    let fixture: ItsmFixture;
    let system: TicketingSystem;
    let desk: ItsmConsole;
    let teardown: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      fixture = await setup();
      ({ system, console: desk, teardown } = fixture);
    });
    afterEach(async () => {
      await teardown?.();
      teardown = undefined;
    });

    const tick = (ms: number) => {
      fixture.clock.now += ms;
      return new Date(fixture.clock.now).toISOString();
    };
    const note = (body: string, extra: Partial<NewTicketNote> = {}): NewTicketNote => ({ kind: "WorkNote", body, authorName: "Triage agent", authorEmail: null, ...extra });

    it("serves the workspaces its ITSM is set up for", () => {
      expect(system.isEnabled(WS)).toBe(true);
      expect(system.isEnabled(OTHER_WS)).toBe(true);
    });

    describe("reading and searching", () => {
      it("getTicket returns the ticket as the ITSM holds it", async () => {
        const created = desk.createTicket(WS, { title: "Security incident: impossible travel", priority: "P2", groupingIds: ["case-7f3a9c01"] });
        const read = await system.getTicket(WS, created.ticketId);
        expect(read).toEqual(created);
        expect(ticketStates).toContain(read.state);
        expect(ticketPriorities).toContain(read.priority);
        expect(new URL(read.url).protocol).toMatch(/^https?:$/);
        expect(await system.getTicket(WS, created.ticketId)).toEqual(read);
      });

      it("finds a ticket by its number, case-insensitively but exactly", async () => {
        const created = desk.createTicket(WS, { title: "Contain host", priority: "P1" });
        expect(await system.searchTickets({ workspaceId: WS, ticketNumber: created.ticketNumber, limit: 10 })).toEqual([created]);
        expect(await system.searchTickets({ workspaceId: WS, ticketNumber: created.ticketNumber.toLowerCase(), limit: 10 })).toEqual([created]);
        expect(await system.searchTickets({ workspaceId: WS, ticketNumber: created.ticketNumber.slice(0, -1), limit: 10 })).not.toContainEqual(created);
        expect(await system.searchTickets({ workspaceId: WS, ticketNumber: "NO-SUCH-NUMBER", limit: 10 })).toEqual([]);
      });

      it("finds every ticket carrying a grouping id, exactly, and both criteria together", async () => {
        const first = desk.createTicket(WS, { title: "Contain host", priority: "P1", groupingIds: ["case-incident-42"] });
        tick(MINUTE);
        const second = desk.createTicket(WS, { title: "Reset password", priority: "P2", groupingIds: ["case-other", "case-incident-42"] });
        desk.createTicket(WS, { title: "Unrelated", priority: "P3", groupingIds: ["case-incident-4"] });
        const byCase = await system.searchTickets({ workspaceId: WS, groupingId: "case-incident-42", limit: 10 });
        expect(byCase).toEqual([second, first]);
        expect(await system.searchTickets({ workspaceId: WS, groupingId: "case-incident-42", ticketNumber: first.ticketNumber, limit: 10 })).toEqual([first]);
        const unrelated = desk.createTicket(WS, { title: "Elsewhere", priority: "P4", groupingIds: ["case-elsewhere"] });
        expect(await system.searchTickets({ workspaceId: WS, groupingId: "case-incident-42", ticketNumber: unrelated.ticketNumber, limit: 10 })).toEqual([]);
        expect(await system.searchTickets({ workspaceId: WS, groupingId: "CASE-INCIDENT-42", limit: 10 })).toEqual([]);
      });

      it("lists search results most recently updated first, at most limit", async () => {
        const made: Ticket[] = [];
        for (const title of ["one", "two", "three"]) {
          tick(MINUTE);
          made.push(desk.createTicket(WS, { title, priority: "P3", groupingIds: ["case-order"] }));
        }
        const search = (limit: number) => system.searchTickets({ workspaceId: WS, groupingId: "case-order", limit });
        expect((await search(10)).map((t) => t.title)).toEqual(["three", "two", "one"]);
        tick(MINUTE);
        await system.addNote(WS, made[0]!.ticketId, note("Bumped."));
        tick(MINUTE);
        await system.setPriority(WS, made[1]!.ticketId, "P1");
        expect((await search(10)).map((t) => t.title)).toEqual(["two", "one", "three"]);
        expect((await search(2)).map((t) => t.title)).toEqual(["two", "one"]);
        expect((await search(1)).map((t) => t.title)).toEqual(["two"]);
      });

      it("keeps each workspace's tickets to itself", async () => {
        const created = desk.createTicket(WS, { title: "Fabrikam only", priority: "P3", groupingIds: ["case-shared-name"] });
        expect(await system.searchTickets({ workspaceId: OTHER_WS, groupingId: "case-shared-name", limit: 10 })).toEqual([]);
        expect(await system.searchTickets({ workspaceId: OTHER_WS, ticketNumber: created.ticketNumber, limit: 10 })).not.toContainEqual(created);
        await expectCode(system.getTicket(OTHER_WS, created.ticketId), "NOT_FOUND");
        await expectCode(system.listNotes(OTHER_WS, created.ticketId), "NOT_FOUND");
      });

      it("refuses a search without any criterion with VALIDATION_ERROR", async () => {
        await expectCode(system.searchTickets({ workspaceId: WS, limit: 10 }), "VALIDATION_ERROR");
      });

      it("hands out copies: changing a returned ticket changes nothing in the ITSM", async () => {
        const created = desk.createTicket(WS, { title: "Copy", priority: "P3", groupingIds: ["case-copy"] });
        const read = await system.getTicket(WS, created.ticketId);
        read.groupingIds.push("case-injected");
        read.title = "changed";
        const [found] = await system.searchTickets({ workspaceId: WS, groupingId: "case-copy", limit: 1 });
        found!.groupingIds.length = 0;
        expect(await system.getTicket(WS, created.ticketId)).toEqual(created);
      });
    });

    describe("changes", () => {
      it("setPriority returns the ticket as it now stands, moving updatedAt, and a read shows the same", async () => {
        const created = desk.createTicket(WS, { title: "Escalate", priority: "P4" });
        const at = tick(MINUTE);
        const updated = await system.setPriority(WS, created.ticketId, "P1");
        expect(updated).toEqual({ ...created, priority: "P1", updatedAt: at });
        expect(await system.getTicket(WS, created.ticketId)).toEqual(updated);
      });

      it("lists a ticket's notes oldest first: its own, those added through the adapter and in the ITSM", async () => {
        const created = desk.createTicket(OTHER_WS, { title: "Isolate", priority: "P2" });
        expect(await system.listNotes(OTHER_WS, created.ticketId)).toEqual([]);
        const addedAt = tick(MINUTE);
        const mine = await system.addNote(OTHER_WS, created.ticketId, note("Isolated through EDR."));
        expect(mine).toEqual({
          id: expect.any(String) as unknown,
          ticketId: created.ticketId,
          kind: "WorkNote",
          body: "Isolated through EDR.",
          authorName: "Triage agent",
          authorEmail: null,
          createdAt: addedAt,
        });
        expect(mine.id).not.toBe("");
        tick(MINUTE);
        const theirs = desk.addNote(OTHER_WS, created.ticketId, { kind: "Comment", body: "User informed.", authorName: "Dana Whitfield", authorEmail: "dana@northwind.example" });
        const lastAt = tick(MINUTE);
        const visible = await system.addNote(OTHER_WS, created.ticketId, note("Requester update.", { kind: "Comment", authorEmail: "soc@example.com" }));
        expect(visible).toMatchObject({ kind: "Comment", authorEmail: "soc@example.com", createdAt: lastAt });
        expect(await system.listNotes(OTHER_WS, created.ticketId)).toEqual([mine, theirs, visible]);
        expect(new Set([mine.id, theirs.id, visible.id]).size).toBe(3);
        expect((await system.getTicket(OTHER_WS, created.ticketId)).updatedAt).toBe(lastAt);
      });

      it("answers NOT_FOUND for an unknown ticket on every call", async () => {
        await expectCode(system.getTicket(WS, "no-such-ticket"), "NOT_FOUND");
        await expectCode(system.setPriority(WS, "no-such-ticket", "P1"), "NOT_FOUND");
        await expectCode(system.listNotes(WS, "no-such-ticket"), "NOT_FOUND");
        await expectCode(system.addNote(WS, "no-such-ticket", note("x")), "NOT_FOUND");
      });
    });

    describe("workspaces without ticketing", () => {
      it("refuses every call for a workspace the ITSM does not serve: EXTENSION_NOT_ENABLED where isEnabled says so, NOT_FOUND otherwise", async () => {
        for (const workspaceId of [DISABLED_WS, "ws-unknown"]) {
          const code: ErrorCode = system.isEnabled(workspaceId) ? "NOT_FOUND" : "EXTENSION_NOT_ENABLED";
          for (const call of [
            () => system.searchTickets({ workspaceId, groupingId: "case-1", limit: 5 }),
            () => system.getTicket(workspaceId, "t-1"),
            () => system.setPriority(workspaceId, "t-1", "P2"),
            () => system.listNotes(workspaceId, "t-1"),
            () => system.addNote(workspaceId, "t-1", note("x")),
          ]) {
            await expectCode(call, code);
          }
        }
      });

      it("serves a workspace once the ITSM is set up for it", async () => {
        desk.setEnabled(DISABLED_WS, true);
        expect(system.isEnabled(DISABLED_WS)).toBe(true);
        const created = desk.createTicket(DISABLED_WS, { title: "Now served", priority: "P3", groupingIds: ["case-late"] });
        expect(await system.searchTickets({ workspaceId: DISABLED_WS, groupingId: "case-late", limit: 5 })).toEqual([created]);
      });
    });

    it("fails a call whose caller has already gone away with UPSTREAM_ERROR, and changes nothing", async () => {
      const created = desk.createTicket(WS, { title: "Untouched", priority: "P3" });
      tick(MINUTE);
      for (const call of [
        () => system.setPriority(WS, created.ticketId, "P1", AbortSignal.abort()),
        () => system.addNote(WS, created.ticketId, note("Never written."), AbortSignal.abort()),
        () => system.getTicket(WS, created.ticketId, AbortSignal.abort()),
        () => system.listNotes(WS, created.ticketId, AbortSignal.abort()),
        () => system.searchTickets({ workspaceId: WS, ticketNumber: created.ticketNumber, limit: 1 }, AbortSignal.abort()),
      ]) {
        const error = await apiErrorOf(call);
        expect(error.code).toBe("UPSTREAM_ERROR");
        expect(error.message).toMatch(/^Request aborted: the caller went away/);
      }
      expect(await system.getTicket(WS, created.ticketId)).toEqual(created);
      expect(await system.listNotes(WS, created.ticketId)).toEqual([]);
    });
  });
}

async function expectCode(call: Promise<unknown> | (() => Promise<unknown>), code: ErrorCode): Promise<void> {
  expect((await apiErrorOf(call)).code).toBe(code);
}
