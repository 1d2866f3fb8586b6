import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Source } from "../../shared/model/sources";
import type { Entity } from "../../shared/model/incidents/incident";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

/**
 * Indicators shared across a provider's customers: planted in the simulated vendors' incidents,
 * taken in by a reconciler pass, and read back by the provider's people, each seeing only the
 * workspaces they may see; a customer's people are refused.
 */
let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);
const HOUR = 3_600_000;

let host: TestHost;
let admin: TestPerson;
const ws: Record<"fabrikamProd" | "fabrikamStores" | "northwindProd" | "northwindClinics" | "contosoSoc" | "tailspin", string> = {} as never;
let tailspinAccountId: string;
const planted: Record<string, { workspaceId: string; source: Source; id: string }> = {};

const SHARED_IP = "192.0.2.7";
const ONE_CUSTOMER_HOST = "web01.corp.fabrikam.example";
const ip = (name: string) => ({ kind: "Ip" as const, name, properties: { address: name } });
const host01 = { kind: "Host" as const, name: "WEB01", properties: { hostName: "WEB01", dnsDomain: "corp.fabrikam.example" } };

function plant(label: string, source: Source, workspaceId: string, entities: Omit<Entity, "id">[], severity: "High" | "Medium" = "High") {
  const incident = host.simulated.vendors.createIncident(source, workspaceId, { title: `Beaconing (${label})`, severity, entities });
  planted[label] = { workspaceId, source, id: incident.id };
  clock += 1000;
}

async function reconcile(): Promise<Json> {
  const res = await host.local("POST", "/reconcile");
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

const shared = (person: TestPerson, query = "") => host.portal(person, "GET", `/portal/shared-indicators${query}`);
const indicatorsOf = async (person: TestPerson, query = ""): Promise<Json[]> => {
  const res = await shared(person, query);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.data.indicators;
};
const keyOf = (i: { workspaceId: string; source: string; incidentId?: string; id?: string }) => `${i.workspaceId}/${i.source}/${i.incidentId ?? i.id}`;

beforeAll(async () => {
  // No seeded incidents: every incident of the suite is one it planted.
  host = await startTestHost({ now, env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "0" } });
  const byName = (name: string) => host.demo.workspaces.find((w) => w.name === name)!.id;
  ws.fabrikamProd = byName("fabrikam-sentinel-prod");
  ws.fabrikamStores = byName("fabrikam-sentinel-stores");
  ws.northwindProd = byName("northwind-sentinel-prod");
  ws.northwindClinics = byName("northwind-sentinel-clinics");
  ws.contosoSoc = byName("contoso-soc-internal");
  // A third customer, onboarded as a provider's WorkspaceAdmin onboards one.
  const onboarder = await host.person({ organizationalRole: "WorkspaceAdmin" });
  const organization = await json(await host.portal(onboarder, "POST", "/portal/organizations", { body: { name: "Tailspin Toys" } }));
  tailspinAccountId = organization.data.id;
  const workspace = await json(
    await host.portal(onboarder, "POST", "/portal/workspaces", { body: { name: "tailspin-sentinel", accountId: tailspinAccountId, tenantId: "5d1f2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b" } }),
  );
  ws.tailspin = workspace.data.id;
  admin = await host.person({ organizationalRole: "WorkspaceAdmin" });

  // The first pass sets every workspace's baseline; what is planted after it arrives.
  await reconcile();
  clock += 60_000;
  plant("fabrikam-prod", "SourceA", ws.fabrikamProd, [ip(SHARED_IP), host01, { kind: "Process", name: "cmd.exe (42)", properties: {} }]);
  plant("fabrikam-stores", "SourceB", ws.fabrikamStores, [ip(SHARED_IP), { ...host01, properties: { ...host01.properties, hostName: "web01" } }], "Medium");
  plant("northwind-prod", "SourceA", ws.northwindProd, [{ kind: "Ip", name: "::ffff:192.0.2.7", properties: {} }]);
  plant("tailspin", "SourceB", ws.tailspin, [ip(SHARED_IP), { kind: "Ip", name: "10.0.0.5", properties: {} }]);
  // The provider's own workspace is no customer's; a closed incident is no longer hitting anyone.
  plant("contoso-soc", "SourceA", ws.contosoSoc, [ip(SHARED_IP)]);
  plant("northwind-clinics-closed", "SourceA", ws.northwindClinics, [ip(SHARED_IP)]);
  host.simulated.vendors.close("SourceA", ws.northwindClinics, planted["northwind-clinics-closed"]!.id, "TruePositive");
  // The same private address in two customers says nothing.
  plant("northwind-clinics-private", "SourceB", ws.northwindClinics, [{ kind: "Ip", name: "10.0.0.5", properties: {} }]);
  clock += 30_000;
  const pass = await reconcile();
  expect(pass).toMatchObject({ created: 7, failed: 0 });
}, 120_000);
afterAll(async () => host?.close());

