import { describe, expect, it } from "vitest";
import { isApiError } from "../../shared/platform/errors/api-error";
import type { IncidentFilters, IncidentWindowQuery, SourceGateway, VendorIncident } from "../../shared/systems/vendors/port";
import { entityKinds } from "../../shared/systems/vendors/port";
import { createSimulatedVendors, type SimulatedVendorOptions } from "../../shared/systems/vendors/simulated/simulated-vendor";
import { sources, type Source } from "../../shared/domain/sources";

const T0 = Date.parse("2025-03-01T12:00:00.000Z");
const MINUTE = 60_000;
const DAY = 86_400_000;
const EVER = { from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z" };

const workspaces = [
  { id: "ws-fabrikam", name: "fabrikam-sentinel-prod", tenantId: "tenant-fabrikam" },
  { id: "ws-northwind", name: "northwind-sentinel-clinics", tenantId: "tenant-northwind" },
];
const owners = [
  { userId: "u-amira", email: "Amira.Haddad@contoso-mssp.example", name: "Amira Haddad" },
  { userId: "u-jonas", email: "jonas.becker@contoso-mssp.example", name: "Jonas Becker" },
  { userId: "u-li", email: "li.wei@contoso-mssp.example", name: "Li Wei" },
];
const WS = workspaces[0]!.id;

/** Vendors on a clock the test moves by hand. */
function world(overrides: Partial<SimulatedVendorOptions> = {}) {
  const clock = { now: T0 };
  const vendors = createSimulatedVendors({
    seed: "unit-test",
    workspaces,
    incidentsPerWorkspace: 700,
    owners,
    now: () => new Date(clock.now),
    ...overrides,
  });
  return { clock, vendors, a: vendors.gateway("SourceA"), b: vendors.gateway("SourceB") };
}

async function rejection(promise: Promise<unknown> | (() => unknown)) {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    if (isApiError(error)) return { code: error.code, target: error.target };
    throw error;
  }
  throw new Error("expected a rejection");
}

