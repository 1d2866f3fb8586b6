import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../shared/platform/errors/api-error";
import type { IncidentFilters, IncidentWindowQuery, NewVendorComment, SourceGateway } from "../../shared/systems/vendors/port";
import type { VendorComment, VendorIncident } from "../../shared/model/incidents/incident";
import { createSimulatedVendors, type SimulatedConsole, type SimulatedVendors } from "../../shared/systems/vendors/simulated/simulated-vendor";
import type { Source } from "../../shared/model/sources";
import { apiErrorOf } from "../support/api-error-of";

const T0 = Date.parse("2025-03-01T12:00:00.000Z");
const MINUTE = 60_000;
const DAY = 86_400_000;
const EVER = { from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z" };

/** Needs encoding as a path segment ("/", " ", "+"), so that an adapter over HTTP must carry it intact. */
const WS = "ws fabrikam/prod+1";
const OTHER_WS = "ws-northwind";
const owners = [
  { userId: "u-amira", email: "Amira.Haddad@contoso-mssp.example", name: "Amira Haddad" },
  { userId: "u-jonas", email: "jonas.becker@contoso-mssp.example", name: "Jonas Becker" },
  { userId: "u-li", email: "li.wei@contoso-mssp.example", name: "Li Wei" },
];

/** The vendor system every fixture puts behind its adapter, on a clock the test moves by hand. */
export interface SimulatedVendorWorld {
  vendors: SimulatedVendors;
  clock: { now: number };
}

export function simulatedVendorWorld(): SimulatedVendorWorld {
  const clock = { now: T0 };
  const vendors = createSimulatedVendors({
    seed: "vendor-contract",
    workspaces: [
      { id: WS, name: "fabrikam-sentinel-prod", tenantId: "tenant-fabrikam" },
      { id: OTHER_WS, name: "northwind-sentinel-clinics", tenantId: "tenant-northwind" },
    ],
    incidentsPerWorkspace: 400,
    owners,
    now: () => new Date(clock.now),
  });
  return { vendors, clock };
}

export interface VendorFixture {
  /** The adapter under test for one source, over the world's vendors. */
  gateway(source: Source): SourceGateway;
  /** Acting in the vendor behind the adapter. */
  console: SimulatedConsole;
  /** The vendor's clock. */
  clock: { now: number };
  teardown(): Promise<void>;
}

/**
 * The behaviour every SourceGateway adapter must have, pinned once and run against each adapter.
 * `setup` gives every test a fresh simulated vendor world (simulatedVendorWorld) behind its adapter.
 */
export function describeVendorsContract(name: string, setup: () => Promise<VendorFixture>): void {
  describe(`${name} vendor gateway`, () => {
    let fixture: VendorFixture;
    let a: SourceGateway;
    let b: SourceGateway;
    let teardown: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      fixture = await setup();
      teardown = fixture.teardown;
      a = fixture.gateway("SourceA");
      b = fixture.gateway("SourceB");
    });
    afterEach(async () => {
      await teardown?.();
      teardown = undefined;
    });

    const tick = (ms: number) => {
      fixture.clock.now += ms;
      return new Date(fixture.clock.now).toISOString();
    };
    const everything = async (gateway: SourceGateway, field: IncidentWindowQuery["field"] = "createdAt", workspaceId = WS) =>
      (await gateway.listIncidents({ workspaceId, field, ...EVER, limit: 100_000 })).items;

    describe("reading incidents", () => {
      it("getIncident returns the incident exactly as the listing shows it", async () => {
        const all = await everything(a);
        expect(all.length).toBeGreaterThan(50);
        for (const listed of [all[0]!, all[Math.floor(all.length / 2)]!, all.at(-1)!]) {
          const read = await a.getIncident(WS, listed.id);
          expect(read).toEqual(listed);
          expect(read).toMatchObject({ id: listed.id, source: "SourceA", workspaceId: WS });
        }
        expect(all.every((i) => i.source === "SourceA" && i.workspaceId === WS)).toBe(true);
        expect(new Set(all.map((i) => i.id)).size).toBe(all.length);
      });

      it("keeps each workspace's and each source's incidents apart", async () => {
        const [fabrikam, northwind, inB] = [await everything(a), await everything(a, "createdAt", OTHER_WS), await everything(b)];
        expect(northwind.length).toBeGreaterThan(0);
        expect(inB.length).toBeGreaterThan(0);
        expect(northwind.every((i) => i.workspaceId === OTHER_WS && i.source === "SourceA")).toBe(true);
        expect(inB.every((i) => i.workspaceId === WS && i.source === "SourceB")).toBe(true);
        const ids = new Set(fabrikam.map((i) => i.id));
        expect(northwind.some((i) => ids.has(i.id)) || inB.some((i) => ids.has(i.id))).toBe(false);
      });

      it("answers NOT_FOUND for an unknown incident, one of another source or workspace, and an unknown workspace", async () => {
        const known = (await everything(a))[0]!;
        const inB = (await everything(b))[0]!;
        for (const call of [
          () => a.getIncident(WS, "00000000-0000-8000-8000-000000000000"),
          () => a.getIncident(WS, "nonsense/../x"),
          () => a.getIncident(WS, inB.id),
          () => b.getIncident(WS, known.id),
          () => a.getIncident(OTHER_WS, known.id),
          () => a.getIncident("ws-unknown", known.id),
          () => a.listIncidents({ workspaceId: "ws-unknown", field: "createdAt", ...EVER, limit: 5 }),
          () => a.getEvidence(WS, "missing"),
          () => a.relatedByEntity({ workspaceId: WS, incidentId: "missing", limit: 5 }),
        ]) {
          await expectCode(call, "NOT_FOUND");
        }
      });

      it("getEvidence returns well-formed rows about the incident's own entities, the same on every read", async () => {
        const incidents = (await everything(a)).slice(0, 20);
        let rows = 0;
        for (const incident of incidents) {
          const evidence = await a.getEvidence(WS, incident.id);
          const entityIds = new Set(incident.entities.map((e) => e.id));
          for (const row of evidence.rows) {
            expect(["Malicious", "Suspicious", "Clean", "Unknown"]).toContain(row.verdict);
            if (row.entityId !== null) expect(entityIds.has(row.entityId)).toBe(true);
            expect(Number.isNaN(Date.parse(row.collectedAt))).toBe(false);
          }
          rows += evidence.rows.length;
          expect(await a.getEvidence(WS, incident.id)).toEqual(evidence);
        }
        expect(rows).toBeGreaterThan(0);
      });

      it("hands out copies: changing a returned object changes nothing in the vendor", async () => {
        const incident = (await everything(a)).find((i) => i.owner !== null && i.entities.length > 0)!;
        const pristine = structuredClone(incident);
        incident.title = "changed";
        incident.entities[0]!.name = "changed";
        incident.entities[0]!.properties.injected = 1;
        incident.alerts.push(incident.alerts[0]!);
        incident.alerts[0]!.entityIds.push("injected");
        incident.owner!.email = "changed";
        for (const block of Object.values(incident.vendorIdentifiers)) block.incidentId = "changed";
        for (const key of Object.keys(incident.gamebookCatalog)) delete incident.gamebookCatalog[key];
        expect(await a.getIncident(WS, incident.id)).toEqual(pristine);
        const [listed] = (await a.listIncidents({ workspaceId: WS, field: "createdAt", from: pristine.createdAt, to: new Date(Date.parse(pristine.createdAt) + 1).toISOString(), limit: 1 })).items;
        expect(listed).toEqual(pristine);

        const comments = await a.listComments(WS, incident.id);
        const commentsCopy = structuredClone(comments);
        if (comments[0]) comments[0].message = "changed";
        comments.length = 0;
        expect(await a.listComments(WS, incident.id)).toEqual(commentsCopy);

        const evidence = await a.getEvidence(WS, incident.id);
        const evidenceCopy = structuredClone(evidence);
        evidence.rows.length = 0;
        expect(await a.getEvidence(WS, incident.id)).toEqual(evidenceCopy);
      });
    });

    describe("windows and paging", () => {
      for (const field of ["createdAt", "lastModificationTime"] as const) {
        it(`pages a ${field} window newest first, each incident exactly once, the last page without a cursor`, async () => {
          const all = await everything(a, field);
          expectNewestFirst(all, field);
          const from = new Date(T0 - 20 * DAY).toISOString();
          const to = new Date(T0 - 5 * DAY).toISOString();
          const expected = all.filter((i) => i[field] >= from && i[field] < to);
          expect(expected.length).toBeGreaterThan(20);
          expect(expected.length).toBeLessThan(all.length);
          for (const limit of [1, 7, 50]) {
            const paged = await pageThrough(a, { workspaceId: WS, field, from, to }, limit);
            expect(paged.map((i) => i.id)).toEqual(expected.map((i) => i.id));
          }
        });
      }

      it("includes the window's lower bound and excludes its upper bound", async () => {
        const incident = (await everything(a))[30]!;
        const at = tick(5 * MINUTE);
        await a.setOwner(WS, incident.id, null);
        const t = Date.parse(at);
        const window = (from: number, to: number) =>
          a.listIncidents({ workspaceId: WS, field: "lastModificationTime", from: new Date(from).toISOString(), to: new Date(to).toISOString(), limit: 10 });
        expect((await window(t, t + 1)).items.map((i) => i.id)).toEqual([incident.id]);
        expect((await window(t - MINUTE, t)).items.map((i) => i.id)).not.toContain(incident.id);
        expect((await window(t + 1, t + MINUTE)).items).toEqual([]);
      });

      it("answers an empty window with an empty page and no cursor", async () => {
        const at = new Date(T0 - 3 * DAY).toISOString();
        expect(await a.listIncidents({ workspaceId: WS, field: "createdAt", from: at, to: at, limit: 5 })).toEqual({ items: [] });
        expect(await a.listIncidents({ workspaceId: WS, field: "createdAt", from: EVER.to, to: "2100-01-02T00:00:00.000Z", limit: 5 })).toEqual({ items: [] });
      });

      it("pages incidents with equal timestamps each exactly once, in the order of a single page", async () => {
        const some = (await everything(a)).slice(10, 25);
        const at = tick(MINUTE);
        for (const incident of some) await a.setOwner(WS, incident.id, null);
        const window = { workspaceId: WS, field: "lastModificationTime" as const, from: at, to: new Date(Date.parse(at) + 1).toISOString() };
        const single = (await a.listIncidents({ ...window, limit: 100 })).items.map((i) => i.id);
        expect([...single].sort()).toEqual(some.map((i) => i.id).sort());
        for (const limit of [1, 2, 4]) expect((await pageThrough(a, window, limit)).map((i) => i.id)).toEqual(single);
      });

      it("applies each filter, and several together, while paging", async () => {
        const all = await everything(a);
        const check = async (filters: IncidentFilters, predicate: (i: VendorIncident) => boolean) => {
          const expected = all.filter(predicate).map((i) => i.id);
          const paged = await pageThrough(a, { workspaceId: WS, field: "createdAt", ...EVER, filters }, 9);
          expect(paged.map((i) => i.id)).toEqual(expected);
          return expected.length;
        };
        const lower = (text: string) => text.toLowerCase();
        const mentions = (i: VendorIncident, needle: string) =>
          lower(i.title).includes(needle) || String(i.number).includes(needle) || i.entities.some((e) => lower(e.name).includes(needle));

        expect(await check({ severities: ["High", "Medium"] }, (i) => i.severity === "High" || i.severity === "Medium")).toBeGreaterThan(0);
        expect(await check({ statuses: ["Closed"] }, (i) => i.status === "Closed")).toBeGreaterThan(0);
        expect(await check({ statuses: ["New", "Active"], severities: ["High"] }, (i) => i.status !== "Closed" && i.severity === "High")).toBeGreaterThan(0);
        expect(await check({ query: "PHISHING" }, (i) => mentions(i, "phishing"))).toBeGreaterThan(0);
        const host = lower(all.flatMap((i) => i.entities).find((e) => e.kind === "Host")!.name);
        expect(await check({ query: host.toUpperCase() }, (i) => mentions(i, host))).toBeGreaterThan(0);
        const number = String(all[3]!.number);
        expect(await check({ query: number }, (i) => mentions(i, number))).toBeGreaterThan(0);
        expect(await check({ query: "no such text anywhere" }, () => false)).toBe(0);

        const amira = lower(owners[0]!.email);
        const ownedBy = (i: VendorIncident, email: string) => i.owner !== null && lower(i.owner.email ?? "") === email;
        expect(await check({ assigneeEmails: [amira] }, (i) => ownedBy(i, amira))).toBeGreaterThan(0);
        expect(await check({ assigneeEmails: [amira.toUpperCase(), lower(owners[1]!.email)] }, (i) => ownedBy(i, amira) || ownedBy(i, lower(owners[1]!.email)))).toBeGreaterThan(0);
        expect(await check({ includeUnassigned: true }, (i) => i.owner === null)).toBeGreaterThan(0);
        expect(await check({ assigneeEmails: [amira], includeUnassigned: true }, (i) => i.owner === null || ownedBy(i, amira))).toBeGreaterThan(0);
        expect(await check({ assigneeEmails: [amira], severities: ["Low"], statuses: ["Active"] }, (i) => ownedBy(i, amira) && i.severity === "Low" && i.status === "Active")).toBeGreaterThanOrEqual(0);
      });

      it("refuses a cursor it did not issue, an unreadable bound and a limit below one with VALIDATION_ERROR", async () => {
        const query = { workspaceId: WS, field: "createdAt" as const, ...EVER, limit: 5 };
        expect((await a.listIncidents(query)).cursor).toBeDefined();
        await expectCode(a.listIncidents({ ...query, cursor: "not-a-cursor" }), "VALIDATION_ERROR");
        await expectCode(a.listIncidents({ ...query, from: "yesterday" }), "VALIDATION_ERROR");
        await expectCode(a.listIncidents({ ...query, to: "2025-13-45" }), "VALIDATION_ERROR");
        await expectCode(a.listIncidents({ ...query, limit: 0 }), "VALIDATION_ERROR");
      });

      it("moves a changed incident to its new place in the lastModificationTime order only", async () => {
        const byModified = await everything(a, "lastModificationTime");
        const byCreated = await everything(a);
        const old = byModified[60]!;
        const oldWindow = { workspaceId: WS, field: "lastModificationTime" as const, from: old.lastModificationTime, to: new Date(Date.parse(old.lastModificationTime) + 1).toISOString() };
        expect((await pageThrough(a, oldWindow, 3)).map((i) => i.id)).toContain(old.id);

        const at = tick(2 * MINUTE);
        await a.setOwner(WS, old.id, null);
        const recent = await a.listIncidents({ workspaceId: WS, field: "lastModificationTime", from: new Date(Date.parse(at) - MINUTE).toISOString(), to: new Date(Date.parse(at) + 1).toISOString(), limit: 10 });
        expect(recent.items.map((i) => i.id)).toEqual([old.id]);
        expect((await pageThrough(a, oldWindow, 3)).map((i) => i.id)).not.toContain(old.id);

        const after = await everything(a, "lastModificationTime");
        expect(after[0]!.id).toBe(old.id);
        expect(after.map((i) => i.id).sort()).toEqual(byModified.map((i) => i.id).sort());
        expectNewestFirst(after, "lastModificationTime");
        expect((await everything(a)).map((i) => i.id)).toEqual(byCreated.map((i) => i.id));
      });

      it("keeps paging exact after many changes", async () => {
        const all = await everything(a);
        for (let k = 0; k < all.length; k += 3) {
          if (k % 2 === 1) tick(1_000);
          await a.setOwner(WS, all[k]!.id, null);
        }
        const byModified = await everything(a, "lastModificationTime");
        expect(byModified.length).toBe(all.length);
        expectNewestFirst(byModified, "lastModificationTime");
        const paged = await pageThrough(a, { workspaceId: WS, field: "lastModificationTime", ...EVER }, 4);
        expect(paged.map((i) => i.id)).toEqual(byModified.map((i) => i.id));
      });
    });

    describe("status and owner", () => {
      it("setStatus returns the incident as it now stands, a read shows the same, and only lastModificationTime moves", async () => {
        const incident = (await everything(a)).find((i) => i.status === "New")!;
        const at = tick(MINUTE);
        const active = await a.setStatus(WS, incident.id, { status: "Active" });
        expect(active).toMatchObject({ id: incident.id, status: "Active", classification: null, lastModificationTime: at, lastActivityTime: incident.lastActivityTime, createdAt: incident.createdAt });
        expect(await a.getIncident(WS, incident.id)).toEqual(active);
      });

      it("closes only with a classification, and reopening clears the classification and closing comment", async () => {
        const incident = (await everything(a)).find((i) => i.status !== "Closed")!;
        tick(MINUTE);
        await expectCode(a.setStatus(WS, incident.id, { status: "Closed" }), "VALIDATION_ERROR");
        expect(await a.getIncident(WS, incident.id)).toEqual(incident);

        const closedAt = tick(MINUTE);
        const closed = await a.setStatus(WS, incident.id, { status: "Closed", classification: "FalsePositive", closingComment: "Known VPN egress." });
        expect(closed).toMatchObject({ status: "Closed", classification: "FalsePositive", closingComment: "Known VPN egress.", lastModificationTime: closedAt });
        expect(await a.getIncident(WS, incident.id)).toEqual(closed);

        const reopened = await a.setStatus(WS, incident.id, { status: "Active" });
        expect(reopened).toMatchObject({ status: "Active", classification: null, closingComment: null });
        expect(await a.getIncident(WS, incident.id)).toEqual(reopened);
      });

      it("setOwner sets and clears the owner, returning the incident as it now stands", async () => {
        const incident = (await everything(a)).find((i) => i.owner === null)!;
        const owner = { userId: "u-x", email: "x.owner@example.com", name: "X Owner" };
        const setAt = tick(MINUTE);
        const owned = await a.setOwner(WS, incident.id, owner);
        expect(owned).toMatchObject({ owner, lastModificationTime: setAt, lastActivityTime: incident.lastActivityTime });
        expect(await a.getIncident(WS, incident.id)).toEqual(owned);
        const byEmail = await a.listIncidents({ workspaceId: WS, field: "createdAt", ...EVER, limit: 100, filters: { assigneeEmails: ["X.OWNER@example.com"] } });
        expect(byEmail.items.map((i) => i.id)).toEqual([incident.id]);

        const nameless = await a.setOwner(WS, incident.id, { userId: null, email: "y@example.com", name: null });
        expect(nameless.owner).toEqual({ userId: null, email: "y@example.com", name: null });

        const clearedAt = tick(MINUTE);
        const cleared = await a.setOwner(WS, incident.id, null);
        expect(cleared).toMatchObject({ owner: null, lastModificationTime: clearedAt });
        expect(await a.getIncident(WS, incident.id)).toEqual(cleared);
      });

      it("refuses changes to an unknown incident with NOT_FOUND", async () => {
        await expectCode(a.setStatus(WS, "missing", { status: "Active" }), "NOT_FOUND");
        await expectCode(a.setOwner(WS, "missing", null), "NOT_FOUND");
        await expectCode(a.setOwner("ws-unknown", "missing", null), "NOT_FOUND");
      });
    });

    describe("comments", () => {
      const note = (message: string, extra: Partial<NewVendorComment> = {}): NewVendorComment => ({
        message,
        authorEmail: "agent@secops.example",
        authorName: "Triage agent",
        isAgentComment: true,
        agentName: "triage",
        isClosingComment: false,
        extensionId: "secops-management-api",
        ...extra,
      });

      it("addComment returns the comment as stored, listed after the earlier ones, and moves lastModificationTime", async () => {
        const incident = (await everything(a))[12]!;
        const before = await a.listComments(WS, incident.id);
        const at = tick(MINUTE);
        const added = await a.addComment(WS, incident.id, note("Triage: the IP is a known VPN egress point."));
        expect(added).toEqual({
          id: expect.any(String) as unknown,
          message: "Triage: the IP is a known VPN egress point.",
          createdTime: at,
          authorEmail: "agent@secops.example",
          authorName: "Triage agent",
          isActivityComment: false,
          isAgentComment: true,
          agentName: "triage",
          isClosingComment: false,
          ticketNoteId: null,
          ticketId: null,
          extensionId: "secops-management-api",
        });
        expect(added.id).not.toBe("");
        tick(MINUTE);
        const second = await a.addComment(WS, incident.id, note("Second", { isAgentComment: false, agentName: null, extensionId: null }));
        expect(second).toMatchObject({ isAgentComment: false, agentName: null, extensionId: null });
        expect(await a.listComments(WS, incident.id)).toEqual([...before, added, second]);
        const read = await a.getIncident(WS, incident.id);
        expect(read.lastModificationTime).toBe(second.createdTime);
        expect(read.lastActivityTime).toBe(incident.lastActivityTime);
      });

      it("lists the comments oldest first", async () => {
        let seen = 0;
        for (const incident of (await everything(a)).slice(0, 40)) {
          const times = (await a.listComments(WS, incident.id)).map((c) => c.createdTime);
          expect(times).toEqual([...times].sort());
          seen += times.length;
        }
        expect(seen).toBeGreaterThan(5);
      });

      it("adds a comment once per idempotency key; without a key every call adds one", async () => {
        const incident = (await everything(a))[20]!;
        const before = await a.listComments(WS, incident.id);
        tick(MINUTE);
        const first = await a.addComment(WS, incident.id, note("Step 3: host isolated.", { idempotencyKey: "4f6c1e9a-step-3" }));
        tick(MINUTE);
        const repeat = await a.addComment(WS, incident.id, note("Step 3: host isolated.", { idempotencyKey: "4f6c1e9a-step-3" }));
        expect(repeat).toEqual(first);
        const other = await a.addComment(WS, incident.id, note("Step 4: password reset.", { idempotencyKey: "4f6c1e9a-step-4" }));
        expect(other.id).not.toBe(first.id);
        const plain = [await a.addComment(WS, incident.id, note("Plain")), await a.addComment(WS, incident.id, note("Plain"))];
        expect(plain[0]!.id).not.toBe(plain[1]!.id);
        expect(await a.listComments(WS, incident.id)).toEqual([...before, first, other, ...plain]);
      });

      it("updates a comment's text, added or the vendor's own, keeping its author, time and owner; an unknown comment is NOT_FOUND", async () => {
        let incident: VendorIncident | undefined;
        let own: VendorComment | undefined;
        for (const candidate of await everything(a)) {
          own = (await a.listComments(WS, candidate.id))[0];
          if (own) {
            incident = candidate;
            break;
          }
        }
        const id = incident!.id;
        tick(MINUTE);
        const added = await a.addComment(WS, id, note("Triage: first reading."));
        const at = tick(MINUTE);
        const edited = await a.updateComment(WS, id, added.id, { message: "Triage: the IP is a known VPN egress point." });
        expect(edited).toEqual({ ...added, message: "Triage: the IP is a known VPN egress point." });
        expect((await a.getIncident(WS, id)).lastModificationTime).toBe(at);
        const vendors = await a.updateComment(WS, id, own!.id, { message: "Corrected." });
        expect(vendors).toEqual({ ...own!, message: "Corrected." });
        const listed = await a.listComments(WS, id);
        expect(listed.find((c) => c.id === added.id)).toEqual(edited);
        expect(listed.find((c) => c.id === own!.id)).toEqual(vendors);
        await expectCode(a.updateComment(WS, id, "no-such-comment", { message: "x" }), "NOT_FOUND");
        await expectCode(a.updateComment(WS, "no-such-incident", added.id, { message: "x" }), "NOT_FOUND");
      });

      it("deletes a comment, added or the vendor's own; a second delete and an unknown comment are NOT_FOUND", async () => {
        let incident: VendorIncident | undefined;
        let before: Awaited<ReturnType<SourceGateway["listComments"]>> = [];
        for (const candidate of await everything(a)) {
          before = await a.listComments(WS, candidate.id);
          if (before.length > 0) {
            incident = candidate;
            break;
          }
        }
        expect(incident).toBeDefined();
        const id = incident!.id;
        tick(MINUTE);
        const added = await a.addComment(WS, id, note("To be deleted"));
        const at = tick(MINUTE);
        await expect(a.deleteComment(WS, id, before[0]!.id)).resolves.toBeUndefined();
        expect((await a.getIncident(WS, id)).lastModificationTime).toBe(at);
        await a.deleteComment(WS, id, added.id);
        expect(await a.listComments(WS, id)).toEqual(before.slice(1));
        await expectCode(a.deleteComment(WS, id, added.id), "NOT_FOUND");
        await expectCode(a.deleteComment(WS, id, before[0]!.id), "NOT_FOUND");
        await expectCode(a.deleteComment(WS, id, "no-such-comment"), "NOT_FOUND");
        expect(await a.listComments(WS, id)).toEqual(before.slice(1));
      });

      it("answers NOT_FOUND for the comments of an unknown incident", async () => {
        await expectCode(a.listComments(WS, "missing"), "NOT_FOUND");
        await expectCode(a.addComment(WS, "missing", note("x")), "NOT_FOUND");
        await expectCode(a.deleteComment(WS, "missing", "c-1"), "NOT_FOUND");
      });

      it("keeps a closing comment in the thread when an incident is closed with one", async () => {
        const incident = (await everything(a)).find((i) => i.status !== "Closed")!;
        const at = tick(MINUTE);
        await a.setStatus(WS, incident.id, { status: "Closed", classification: "BenignPositive", closingComment: "Approved pen test." });
        const last = (await a.listComments(WS, incident.id)).at(-1)!;
        expect(last).toMatchObject({ message: "Approved pen test.", isClosingComment: true, createdTime: at });
      });
    });

    describe("changes made in the vendor", () => {
      it("shows an incident created in the vendor first in both orders, as it was created", async () => {
        const at = tick(MINUTE);
        const created = fixture.console.createIncident("SourceB", WS, { title: "Suspicious sign-in from TOR exit node", severity: "High" });
        expect(created).toMatchObject({ createdAt: at, lastModificationTime: at, status: "New", owner: null });
        expect(await b.getIncident(WS, created.id)).toEqual(created);
        expect((await everything(b))[0]).toEqual(created);
        expect((await everything(b, "lastModificationTime"))[0]).toEqual(created);
        const found = await b.listIncidents({ workspaceId: WS, field: "createdAt", ...EVER, limit: 5, filters: { query: "tor exit" } });
        expect(found.items.map((i) => i.id)).toEqual([created.id]);
      });

      it("moves lastActivityTime and lastModificationTime when an alert arrives", async () => {
        const incident = (await everything(a))[40]!;
        const at = tick(5 * MINUTE);
        const inVendor = fixture.console.addAlert("SourceA", WS, incident.id, { title: "Follow-up detection", severity: "High" });
        const after = await a.getIncident(WS, incident.id);
        expect(after).toEqual(inVendor);
        expect(after).toMatchObject({ lastActivityTime: at, lastModificationTime: at });
        expect(after.alerts).toHaveLength(incident.alerts.length + 1);
        expect(after.alerts.at(-1)).toMatchObject({ title: "Follow-up detection", severity: "High", timeGenerated: at });
      });

      it("shows a close made in the vendor's console", async () => {
        const incident = (await everything(a)).find((i) => i.status !== "Closed")!;
        const at = tick(MINUTE);
        const inVendor = fixture.console.close("SourceA", WS, incident.id, "TruePositive", "Contained by the endpoint team.");
        const read = await a.getIncident(WS, incident.id);
        expect(read).toEqual(inVendor);
        expect(read).toMatchObject({ status: "Closed", classification: "TruePositive", closingComment: "Contained by the endpoint team.", lastModificationTime: at, lastActivityTime: incident.lastActivityTime });
      });

      it("makes a deleted incident NOT_FOUND for every call and absent from every listing", async () => {
        const all = await everything(a);
        const victim = all[17]!;
        const entityName = victim.entities[0]!.name;
        expect((await a.relatedByEntity({ workspaceId: WS, entityName, limit: 1000 })).map((i) => i.id)).toContain(victim.id);
        fixture.console.deleteIncident("SourceA", WS, victim.id);
        for (const call of [
          () => a.getIncident(WS, victim.id),
          () => a.setStatus(WS, victim.id, { status: "Active" }),
          () => a.setOwner(WS, victim.id, null),
          () => a.listComments(WS, victim.id),
          () => a.addComment(WS, victim.id, { message: "x", authorEmail: "", authorName: "x", isAgentComment: false, agentName: null, isClosingComment: false, extensionId: null }),
          () => a.getEvidence(WS, victim.id),
          () => a.relatedByEntity({ workspaceId: WS, incidentId: victim.id, limit: 5 }),
        ]) {
          await expectCode(call, "NOT_FOUND");
        }
        for (const field of ["createdAt", "lastModificationTime"] as const) {
          const items = await pageThrough(a, { workspaceId: WS, field, ...EVER }, 25);
          expect(items.map((i) => i.id).sort()).toEqual(all.filter((i) => i !== victim).map((i) => i.id).sort());
        }
        expect((await a.relatedByEntity({ workspaceId: WS, entityName, limit: 1000 })).map((i) => i.id)).not.toContain(victim.id);
      });

      it("lists a deleted incident as a tombstone at its deletion time only with includeDeleted on lastModificationTime", async () => {
        const victim = (await everything(a))[5]!;
        const at = tick(MINUTE);
        fixture.console.deleteIncident("SourceA", WS, victim.id);
        const window = { workspaceId: WS, from: new Date(Date.parse(at) - 1000).toISOString(), to: new Date(Date.parse(at) + 1000).toISOString(), limit: 10 };
        const tombstones = await a.listIncidents({ ...window, field: "lastModificationTime", includeDeleted: true });
        expect(tombstones.items).toEqual([{ ...victim, lastModificationTime: at, deletedAt: at }]);
        expect((await a.listIncidents({ ...window, field: "lastModificationTime" })).items).toEqual([]);
        expect((await a.listIncidents({ ...window, field: "createdAt", includeDeleted: true })).items).toEqual([]);
        expect((await a.listIncidents({ ...window, field: "lastModificationTime", includeDeleted: false })).items).toEqual([]);
      });
    });

    describe("related by entity", () => {
      it("finds the other incidents sharing an entity of an incident, newest first, at most limit", async () => {
        const all = await everything(a);
        const incident = all[30]!;
        const entityIds = new Set(incident.entities.map((e) => e.id));
        const expected = all.filter((i) => i.id !== incident.id && i.entities.some((e) => entityIds.has(e.id)));
        expect(expected.length).toBeGreaterThan(2);
        const related = await a.relatedByEntity({ workspaceId: WS, incidentId: incident.id, limit: 1000 });
        expect(related.map((i) => i.id)).toEqual(expected.map((i) => i.id));
        expect(related[0]).toEqual(expected[0]);
        const limited = await a.relatedByEntity({ workspaceId: WS, incidentId: incident.id, limit: 2 });
        expect(limited.map((i) => i.id)).toEqual(expected.slice(0, 2).map((i) => i.id));
      });

      it("matches a name exactly (case-insensitively), a name fragment of one kind, inside a time window", async () => {
        const all = await everything(a);
        const account = all.flatMap((i) => i.entities).find((e) => e.kind === "Account")!;
        const exact = await a.relatedByEntity({ workspaceId: WS, entityName: account.name.toUpperCase(), limit: 1000 });
        expect(exact.map((i) => i.id)).toEqual(all.filter((i) => i.entities.some((e) => e.name.toLowerCase() === account.name.toLowerCase())).map((i) => i.id));
        expect(exact.length).toBeGreaterThan(0);

        const ip = all.flatMap((i) => i.entities).find((e) => e.kind === "Ip")!;
        const fragment = ip.name.split(".").slice(0, 2).join(".") + ".";
        const byKind = await a.relatedByEntity({ workspaceId: WS, entityKind: "Ip", entityFilter: fragment, limit: 1000 });
        expect(byKind.map((i) => i.id)).toEqual(all.filter((i) => i.entities.some((e) => e.kind === "Ip" && e.name.includes(fragment))).map((i) => i.id));
        expect(byKind.length).toBeGreaterThan(0);

        const startDate = new Date(T0 - 10 * DAY).toISOString();
        const endDate = new Date(T0 - 2 * DAY).toISOString();
        const windowed = await a.relatedByEntity({ workspaceId: WS, entityFilter: "@", timeField: "createdAt", startDate, endDate, limit: 1000 });
        const expected = all.filter((i) => i.createdAt >= startDate && i.createdAt < endDate && i.entities.some((e) => e.name.includes("@")));
        expect(windowed.map((i) => i.id)).toEqual(expected.map((i) => i.id));
        expect(expected.length).toBeGreaterThan(0);

        expect(await a.relatedByEntity({ workspaceId: WS, entityName: "nobody@nowhere.example", limit: 10 })).toEqual([]);
      });

      it("refuses a limit below one and an unknown entity kind with VALIDATION_ERROR", async () => {
        await expectCode(a.relatedByEntity({ workspaceId: WS, entityFilter: "@", limit: 0 }), "VALIDATION_ERROR");
        await expectCode(a.relatedByEntity({ workspaceId: WS, entityKind: "Printer" as never, limit: 5 }), "VALIDATION_ERROR");
      });
    });

    describe("failures", () => {
      it("answers every call RATE_LIMITED with Retry-After in seconds while the vendor throttles, and only that vendor", async () => {
        const incident = (await everything(a))[0]!;
        fixture.console.rateLimit("SourceA", 30);
        for (const call of [
          () => a.getIncident(WS, incident.id),
          () => a.listIncidents({ workspaceId: WS, field: "createdAt", ...EVER, limit: 5 }),
          () => a.setOwner(WS, incident.id, null),
          () => a.listComments(WS, incident.id),
          () => a.deleteComment(WS, incident.id, "c-1"),
          () => a.getEvidence(WS, incident.id),
          () => a.relatedByEntity({ workspaceId: WS, incidentId: incident.id, limit: 5 }),
        ]) {
          const error = await apiErrorOf(call);
          expect(error).toMatchObject({ code: "RATE_LIMITED", status: 429, headers: { "Retry-After": "30" } });
        }
        expect((await everything(b)).length).toBeGreaterThan(0);
        tick(30_001);
        expect(await a.getIncident(WS, incident.id)).toEqual(incident);
      });

      it("fails a call whose caller has already gone away with UPSTREAM_ERROR, and changes nothing", async () => {
        const incident = (await everything(a)).find((i) => i.owner !== null)!;
        tick(MINUTE);
        for (const call of [
          () => a.setOwner(WS, incident.id, null, AbortSignal.abort()),
          () => a.setStatus(WS, incident.id, { status: "Closed", classification: "Undetermined" }, AbortSignal.abort()),
          () => a.getIncident(WS, incident.id, AbortSignal.abort()),
        ]) {
          const error = await apiErrorOf(call);
          expect(error.code).toBe("UPSTREAM_ERROR");
          expect(error.message).toMatch(/^Request aborted: the caller went away/);
        }
        expect(await a.getIncident(WS, incident.id)).toEqual(incident);
      });
    });
  });
}

async function expectCode(call: Promise<unknown> | (() => Promise<unknown>), code: ErrorCode): Promise<void> {
  expect((await apiErrorOf(call)).code).toBe(code);
}

/** Pages through a window with the given page size and returns every item in order. */
async function pageThrough(gateway: SourceGateway, query: Omit<IncidentWindowQuery, "limit" | "cursor">, limit: number): Promise<VendorIncident[]> {
  const items: VendorIncident[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await gateway.listIncidents({ ...query, limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.cursor;
    if (++pages > 10_000) throw new Error("paging does not end");
  } while (cursor);
  expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  return items;
}

/** Ordered by the field, newest first. */
function expectNewestFirst(items: readonly VendorIncident[], field: IncidentWindowQuery["field"]): void {
  for (let i = 1; i < items.length; i++) expect(Date.parse(items[i - 1]![field])).toBeGreaterThanOrEqual(Date.parse(items[i]![field]));
}
