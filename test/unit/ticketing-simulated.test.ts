import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { createSimulatedItsm } from "../../shared/systems/itsm/simulated/simulated-itsm";
import { disabledTicketing } from "../../shared/systems/itsm/port";

const start = new Date("2024-06-03T12:00:00.000Z");
const demo = buildDemoData("seed-1", start);
const [fabrikam, fabrikamStores, northwind, clinics] = demo.workspaces as [typeof demo.workspaces[0], typeof demo.workspaces[0], typeof demo.workspaces[0], typeof demo.workspaces[0]];

function itsm(seed = "seed-1", clock = { now: start }) {
  return createSimulatedItsm({ seed, workspaces: demo.workspaces, disabledWorkspaceIds: [clinics.id], now: () => clock.now });
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("simulated ITSM", () => {
  it("gives the same tickets for the same seed and other tickets for another seed", async () => {
    const a = itsm().console.createTicket(fabrikam.id, { title: "x", priority: "P3" });
    const b = itsm().console.createTicket(fabrikam.id, { title: "x", priority: "P3" });
    const c = itsm("seed-2").console.createTicket(fabrikam.id, { title: "x", priority: "P3" });
    expect(a).toEqual(b);
    expect(c.ticketId).not.toBe(a.ticketId);
  });

  it("numbers tickets in the desk's own format, with a URL that opens that ticket", async () => {
    const { console: desk } = itsm();
    for (const workspace of [fabrikam, northwind, demo.workspaces[4]!]) {
      const ticket = desk.createTicket(workspace.id, { title: "Phishing", priority: "P2" });
      if (ticket.system === "ServiceNow") {
        expect(ticket.ticketNumber).toMatch(/^INC\d{7}$/);
        expect(ticket.ticketId).toMatch(/^[0-9a-f]{32}$/);
        expect(ticket.url).toContain(ticket.ticketId);
      } else {
        expect(ticket.system).toBe("Jira Service Management");
        expect(ticket.ticketNumber).toMatch(/^SEC-\d+$/);
        expect(ticket.url.endsWith(`/browse/${ticket.ticketNumber}`)).toBe(true);
      }
    }
  });

  it("gives both workspaces of one customer the same kind of desk", () => {
    const { console: desk } = itsm();
    const a = desk.createTicket(fabrikam.id, { title: "a", priority: "P3" });
    const b = desk.createTicket(fabrikamStores.id, { title: "b", priority: "P3" });
    expect(a.system).toBe(b.system);
    expect(new URL(a.url).host).toBe(new URL(b.url).host);
  });

  it("starts one workspace without ticketing (EXTENSION_NOT_ENABLED) and the console can enable it", async () => {
    const { system, console: desk } = itsm();
    expect(system.isEnabled(clinics.id)).toBe(false);
    expect(system.isEnabled(fabrikam.id)).toBe(true);
    const error = await rejection(system.searchTickets({ workspaceId: clinics.id, groupingId: "g", limit: 5 }));
    expect(error).toMatchObject({ code: "EXTENSION_NOT_ENABLED", status: 400 });
    expect(error.message).toContain("ticketing");
    desk.setEnabled(clinics.id, true);
    expect(await system.searchTickets({ workspaceId: clinics.id, groupingId: "g", limit: 5 })).toEqual([]);
    desk.setEnabled(fabrikam.id, false);
    expect((await rejection(system.getTicket(fabrikam.id, "x"))).code).toBe("EXTENSION_NOT_ENABLED");
  });

  it("seeds tickets whose case ids find them, with realistic states and priorities", async () => {
    const { system } = itsm();
    // The seeded grouping ids are not known from outside; a ticket number is: the desk numbers sequentially.
    const created = itsm().console.createTicket(fabrikam.id, { title: "probe", priority: "P3" });
    const seededNumbers = Array.from({ length: 40 }, (_, i) => {
      const n = Number(created.ticketNumber.replace(/\D/g, "")) - 40 + i;
      return created.system === "ServiceNow" ? `INC${String(n).padStart(7, "0")}` : `SEC-${n}`;
    });
    const seeded = (await Promise.all(seededNumbers.map((ticketNumber) => system.searchTickets({ workspaceId: fabrikam.id, ticketNumber, limit: 1 })))).flat();
    expect(seeded).toHaveLength(40);
    for (const ticket of seeded) {
      expect(ticket.groupingIds).toHaveLength(1);
      expect(Date.parse(ticket.updatedAt)).toBeGreaterThanOrEqual(Date.parse(ticket.createdAt));
      expect(Date.parse(ticket.updatedAt)).toBeLessThan(start.getTime());
      const byCase = await system.searchTickets({ workspaceId: fabrikam.id, groupingId: ticket.groupingIds[0]!, limit: 10 });
      expect(byCase.map((t) => t.ticketId)).toContain(ticket.ticketId);
    }
    expect(new Set(seeded.map((t) => t.state)).size).toBeGreaterThan(2);
    expect(new Set(seeded.flatMap((t) => t.groupingIds)).size).toBeLessThan(40); // some cases hold two tickets
  });

  it("a disabled integration refuses every call with EXTENSION_NOT_ENABLED", async () => {
    const system = disabledTicketing();
    expect(system.isEnabled("w")).toBe(false);
    for (const call of [system.getTicket("w", "t"), system.searchTickets({ workspaceId: "w", groupingId: "g", limit: 1 }), system.listNotes("w", "t")]) {
      expect((await rejection(call)).code).toBe("EXTENSION_NOT_ENABLED");
    }
  });
});