/** Pages through a window with the given page size and returns every item in order. */
async function pageThrough(gateway: SourceGateway, query: Omit<IncidentWindowQuery, "limit" | "cursor">, limit: number) {
  const items: VendorIncident[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await gateway.listIncidents({ ...query, limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    if (page.cursor) expect(page.items.length).toBe(limit);
    items.push(...page.items);
    cursor = page.cursor;
    if (++pages > 10_000) throw new Error("paging does not end");
  } while (cursor);
  return items;
}

async function everything(gateway: SourceGateway, workspaceId = WS, field: IncidentWindowQuery["field"] = "createdAt") {
  return (await gateway.listIncidents({ workspaceId, field, ...EVER, limit: 100_000 })).items;
}

/** Newest first by the field, the greater id first on equal times. */
function expectNewestFirst(items: VendorIncident[], field: IncidentWindowQuery["field"]) {
  for (let i = 1; i < items.length; i++) {
    const [prev, cur] = [items[i - 1]!, items[i]!];
    const order = Date.parse(prev[field]) - Date.parse(cur[field]) || (prev.id > cur.id ? 1 : -1);
    expect(order).toBeGreaterThan(0);
  }
}

describe("simulated vendor: determinism and content", () => {
  it("gives identical incidents, comments and evidence for the same options, different ones for another seed", async () => {
    const one = world();
    const two = world();
    for (const source of sources) {
      const [x, y] = [await everything(one.vendors.gateway(source)), await everything(two.vendors.gateway(source))];
      expect(x.length).toBeGreaterThan(0);
      expect(y).toEqual(x);
      const id = x[Math.floor(x.length / 2)]!.id;
      expect(await two.vendors.gateway(source).listComments(WS, id)).toEqual(await one.vendors.gateway(source).listComments(WS, id));
      expect(await two.vendors.gateway(source).getEvidence(WS, id)).toEqual(await one.vendors.gateway(source).getEvidence(WS, id));
    }
    const other = world({ seed: "another-seed" });
    const ids = new Set((await everything(one.a)).map((i) => i.id));
    expect((await everything(other.a)).some((i) => ids.has(i.id))).toBe(false);
  });

  it("splits the workspace's incidents across the seven sources and keeps workspaces apart", async () => {
    const { vendors } = world();
    let total = 0;
    for (const source of sources) total += (await everything(vendors.gateway(source))).length;
    expect(total).toBe(700);
    const [fabrikam, northwind] = [await everything(vendors.gateway("SourceA"), "ws-fabrikam"), await everything(vendors.gateway("SourceA"), "ws-northwind")];
    expect(fabrikam.every((i) => i.workspaceId === "ws-fabrikam")).toBe(true);
    expect(northwind.every((i) => i.workspaceId === "ws-northwind")).toBe(true);
    expect(northwind[0]!.id).not.toBe(fabrikam[0]!.id);
  });

  it("gives every source its own URL-safe, unique id style and increasing numbers", async () => {
    const { vendors } = world();
    const styles: Record<Source, RegExp> = {
      SourceA: /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      SourceB: /^INC-\d+$/,
      SourceC: /^[0-9a-f]{64}$/,
      SourceD: /^SIR\d{7}$/,
      SourceE: /^[0-9a-f]{24}$/,
      SourceF: /^P[0-9A-Z]{13}$/,
      SourceG: /^de_[0-9a-f]{16}$/,
    };
    for (const source of sources) {
      const items = await everything(vendors.gateway(source));
      expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
      for (const item of items) {
        expect(item.id).toMatch(styles[source]);
        expect(encodeURIComponent(item.id)).toBe(item.id);
        expect(item.source).toBe(source);
      }
      // Newest first by createdAt means the numbers count down.
      for (let i = 1; i < items.length; i++) expect(items[i]!.number).toBeLessThan(items[i - 1]!.number);
    }
  });

  it("generates realistic incidents: mixes, owners, entities, alerts, evidence, comments, catalog", async () => {
    const { vendors } = world();
    const all = (await Promise.all(sources.map((s) => everything(vendors.gateway(s))))).flat();
    const statuses = new Set(all.map((i) => i.status));
    const severities = new Set(all.map((i) => i.severity));
    expect([...statuses].sort()).toEqual(["Active", "Closed", "New"]);
    expect(severities.size).toBe(4);
    expect(all.some((i) => i.owner === null)).toBe(true);
    expect(all.some((i) => i.owner !== null && owners.some((o) => o.email === i.owner!.email))).toBe(true);
    const kinds = new Set(all.flatMap((i) => i.entities.map((e) => e.kind)));
    expect([...kinds].sort()).toEqual([...entityKinds].sort());
    expect(all.some((i) => /phishing|impossible travel|malware|powershell|brute force|exfiltration/i.test(i.title))).toBe(true);

    for (const incident of all) {
      expect(incident.createdAt <= incident.lastActivityTime).toBe(true);
      expect(incident.lastActivityTime <= incident.lastModificationTime).toBe(true);
      expect(incident.alerts.length).toBeGreaterThanOrEqual(1);
      expect(incident.alerts.length).toBeLessThanOrEqual(4);
      const alertTimes = incident.alerts.map((a) => a.timeGenerated).sort();
      expect(alertTimes[0]! >= incident.createdAt).toBe(true);
      expect(alertTimes[alertTimes.length - 1]).toBe(incident.lastActivityTime);
      const entityIds = new Set(incident.entities.map((e) => e.id));
      for (const alert of incident.alerts) for (const id of alert.entityIds) expect(entityIds.has(id)).toBe(true);
      if (incident.status === "Closed") expect(["TruePositive", "BenignPositive", "FalsePositive", "Undetermined"]).toContain(incident.classification);
      else expect(incident.classification).toBeNull();
      expect(incident.vendorIdentifiers[incident.source.charAt(0).toLowerCase() + incident.source.slice(1)]?.incidentId).toBe(incident.id);
      expect(Array.isArray(incident.gamebookCatalog.recommended)).toBe(true);
    }
    const file = all.flatMap((i) => i.entities).find((e) => e.kind === "File")!;
    expect(file.properties.sha256).toMatch(/^[0-9a-f]{64}$/);
    const ips = all.flatMap((i) => i.entities).filter((e) => e.kind === "Ip");
    expect(ips.some((e) => e.properties.isPrivate === true) && ips.some((e) => e.properties.isPrivate === false)).toBe(true);
    expect(all.flatMap((i) => i.entities).find((e) => e.kind === "Account")!.name).toMatch(/^[a-z]+\.[a-z]+@fabrikam\.example$/);

    const sample = all.filter((i) => i.source === "SourceA").slice(0, 60);
    const comments = (await Promise.all(sample.map((i) => vendors.gateway("SourceA").listComments(WS, i.id)))).flat();
    expect(comments.some((c) => c.isActivityComment)).toBe(true);
    expect(comments.some((c) => c.isAgentComment && c.agentName !== null)).toBe(true);
    expect(comments.some((c) => c.extensionId === "ext-soar-connector" || c.extensionId === "ext-ticketing")).toBe(true);
    for (const incident of sample) {
      const evidence = await vendors.gateway("SourceA").getEvidence(WS, incident.id);
      const entityIds = new Set(incident.entities.map((e) => e.id));
      expect(evidence.rows.length).toBeGreaterThan(0);
      for (const row of evidence.rows) if (row.entityId !== null) expect(entityIds.has(row.entityId)).toBe(true);
      const list = await vendors.gateway("SourceA").listComments(WS, incident.id);
      expect(list.length).toBeLessThanOrEqual(4);
      expect(list.map((c) => c.createdTime)).toEqual(list.map((c) => c.createdTime).sort());
    }
  });
});

describe("simulated vendor: windows and paging", () => {
  for (const field of ["createdAt", "lastModificationTime"] as const) {
    it(`pages a ${field} window newest first, each item exactly once, and ends without a cursor`, async () => {
      const { a, clock } = world();
      const all = await everything(a, WS, field);
      expect(all.length).toBe(210);
      expectNewestFirst(all, field);
      const from = new Date(clock.now - 20 * DAY).toISOString();
      const to = new Date(clock.now - 5 * DAY).toISOString();
      const expected = all.filter((i) => i[field] >= from && i[field] < to);
      expect(expected.length).toBeGreaterThan(20);
      for (const limit of [1, 7, 50]) {
        const paged = await pageThrough(a, { workspaceId: WS, field, from, to }, limit);
        expect(paged.map((i) => i.id)).toEqual(expected.map((i) => i.id));
      }
      const empty = await a.listIncidents({ workspaceId: WS, field, from: to, to: to, limit: 5 });
      expect(empty).toEqual({ items: [] });
    });
  }

  it("breaks ties on equal timestamps by id and still pages each item once", async () => {
    const { a, clock } = world();
    const some = (await everything(a)).slice(10, 25);
    clock.now += MINUTE;
    for (const incident of some) await a.setOwner(WS, incident.id, null);
    const window = { workspaceId: WS, field: "lastModificationTime" as const, from: new Date(clock.now).toISOString(), to: new Date(clock.now + 1).toISOString() };
    const paged = await pageThrough(a, window, 2);
    expect(paged.map((i) => i.id)).toEqual(some.map((i) => i.id).sort().reverse());
  });

  it("applies severity, status, text, assignee and unassigned filters while scanning", async () => {
    const { a } = world();
    const all = await everything(a);
    const check = async (filters: IncidentFilters, predicate: (i: VendorIncident) => boolean) => {
      const expected = all.filter(predicate).map((i) => i.id);
      const paged = await pageThrough(a, { workspaceId: WS, field: "createdAt", ...EVER, filters }, 9);
      expect(paged.map((i) => i.id)).toEqual(expected);
      return expected.length;
    };
    expect(await check({ severities: ["High", "Medium"] }, (i) => i.severity === "High" || i.severity === "Medium")).toBeGreaterThan(0);
    expect(await check({ statuses: ["Closed"] }, (i) => i.status === "Closed")).toBeGreaterThan(0);
    expect(await check({ statuses: ["New", "Active"], severities: ["High"] }, (i) => i.status !== "Closed" && i.severity === "High")).toBeGreaterThan(0);
    expect(await check({ query: "PHISHING" }, (i) => /phishing/i.test(i.title))).toBeGreaterThan(0);
    const host = all.flatMap((i) => i.entities).find((e) => e.kind === "Host")!.name;
    expect(await check({ query: host.toLowerCase() }, (i) => i.title.toLowerCase().includes(host.toLowerCase()) || i.entities.some((e) => e.name.toLowerCase().includes(host.toLowerCase())))).toBeGreaterThan(0);
    const number = String(all[3]!.number);
    expect(await check({ query: number }, (i) => String(i.number).includes(number) || i.title.includes(number) || i.entities.some((e) => e.name.includes(number)))).toBeGreaterThan(0);
    const amira = owners[0]!.email.toLowerCase();
    expect(await check({ assigneeEmails: [amira] }, (i) => i.owner?.email?.toLowerCase() === amira)).toBeGreaterThan(0);
    expect(await check({ includeUnassigned: true }, (i) => i.owner === null)).toBeGreaterThan(0);
    expect(await check({ assigneeEmails: [amira.toUpperCase()], includeUnassigned: true }, (i) => i.owner === null || i.owner.email?.toLowerCase() === amira)).toBeGreaterThan(0);
  });

  it("rejects a cursor it did not issue and bad windows with VALIDATION_ERROR", async () => {
    const { a } = world();
    const query = { workspaceId: WS, field: "createdAt" as const, ...EVER, limit: 5 };
    const page = await a.listIncidents(query);
    expect(await rejection(a.listIncidents({ ...query, cursor: "not-a-cursor" }))).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await rejection(a.listIncidents({ ...query, field: "lastModificationTime", cursor: page.cursor }))).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await rejection(a.listIncidents({ ...query, from: "yesterday" }))).toMatchObject({ code: "VALIDATION_ERROR", target: "from" });
    expect(await rejection(a.listIncidents({ ...query, limit: 0 }))).toMatchObject({ code: "VALIDATION_ERROR", target: "limit" });
  });
});

