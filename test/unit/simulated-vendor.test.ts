import { describe, expect, it } from "vitest";
import { isApiError } from "../../shared/platform/errors/api-error";
import type { IncidentWindowQuery, SourceGateway } from "../../shared/systems/vendors/port";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { entityKinds } from "../../shared/model/incidents/incident";
import { createSimulatedVendors, type SimulatedVendorOptions } from "../../shared/systems/vendors/simulated/simulated-vendor";
import { CLOSED_CONSOLE_INCIDENT_RETENTION_MS, MAX_CLOSED_CONSOLE_INCIDENTS } from "../../shared/systems/vendors/simulated/source-partition";
import { sources, type Source } from "../../shared/model/sources";

const T0 = Date.parse("2025-03-01T12:00:00.000Z");
const MINUTE = 60_000;
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
  it("breaks ties on equal timestamps by id and still pages each item once", async () => {
    const { a, clock } = world();
    const some = (await everything(a)).slice(10, 25);
    clock.now += MINUTE;
    for (const incident of some) await a.setOwner(WS, incident.id, null);
    const window = { workspaceId: WS, field: "lastModificationTime" as const, from: new Date(clock.now).toISOString(), to: new Date(clock.now + 1).toISOString() };
    const paged = await pageThrough(a, window, 2);
    expect(paged.map((i) => i.id)).toEqual(some.map((i) => i.id).sort().reverse());
    for (const field of ["createdAt", "lastModificationTime"] as const) expectNewestFirst(await everything(a, WS, field), field);
  });

  it("refuses a cursor issued for the other field, and names the field of a bad window", async () => {
    const { a } = world();
    const query = { workspaceId: WS, field: "createdAt" as const, ...EVER, limit: 5 };
    const page = await a.listIncidents(query);
    expect(await rejection(a.listIncidents({ ...query, field: "lastModificationTime", cursor: page.cursor }))).toMatchObject({ code: "VALIDATION_ERROR", target: "cursor" });
    expect(await rejection(a.listIncidents({ ...query, from: "yesterday" }))).toMatchObject({ code: "VALIDATION_ERROR", target: "from" });
    expect(await rejection(a.listIncidents({ ...query, limit: 0 }))).toMatchObject({ code: "VALIDATION_ERROR", target: "limit" });
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

  it("creates an incident with entities of its own, in place of the pool's: read, in its alert and evidence, found by their names", async () => {
    const { b, vendors } = world();
    const created = vendors.console.createIncident("SourceB", WS, {
      title: "Beaconing",
      severity: "High",
      entities: [
        { kind: "Ip", name: "192.0.2.7", properties: { address: "192.0.2.7" } },
        { kind: "Host", name: "WEB01" },
      ],
    });
    expect(created.entities.map((e) => [e.kind, e.name, e.properties])).toEqual([
      ["Ip", "192.0.2.7", { address: "192.0.2.7" }],
      ["Host", "WEB01", {}],
    ]);
    expect(new Set(created.entities.map((e) => e.id)).size).toBe(2);
    expect(await b.getIncident(WS, created.id)).toEqual(created);
    expect(created.alerts[0]!.entityIds).toEqual(created.entities.map((e) => e.id));
    expect((await b.getEvidence(WS, created.id)).rows.every((r) => r.entityId === null || created.entities.some((e) => e.id === r.entityId))).toBe(true);
    const found = await b.listIncidents({ workspaceId: WS, field: "createdAt", ...EVER, limit: 10, filters: { query: "192.0.2.7" } });
    expect(found.items.map((i) => i.id)).toContain(created.id);
    // The by-entity search works on the pool: an incident with entities of its own relates to nothing.
    expect(await b.relatedByEntity({ workspaceId: WS, incidentId: created.id, limit: 10 })).toEqual([]);
    expect(await rejection(() => vendors.console.createIncident("SourceB", WS, { title: "x", severity: "Low", entities: [{ kind: "Planet" as never, name: "x" }] }))).toMatchObject({
      code: "VALIDATION_ERROR",
      target: "entities",
    });
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

  it("names the identifier or field concerned in its refusals, and its console refuses what does not exist", async () => {
    const { a, vendors } = world();
    const known = (await everything(a)).find((i) => i.status !== "Closed")!;
    expect(await rejection(a.getIncident(WS, "00000000-0000-8000-8000-000000000000"))).toMatchObject({ code: "NOT_FOUND", target: "incidentId" });
    expect(await rejection(a.getIncident("ws-unknown", known.id))).toMatchObject({ code: "NOT_FOUND", target: "workspaceId" });
    expect(await rejection(a.setStatus(WS, known.id, { status: "Closed" }))).toMatchObject({ code: "VALIDATION_ERROR", target: "classification" });
    const comment = await a.addComment(WS, known.id, { message: "x", authorEmail: "x@example.com", authorName: "X", isAgentComment: false, agentName: null, isClosingComment: false, extensionId: null });
    await a.deleteComment(WS, known.id, comment.id);
    expect(await rejection(a.deleteComment(WS, known.id, comment.id))).toMatchObject({ code: "NOT_FOUND", target: "commentId" });

    vendors.console.deleteIncident("SourceA", WS, known.id);
    expect(await rejection(a.getIncident(WS, known.id))).toMatchObject({ code: "NOT_FOUND", target: "incidentId" });
    const notFound = { code: "NOT_FOUND" };
    expect(await rejection(() => vendors.console.deleteIncident("SourceA", WS, known.id))).toMatchObject({ ...notFound, target: "incidentId" });
    expect(await rejection(() => vendors.console.close("SourceA", WS, "missing", "TruePositive"))).toMatchObject({ ...notFound, target: "incidentId" });
    expect(await rejection(() => vendors.console.addAlert("SourceA", WS, "missing", { title: "x", severity: "Low" }))).toMatchObject(notFound);
    expect(await rejection(() => vendors.console.createIncident("SourceA", "ws-unknown", { title: "x", severity: "Low" }))).toMatchObject(notFound);
  });
});

// A local host's vendors run in its memory: incidents made in the console and closed go once old.
describe("simulated vendor: closed console incidents", () => {
  it("drops one a day after it was closed, from reads and both orders; open and seeded ones stay", async () => {
    expect(CLOSED_CONSOLE_INCIDENT_RETENTION_MS).toBe(24 * 60 * MINUTE);
    const { a, vendors, clock } = world();
    const closed = vendors.console.createIncident("SourceA", WS, { title: "Closed soon", severity: "Low" });
    const open = vendors.console.createIncident("SourceA", WS, { title: "Still open", severity: "Low" });
    const seeded = (await everything(a)).find((i) => i.status !== "Closed" && i.id !== closed.id && i.id !== open.id)!;
    vendors.console.close("SourceA", WS, closed.id, "FalsePositive");
    await a.setStatus(WS, seeded.id, { status: "Closed", classification: "FalsePositive" });
    clock.now += CLOSED_CONSOLE_INCIDENT_RETENTION_MS - 1;
    vendors.console.close("SourceA", WS, vendors.console.createIncident("SourceA", WS, { title: "Later", severity: "Low" }).id, "FalsePositive");
    expect((await a.getIncident(WS, closed.id)).status).toBe("Closed");

    clock.now += 1;
    vendors.console.createIncident("SourceA", WS, { title: "Next write", severity: "Low" });
    expect(await rejection(a.getIncident(WS, closed.id))).toMatchObject({ code: "NOT_FOUND", target: "incidentId" });
    for (const field of ["createdAt", "lastModificationTime"] as const) expect((await everything(a, WS, field)).map((i) => i.id)).not.toContain(closed.id);
    expect((await a.getIncident(WS, open.id)).status).toBe("New");
    expect((await a.getIncident(WS, seeded.id)).status).toBe("Closed");
  });

  it("keeps at most its bound closed per workspace and vendor, the first closed going first; one reopened is not counted", async () => {
    expect(MAX_CLOSED_CONSOLE_INCIDENTS).toBe(100);
    const { a, vendors } = world();
    const made = Array.from({ length: MAX_CLOSED_CONSOLE_INCIDENTS + 2 }, (_, i) => vendors.console.createIncident("SourceA", WS, { title: `Made ${i}`, severity: "Low" }).id);
    vendors.console.close("SourceA", WS, made[0]!, "FalsePositive");
    await a.setStatus(WS, made[0]!, { status: "Active" }); // reopened: open again, never dropped
    for (const id of made.slice(1)) vendors.console.close("SourceA", WS, id, "FalsePositive");
    // One more than the bound closed: the first closed (made[1]) is gone.
    expect(await rejection(a.getIncident(WS, made[1]!))).toMatchObject({ code: "NOT_FOUND" });
    expect((await a.getIncident(WS, made[2]!)).status).toBe("Closed");
    expect((await a.getIncident(WS, made[0]!)).status).toBe("Active");
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

describe("simulated vendor: workspaces onboarded after start", () => {
  it("holds a workspace added later, with no incident until the console raises one; unknown ones stay NOT_FOUND", async () => {
    const vendors = createSimulatedVendors({ seed: "later", workspaces: [], incidentsPerWorkspace: 10, owners: [], now: () => new Date("2026-11-25T12:00:00Z") });
    const id = "0b7c2f4e-9a1d-4e3b-8c5f-6d2a1e9b7c40";
    const listing = () => vendors.gateway("SourceA").listIncidents({ workspaceId: id, field: "createdAt", from: "2026-01-01T00:00:00Z", to: "2026-12-31T00:00:00Z", limit: 50 });
    await expect(listing()).rejects.toMatchObject({ code: "NOT_FOUND" });
    vendors.console.addWorkspace({ id, name: "fabrikam-sentinel-emea", tenantId: "4d7e2b19-8c3a-4f5e-b1d6-9a0c2e7f3b48" });
    expect((await listing()).items).toEqual([]);
    const raised = vendors.console.createIncident("SourceA", id, { title: "Password spray", severity: "High" });
    expect((await listing()).items.map((i) => i.id)).toEqual([raised.id]);
    // Adding it again keeps what it holds.
    vendors.console.addWorkspace({ id, name: "fabrikam-sentinel-emea", tenantId: "4d7e2b19-8c3a-4f5e-b1d6-9a0c2e7f3b48" });
    expect((await listing()).items).toHaveLength(1);
  });
});