describe("GET /portal/shared-indicators", () => {
  it("shows a provider's person an indicator in open incidents of three customers, with each incident, and not one seen by a single customer", async () => {
    const res = await shared(admin);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toMatchObject({ window: "7d", moreIndicators: false, incidentsTruncated: false, comparedIncidents: 4 });
    expect(Date.parse(body.data.to) - Date.parse(body.data.from)).toBe(7 * 24 * HOUR);
    expect(body.data.indicators.map((i: Json) => i.key)).toEqual([`ip:${SHARED_IP}`]);
    const [signal] = body.data.indicators;
    const expected = ["fabrikam-prod", "fabrikam-stores", "northwind-prod", "tailspin"].map((label) => planted[label]!);
    expect(signal).toMatchObject({ kind: "ip", value: SHARED_IP, customerCount: 3, incidentCount: 4 });
    expect(signal.incidents.map(keyOf).sort()).toEqual(expected.map(keyOf).sort());
    // Newest first; first and last seen are the oldest and newest creation times.
    expect(signal.incidents.map((i: Json) => i.createdAt)).toEqual([...signal.incidents.map((i: Json) => i.createdAt)].sort().reverse());
    expect(signal.firstSeen).toBe(signal.incidents.at(-1).createdAt);
    expect(signal.lastSeen).toBe(signal.incidents[0].createdAt);
    expect(signal.customers).toEqual([
      { accountId: host.demo.customers[0]!.id, name: "Fabrikam Retail" },
      { accountId: host.demo.customers[1]!.id, name: "Northwind Health" },
      { accountId: tailspinAccountId, name: "Tailspin Toys" },
    ]);
    const fabrikamProd = signal.incidents.find((i: Json) => i.workspaceId === ws.fabrikamProd);
    expect(fabrikamProd).toMatchObject({ workspaceName: "fabrikam-sentinel-prod", accountId: host.demo.customers[0]!.id, source: "SourceA", title: "Beaconing (fabrikam-prod)", severity: "High" });
    // The host seen in two incidents of Fabrikam alone, and the private address, are no signal.
    expect(JSON.stringify(body)).not.toContain(ONE_CUSTOMER_HOST);
    expect(JSON.stringify(body)).not.toContain("10.0.0.5");
  });

  it("keeps the incident's title, severity and indicator keys on the state the reconciler wrote; a pass in which nothing changed writes no state", async () => {
    const state = await host.services.stores.incidents.get(ws.fabrikamProd, `state-SourceA-${Buffer.from(planted["fabrikam-prod"]!.id).toString("base64url")}`);
    expect(state?.value).toMatchObject({ title: "Beaconing (fabrikam-prod)", severity: "High", indicators: [`ip:${SHARED_IP}`, `host:${ONE_CUSTOMER_HOST}`] });
    // A pass in which nothing changed writes no incident state, as before.
    clock += 120_000;
    const pass = await reconcile();
    expect(pass).toMatchObject({ created: 0, closed: 0, updated: 0, baselined: 0 });
  });

  it("refuses a customer's people, whatever their role, with 403 and nothing of any customer's", async () => {
    const fabrikam = host.demo.customers[0]!.id;
    const member = await host.person({ organizationalRole: "Member", accountId: fabrikam, workspaceAssignments: [{ workspaceId: ws.fabrikamProd, role: "Analyst" }] });
    const customerAdmin = await host.person({ organizationalRole: "Admin", accountId: fabrikam });
    for (const person of [member, customerAdmin]) {
      const res = await shared(person);
      const text = await res.text();
      expect(res.status).toBe(403);
      expect(JSON.parse(text)).toMatchObject({ code: "FORBIDDEN", target: "accountId" });
      expect(text).not.toContain(SHARED_IP);
      for (const id of Object.values(planted)) expect(text).not.toContain(id.id);
    }
  });

  it("a provider's person with roles on some workspaces counts and sees only their incidents", async () => {
    const analyst = await host.person({
      organizationalRole: "Member",
      workspaceAssignments: [ws.fabrikamProd, ws.northwindProd].map((workspaceId) => ({ workspaceId, role: "Analyst" as const })),
    });
    const indicators = await indicatorsOf(analyst);
    expect(indicators.map((i) => i.key)).toEqual([`ip:${SHARED_IP}`]);
    expect(indicators[0]).toMatchObject({ customerCount: 2, incidentCount: 2 });
    expect(indicators[0]!.customers.map((c: Json) => c.accountId)).toEqual(host.demo.customers.map((c) => c.id));
    expect(indicators[0]!.incidents.map(keyOf).sort()).toEqual([planted["fabrikam-prod"]!, planted["northwind-prod"]!].map(keyOf).sort());

    // Within one customer's workspaces only, nothing is shared: other customers' incidents are not even hinted at.
    const fabrikamOnly = await host.person({
      organizationalRole: "Member",
      workspaceAssignments: [ws.fabrikamProd, ws.fabrikamStores, ws.contosoSoc].map((workspaceId) => ({ workspaceId, role: "Owner" as const })),
    });
    const res = await shared(fabrikamOnly);
    const body = await json(res);
    expect(body.data).toMatchObject({ indicators: [], comparedIncidents: 2 });
  });

  it("takes the window and the limit, and refuses values outside them", async () => {
    expect((await indicatorsOf(admin, "?window=24h&limit=1")).map((i) => i.key)).toEqual([`ip:${SHARED_IP}`]);
    for (const query of ["?window=1y", "?limit=0", "?limit=201", "?since=2026-01-01"]) {
      const res = await shared(admin, query);
      expect(res.status, query).toBe(400);
      expect((await json(res)).code).toBe("VALIDATION_ERROR");
    }
    // A day later the incidents are out of a 24-hour window, still in the week's.
    const saved = clock;
    clock += 25 * HOUR;
    const later = await host.person({ organizationalRole: "Admin" });
    expect(await indicatorsOf(later, "?window=24h")).toEqual([]);
    expect((await indicatorsOf(later, "?window=3d")).map((i) => i.key)).toEqual([`ip:${SHARED_IP}`]);
    clock = saved;
  });

  it("an incident closed at its source leaves at the reconciler's next pass", async () => {
    host.simulated.vendors.close("SourceB", ws.tailspin, planted.tailspin!.id, "TruePositive");
    clock += 30_000;
    expect(await reconcile()).toMatchObject({ closed: 1 });
    const [signal] = await indicatorsOf(admin);
    expect(signal).toMatchObject({ key: `ip:${SHARED_IP}`, customerCount: 2, incidentCount: 3 });
    expect(signal!.incidents.some((i: Json) => i.workspaceId === ws.tailspin)).toBe(false);
  });
});