describe("simulated vendor: changes", () => {
  it("moves lastModificationTime, not lastActivityTime, on status, owner, comments and console close", async () => {
    const { a, vendors, clock } = world();
    const [first, second, third, fourth] = (await everything(a)).filter((i) => i.status !== "Closed").slice(5, 9) as VendorIncident[];
    const moved = async (incident: VendorIncident, act: () => Promise<unknown>) => {
      clock.now += MINUTE;
      await act();
      const after = await a.getIncident(WS, incident.id);
      expect(after.lastModificationTime).toBe(new Date(clock.now).toISOString());
      expect(after.lastActivityTime).toBe(incident.lastActivityTime);
      return after;
    };
    expect((await moved(first!, () => a.setStatus(WS, first!.id, { status: "Active" }))).status).toBe("Active");
    expect((await moved(second!, () => a.setOwner(WS, second!.id, { userId: "u-x", email: "x@example.com", name: "X" }))).owner).toEqual({ userId: "u-x", email: "x@example.com", name: "X" });
    await moved(third!, () => a.addComment(WS, third!.id, { message: "Looking into it", authorEmail: "x@example.com", authorName: "X", isAgentComment: false, agentName: null, isClosingComment: false, extensionId: null }));
    const closed = await moved(fourth!, async () => vendors.console.close("SourceA", WS, fourth!.id, "FalsePositive", "Backup job"));
    expect(closed).toMatchObject({ status: "Closed", classification: "FalsePositive", closingComment: "Backup job" });
  });

  it("moves both lastActivityTime and lastModificationTime when the console adds an alert", async () => {
    const { a, vendors, clock } = world();
    const incident = (await everything(a))[40]!;
    clock.now += 5 * MINUTE;
    const after = vendors.console.addAlert("SourceA", WS, incident.id, { title: "Follow-up detection", severity: "High" });
    const stamp = new Date(clock.now).toISOString();
    expect(after.lastActivityTime).toBe(stamp);
    expect(after.lastModificationTime).toBe(stamp);
    expect(after.alerts.length).toBe(incident.alerts.length + 1);
    expect(after.alerts.at(-1)).toMatchObject({ title: "Follow-up detection", severity: "High", timeGenerated: stamp });
    expect(await a.getIncident(WS, incident.id)).toEqual(after);
  });

  it("closes only with a classification, and reopening clears classification and closing comment", async () => {
    const { a } = world();
    const incident = (await everything(a)).find((i) => i.status !== "Closed")!;
    expect(await rejection(a.setStatus(WS, incident.id, { status: "Closed" }))).toMatchObject({ code: "VALIDATION_ERROR", target: "classification" });
    expect((await a.getIncident(WS, incident.id)).lastModificationTime).toBe(incident.lastModificationTime);
    const closed = await a.setStatus(WS, incident.id, { status: "Closed", classification: "TruePositive", closingComment: "Contained" });
    expect(closed).toMatchObject({ status: "Closed", classification: "TruePositive", closingComment: "Contained" });
    const reopened = await a.setStatus(WS, incident.id, { status: "Active" });
    expect(reopened).toMatchObject({ status: "Active", classification: null, closingComment: null });
    expect(await a.getIncident(WS, incident.id)).toEqual(reopened);
  });

  it("shows a modified incident at its new position in a lastModificationTime window only", async () => {
    const { a, clock } = world();
    const byModified = await everything(a, WS, "lastModificationTime");
    const old = byModified[150]!;
    const oldWindow = { workspaceId: WS, field: "lastModificationTime" as const, from: old.lastModificationTime, to: new Date(Date.parse(old.lastModificationTime) + 1).toISOString() };
    expect((await pageThrough(a, oldWindow, 3)).map((i) => i.id)).toContain(old.id);

    clock.now += 2 * MINUTE;
    await a.setOwner(WS, old.id, null);
    const recent = await a.listIncidents({ workspaceId: WS, field: "lastModificationTime", from: new Date(clock.now - MINUTE).toISOString(), to: new Date(clock.now + 1).toISOString(), limit: 10 });
    expect(recent.items.map((i) => i.id)).toEqual([old.id]);
    expect((await pageThrough(a, oldWindow, 3)).map((i) => i.id)).not.toContain(old.id);

    const after = await everything(a, WS, "lastModificationTime");
    expect(after[0]!.id).toBe(old.id);
    expect(after.length).toBe(byModified.length);
    expectNewestFirst(after, "lastModificationTime");
    // Creation order does not move.
    expect((await everything(a)).map((i) => i.id)).toEqual((await everything(world().a)).map((i) => i.id));
  });

  it("keeps paging exact after many changes, merging moved incidents with the seeded order", async () => {
    const { a, clock } = world();
    const all = await everything(a);
    for (let k = 0; k < all.length; k += 3) {
      clock.now += k % 2 === 0 ? 0 : 1_000;
      await a.setOwner(WS, all[k]!.id, null);
    }
    const byModified = await everything(a, WS, "lastModificationTime");
    expect(byModified.length).toBe(all.length);
    expectNewestFirst(byModified, "lastModificationTime");
    const paged = await pageThrough(a, { workspaceId: WS, field: "lastModificationTime", ...EVER }, 4);
    expect(paged.map((i) => i.id)).toEqual(byModified.map((i) => i.id));
  });

  it("adds and deletes comments, oldest first, and deletes generated ones too", async () => {
    const { a, clock } = world();
    const incidents = await everything(a);
    const withComments = [];
    for (const incident of incidents) if ((await a.listComments(WS, incident.id)).length > 0) withComments.push(incident);
    const incident = withComments[0]!;
    const before = await a.listComments(WS, incident.id);
    clock.now += MINUTE;
    const added = await a.addComment(WS, incident.id, { message: "Agent verdict: benign", authorEmail: "agent@example.com", authorName: "Triage Agent", isAgentComment: true, agentName: "Triage Agent", isClosingComment: false, extensionId: "ext-soar-connector" });
    expect(added).toMatchObject({ message: "Agent verdict: benign", createdTime: new Date(clock.now).toISOString(), isAgentComment: true, agentName: "Triage Agent", extensionId: "ext-soar-connector", isActivityComment: false, ticketId: null, ticketNoteId: null });
    expect(await a.listComments(WS, incident.id)).toEqual([...before, added]);

    clock.now += MINUTE;
    await a.deleteComment(WS, incident.id, before[0]!.id);
    expect((await a.getIncident(WS, incident.id)).lastModificationTime).toBe(new Date(clock.now).toISOString());
    await a.deleteComment(WS, incident.id, added.id);
    expect(await a.listComments(WS, incident.id)).toEqual(before.slice(1));
    expect(await rejection(a.deleteComment(WS, incident.id, added.id))).toMatchObject({ code: "NOT_FOUND", target: "commentId" });
    expect(await rejection(a.deleteComment(WS, incident.id, before[0]!.id))).toMatchObject({ code: "NOT_FOUND" });
  });

  it("hands out copies: mutating a returned object changes nothing in the vendor", async () => {
    const { a } = world();
    const incident = (await everything(a)).find((i) => i.owner !== null)!;
    const pristine = structuredClone(incident);
    incident.title = "changed";
    incident.entities[0]!.name = "changed";
    incident.entities[0]!.properties.x = 1;
    incident.alerts.push(incident.alerts[0]!);
    incident.alerts[0]!.entityIds.push("x");
    incident.owner!.email = "changed";
    incident.vendorIdentifiers.sourceA!.incidentId = "changed";
    (incident.gamebookCatalog.recommended as unknown[]).length = 0;
    expect(await a.getIncident(WS, incident.id)).toEqual(pristine);
    const comments = await a.listComments(WS, incident.id);
    if (comments[0]) {
      const copy = structuredClone(comments);
      comments[0].message = "changed";
      expect(await a.listComments(WS, incident.id)).toEqual(copy);
    }
    const evidence = await a.getEvidence(WS, incident.id);
    const evidenceCopy = structuredClone(evidence);
    evidence.rows.length = 0;
    expect(await a.getEvidence(WS, incident.id)).toEqual(evidenceCopy);
  });
});

describe("simulated vendor: console, deletion and errors", () => {
  it("creates incidents at the top of both orders, with the next number", async () => {
    const { b, vendors, clock } = world();
    const newest = (await everything(b))[0]!;
    clock.now += MINUTE;
    const created = vendors.console.createIncident("SourceB", WS, { title: "Suspicious sign-in from TOR exit node", severity: "High" });
    expect(created).toMatchObject({ title: "Suspicious sign-in from TOR exit node", severity: "High", status: "New", owner: null, number: newest.number + 1, id: `INC-${newest.number + 1}` });
    expect(created.createdAt).toBe(new Date(clock.now).toISOString());
    expect(created.alerts).toHaveLength(1);
    expect(created.entities.length).toBeGreaterThan(0);
    expect(await b.getIncident(WS, created.id)).toEqual(created);
    expect((await everything(b))[0]!.id).toBe(created.id);
    expect((await everything(b, WS, "lastModificationTime"))[0]!.id).toBe(created.id);
    for (const source of sources.filter((s) => s !== "SourceB")) {
      const made = vendors.console.createIncident(source, WS, { title: "Manual", severity: "Low" });
      expect(await vendors.gateway(source).getIncident(WS, made.id)).toEqual(made);
    }
  });

  it("omits the SourceA block of a SourceB incident for its first ten minutes", async () => {
    const { b, vendors, clock } = world();
    const created = vendors.console.createIncident("SourceB", WS, { title: "Fresh", severity: "Medium" });
    expect(created.vendorIdentifiers.sourceB).toMatchObject({ incidentId: created.id });
    expect(created.vendorIdentifiers.sourceA).toBeUndefined();
    clock.now += 9 * MINUTE;
    expect((await b.getIncident(WS, created.id)).vendorIdentifiers.sourceA).toBeUndefined();
    clock.now += 2 * MINUTE;
    expect((await b.getIncident(WS, created.id)).vendorIdentifiers.sourceA?.incidentId).toMatch(/^[0-9a-f-]{36}$/);
    const seeded = (await everything(b)).at(-1)!;
    expect(seeded.vendorIdentifiers.sourceA).toBeDefined();
  });

  it("makes a deleted incident NOT_FOUND everywhere and absent from every list", async () => {
    const { a, vendors } = world();
    const all = await everything(a);
    const victim = all[17]!;
    const related = await a.relatedByEntity({ workspaceId: WS, entityName: victim.entities[0]!.name, limit: 1000 });
    expect(related.map((i) => i.id)).toContain(victim.id);
    vendors.console.deleteIncident("SourceA", WS, victim.id);
    for (const attempt of [
      () => a.getIncident(WS, victim.id),
      () => a.setStatus(WS, victim.id, { status: "Active" }),
      () => a.setOwner(WS, victim.id, null),
      () => a.listComments(WS, victim.id),
      () => a.getEvidence(WS, victim.id),
      () => vendors.console.deleteIncident("SourceA", WS, victim.id),
    ]) {
      expect(await rejection(attempt)).toMatchObject({ code: "NOT_FOUND", target: "incidentId" });
    }
    for (const field of ["createdAt", "lastModificationTime"] as const) {
      const items = await pageThrough(a, { workspaceId: WS, field, ...EVER }, 25);
      expect(items.length).toBe(all.length - 1);
      expect(items.some((i) => i.id === victim.id)).toBe(false);
    }
    const relatedAfter = await a.relatedByEntity({ workspaceId: WS, entityName: victim.entities[0]!.name, limit: 1000 });
    expect(relatedAfter.map((i) => i.id)).not.toContain(victim.id);
  });

  it("lists a deleted incident as a tombstone at its deletion time only when asked (includeDeleted, last-modified)", async () => {
    const { a, vendors, clock } = world();
    const victim = (await everything(a))[5]!;
    clock.now += 60_000;
    vendors.console.deleteIncident("SourceA", WS, victim.id);
    const window = { workspaceId: WS, from: new Date(clock.now - 1000).toISOString(), to: new Date(clock.now + 1000).toISOString(), limit: 10 };
    const tombstones = await a.listIncidents({ ...window, field: "lastModificationTime", includeDeleted: true });
    expect(tombstones.items.map((i) => [i.id, i.deletedAt])).toEqual([[victim.id, new Date(clock.now).toISOString()]]);
    expect(tombstones.items[0]!.lastModificationTime).toBe(new Date(clock.now).toISOString());
    expect((await a.listIncidents({ ...window, field: "lastModificationTime" })).items).toEqual([]);
    expect((await a.listIncidents({ ...window, field: "createdAt", includeDeleted: true })).items).toEqual([]);
  });

  it("answers NOT_FOUND for unknown incidents, workspaces and ids of another source or workspace", async () => {
    const { a, b, vendors } = world();
    const known = (await everything(a))[0]!;
    const inB = (await everything(b))[0]!;
    const notFound = { code: "NOT_FOUND" };
    expect(await rejection(a.getIncident(WS, "00000000-0000-8000-8000-000000000000"))).toMatchObject({ ...notFound, target: "incidentId" });
    expect(await rejection(a.getIncident(WS, "nonsense/../x"))).toMatchObject(notFound);
    expect(await rejection(a.getIncident(WS, inB.id))).toMatchObject(notFound);
    expect(await rejection(b.getIncident(WS, "INC-99999999"))).toMatchObject(notFound);
    expect(await rejection(a.getIncident("ws-northwind", known.id))).toMatchObject(notFound);
    expect(await rejection(a.getIncident("ws-unknown", known.id))).toMatchObject({ ...notFound, target: "workspaceId" });
    expect(await rejection(a.listIncidents({ workspaceId: "ws-unknown", field: "createdAt", ...EVER, limit: 5 }))).toMatchObject(notFound);
    expect(await rejection(a.relatedByEntity({ workspaceId: WS, incidentId: "missing", limit: 5 }))).toMatchObject(notFound);
    expect(await rejection(() => vendors.console.close("SourceA", WS, "missing", "TruePositive"))).toMatchObject({ ...notFound, target: "incidentId" });
    expect(await rejection(() => vendors.console.addAlert("SourceA", WS, "missing", { title: "x", severity: "Low" }))).toMatchObject(notFound);
    expect(await rejection(() => vendors.console.createIncident("SourceA", "ws-unknown", { title: "x", severity: "Low" }))).toMatchObject(notFound);
  });
});

describe("simulated vendor: related by entity", () => {
  it("finds other incidents sharing an entity of an incident, newest first, within the limit", async () => {
    const { a } = world();
    const all = await everything(a);
    const incident = all[30]!;
    const entityIds = new Set(incident.entities.map((e) => e.id));
    const expected = all.filter((i) => i.id !== incident.id && i.entities.some((e) => entityIds.has(e.id)));
    expect(expected.length).toBeGreaterThan(0);
    const related = await a.relatedByEntity({ workspaceId: WS, incidentId: incident.id, limit: 1000 });
    expect(related.map((i) => i.id)).toEqual(expected.map((i) => i.id));
    const limited = await a.relatedByEntity({ workspaceId: WS, incidentId: incident.id, limit: 2 });
    expect(limited.map((i) => i.id)).toEqual(expected.slice(0, 2).map((i) => i.id));
  });

  it("matches entity names exactly (case-insensitively), by substring and kind, inside a time window", async () => {
    const { a, clock } = world();
    const all = await everything(a);
    const account = all.flatMap((i) => i.entities).find((e) => e.kind === "Account")!;
    const exact = await a.relatedByEntity({ workspaceId: WS, entityName: account.name.toUpperCase(), limit: 1000 });
    expect(exact.map((i) => i.id)).toEqual(all.filter((i) => i.entities.some((e) => e.name === account.name)).map((i) => i.id));

    const byKind = await a.relatedByEntity({ workspaceId: WS, entityKind: "Ip", entityFilter: "192.168.", limit: 1000 });
    expect(byKind.map((i) => i.id)).toEqual(all.filter((i) => i.entities.some((e) => e.kind === "Ip" && e.name.startsWith("192.168."))).map((i) => i.id));

    const startDate = new Date(clock.now - 10 * DAY).toISOString();
    const endDate = new Date(clock.now - 2 * DAY).toISOString();
    const windowed = await a.relatedByEntity({ workspaceId: WS, entityFilter: "@", timeField: "createdAt", startDate, endDate, limit: 1000 });
    const expected = all.filter((i) => i.createdAt >= startDate && i.createdAt < endDate && i.entities.some((e) => e.name.includes("@")));
    expect(windowed.map((i) => i.id)).toEqual(expected.map((i) => i.id));
    expect(await a.relatedByEntity({ workspaceId: WS, entityName: "nobody@nowhere.example", limit: 10 })).toEqual([]);
  });
});

describe("simulated vendor: volume", () => {
  it("seeds 50 workspaces of 20,000 incidents each and serves any of them", async () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ id: `bench-ws-${i}`, name: `tenant${i}-sentinel`, tenantId: `bench-tenant-${i}` }));
    const vendors = createSimulatedVendors({ seed: "bench", workspaces: many, incidentsPerWorkspace: 20_000, owners, now: () => new Date(T0) });
    const g = vendors.gateway("SourceG");
    const last = many[49]!.id;
    const items = await pageThrough(g, { workspaceId: last, field: "lastModificationTime", ...EVER }, 500);
    expect(items.length).toBe(1_200); // SourceG's 6 % of 20,000
    expect(new Set(items.map((i) => i.id)).size).toBe(1_200);
    expect(await g.getIncident(last, items[600]!.id)).toEqual(items[600]);
    for (const ws of [many[0]!, many[25]!]) {
      for (const source of sources) {
        const page = await vendors.gateway(source).listIncidents({ workspaceId: ws.id, field: "createdAt", ...EVER, limit: 3 });
        expect(page.items).toHaveLength(3);
        expect(page.cursor).toBeDefined();
      }
    }
    const first = await vendors.gateway("SourceA").listIncidents({ workspaceId: many[0]!.id, field: "createdAt", ...EVER, limit: 1 });
    expect(first.items[0]!.number).toBeGreaterThan(6_000); // SourceA holds 6,000 of each workspace's incidents
  });
});
