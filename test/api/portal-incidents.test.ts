import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import { QUEUE_PAGE_SIZE } from "../../shared/domain/incidents/incident-queue";
import { RELATED_INCIDENTS_LIMIT } from "../../shared/api/portal/incidents/portal-incident-routes";
import { sources } from "../../shared/model/sources";
import { vendorCount } from "../support/vendor-count";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/**
 * Incidents in the portal: the contract's cross-workspace listing over the workspaces a person may
 * see, and one incident with its comments, every gamebook run on it and the incidents related to it.
 */
// Paging to the end takes a page per 50 incidents, each with its store reads: seconds over Cosmos on a busy machine.
vi.setConfig({ testTimeout: 30_000 });

const clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);

let host: TestHost;
let assigned: string[];
let unassigned: string;
let analyst: TestPerson;
let workspaceAdmin: TestPerson;

beforeAll(async () => {
  host = await startTestHost({ now, env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "150", SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  assigned = [host.demo.workspaces[0]!.id, host.demo.workspaces[2]!.id];
  unassigned = host.demo.workspaces[1]!.id;
  analyst = await host.person({ organizationalRole: "Member", workspaceAssignments: assigned.map((workspaceId) => ({ workspaceId, role: "Analyst" as const })) });
  workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
});
afterAll(async () => host?.close());

const search = (person: TestPerson, body: Json) => host.portal(person, "POST", "/portal/incidents/search", { body });

/** Pages through the queue, returning every incident, the pages' sizes and the number of calls. */
async function pageThrough(person: TestPerson, filters: Json) {
  const seen: Json[] = [];
  const sizes: number[] = [];
  let res = await search(person, filters);
  for (;;) {
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data.incidents.length).toBeLessThanOrEqual(QUEUE_PAGE_SIZE);
    expect(body.data.moreIncidentsAvailable).toBe(body.data.nextPageToken !== null);
    seen.push(...body.data.incidents);
    sizes.push(body.data.incidents.length);
    if (!body.data.moreIncidentsAvailable) return { seen, calls: sizes.length, sizes };
    res = await search(person, { ...filters, pageToken: body.data.nextPageToken });
  }
}

const keyOf = (i: Json) => `${i.incident.workspaceId}/${i.source}/${i.incident.id}`;
const severityRank: Record<string, number> = { High: 0, Medium: 1, Low: 2, Informational: 3 };
/** The queue's order: newest created first (or severity first), then workspace, source and id. */
function queueOrder(order: "newest" | "severity") {
  return (a: Json, b: Json) =>
    (order === "severity" ? severityRank[a.incident.severity]! - severityRank[b.incident.severity]! : 0) ||
    Date.parse(b.incident.createdAt) - Date.parse(a.incident.createdAt) ||
    (a.incident.workspaceId < b.incident.workspaceId ? -1 : a.incident.workspaceId > b.incident.workspaceId ? 1 : 0) ||
    (a.source < b.source ? -1 : a.source > b.source ? 1 : 0) ||
    (a.incident.id < b.incident.id ? -1 : a.incident.id > b.incident.id ? 1 : 0);
}

describe("POST /portal/incidents/search", () => {
  it("pages through every incident of the workspaces the person holds a role on, each once, newest first across them all, and none of the others", async () => {
    const { seen, calls, sizes } = await pageThrough(analyst, {});
    let expected = 0;
    for (const w of assigned) for (const s of sources) expected += await vendorCount(host.services, w, s, clock);
    expect(expected).toBeGreaterThan(QUEUE_PAGE_SIZE * 2);
    expect(calls).toBe(Math.ceil(expected / QUEUE_PAGE_SIZE));
    // Every page full but the last: "more" is said only when there is more.
    expect(sizes.slice(0, -1).every((n) => n === QUEUE_PAGE_SIZE)).toBe(true);
    expect(seen.length).toBe(expected);
    expect(new Set(seen.map(keyOf)).size).toBe(expected);
    expect(new Set(seen.map((i) => i.incident.workspaceId))).toEqual(new Set(assigned));
    // One order across both workspaces and all seven sources, page after page.
    expect(seen.map(keyOf)).toEqual([...seen].sort(queueOrder("newest")).map(keyOf));
  });

  it("hands out every incident of one millisecond, however many pages of a stream they fill, each once", async () => {
    // The clock stands still: every incident raised here is created in the same millisecond.
    const title = "Burst from the weekly import";
    const raised = Array.from({ length: 3 * QUEUE_PAGE_SIZE }, () => host.simulated.vendors.createIncident("SourceA", assigned[0]!, { title, severity: "Medium" }));
    const { seen } = await pageThrough(analyst, { query: title });
    expect(seen.map((i) => i.incident.id).sort()).toEqual(raised.map((i) => i.id).sort());
  });

  it("orders by severity, then newest, across workspaces and sources", async () => {
    const { seen } = await pageThrough(analyst, { order: "severity", statuses: ["New", "Active"] });
    expect(seen.length).toBeGreaterThan(QUEUE_PAGE_SIZE);
    expect(seen.map(keyOf)).toEqual([...seen].sort(queueOrder("severity")).map(keyOf));
    expect(new Set(seen.map((i) => i.incident.severity)).size).toBeGreaterThan(1);
    const { seen: newest } = await pageThrough(analyst, { statuses: ["New", "Active"] });
    expect(new Set(seen.map(keyOf))).toEqual(new Set(newest.map(keyOf)));
  });

  it("an organization-wide role sees every workspace of the organization; one its sources do not know yet has no incidents", async () => {
    // Onboarded here, unknown to the vendors: its streams end empty instead of failing the listing.
    const onboarded = await host.portal(workspaceAdmin, "POST", "/portal/workspaces", {
      body: { name: "fabrikam-sentinel-new", accountId: host.demo.customers[0]!.id, tenantId: "0b5c6a1e-2f3d-4e5a-9b8c-7d6e5f4a3b2c" },
    });
    expect(onboarded.status).toBe(201);
    const { seen } = await pageThrough(workspaceAdmin, { sources: ["SourceA"] });
    const workspaces = new Set(seen.map((i) => i.incident.workspaceId));
    expect(workspaces.has(unassigned)).toBe(true);
    for (const w of assigned) expect(workspaces.has(w)).toBe(true);
    const organization = (await host.services.stores.workspaces.listByAccounts([host.demo.provider.id, ...host.demo.customers.map((c) => c.id)])).map((w) => w.id);
    for (const w of workspaces) expect(organization).toContain(w);
  });

  it("filters by severity, status, source, assignee and text, as the contract's listing does", async () => {
    const target = host.simulated.vendors.createIncident("SourceB", assigned[0]!, { title: "Quasar exfiltration beacon", severity: "Low" });
    host.simulated.vendors.createIncident("SourceB", unassigned, { title: "Quasar exfiltration beacon", severity: "Low" });
    const byText = await pageThrough(analyst, { query: "quasar" });
    expect(byText.seen.map(keyOf)).toEqual([`${assigned[0]}/SourceB/${target.id}`]);
    const filtered = await pageThrough(analyst, { severities: ["High"], statuses: ["New"], sources: ["SourceA", "SourceC"] });
    expect(filtered.seen.length).toBeGreaterThan(0);
    for (const i of filtered.seen) {
      expect(i.incident.severity).toBe("High");
      expect(i.incident.status).toBe("New");
      expect(["SourceA", "SourceC"]).toContain(i.source);
    }
    const unowned = await pageThrough(analyst, { includeUnassigned: true, sources: ["SourceA"] });
    expect(unowned.seen.length).toBeGreaterThan(0);
    for (const i of unowned.seen) expect(i.assignee?.email ?? null).toBeNull();
    const owner = (await pageThrough(analyst, { sources: ["SourceA"] })).seen.find((i) => i.assignee?.email)!.assignee.email as string;
    const owned = await pageThrough(analyst, { assigneeEmails: [owner.toUpperCase()], sources: ["SourceA"] });
    expect(owned.seen.length).toBeGreaterThan(0);
    for (const i of owned.seen) expect(i.assignee.email.toLowerCase()).toBe(owner.toLowerCase());
  });

  it("narrows to customers and to workspaces, within what the person sees; the narrowing binds the page token", async () => {
    const customer = host.demo.customers[0]!;
    const customerWorkspaces = host.demo.workspaces.filter((w) => w.accountId === customer.id).map((w) => w.id);
    expect(customerWorkspaces.length).toBeGreaterThan(0);
    const byCustomer = await pageThrough(workspaceAdmin, { sources: ["SourceA"], accountIds: [customer.id] });
    expect(byCustomer.seen.length).toBeGreaterThan(0);
    for (const i of byCustomer.seen) expect(customerWorkspaces).toContain(i.incident.workspaceId);
    const { seen: everyWorkspace } = await pageThrough(workspaceAdmin, { sources: ["SourceA"] });
    expect(byCustomer.seen.map(keyOf)).toEqual(everyWorkspace.filter((i) => customerWorkspaces.includes(i.incident.workspaceId)).map(keyOf));

    const byWorkspace = await pageThrough(workspaceAdmin, { sources: ["SourceA"], workspaceIds: [assigned[0]] });
    expect(new Set(byWorkspace.seen.map((i) => i.incident.workspaceId))).toEqual(new Set([assigned[0]]));
    // The analyst holds no role on `unassigned`: naming it narrows to nothing, and no source is asked.
    const notTheirs = await json(await search(analyst, { workspaceIds: [unassigned] }));
    expect(notTheirs.data).toMatchObject({ incidents: [], moreIncidentsAvailable: false, nextPageToken: null });
    // A workspace of another customer than the one named: nothing.
    const other = host.demo.workspaces.find((w) => w.accountId !== customer.id)!.id;
    const crossed = await json(await search(workspaceAdmin, { accountIds: [customer.id], workspaceIds: [other] }));
    expect(crossed.data.incidents).toEqual([]);

    // The token of a narrowed queue pages that queue only.
    const first = await json(await search(workspaceAdmin, { accountIds: [customer.id] }));
    expect(first.data.moreIncidentsAvailable).toBe(true);
    const widened = await search(workspaceAdmin, { pageToken: first.data.nextPageToken });
    expect([widened.status, (await json(widened)).code]).toEqual([400, "VALIDATION_ERROR"]);
    const same = await search(workspaceAdmin, { pageToken: first.data.nextPageToken, accountIds: [customer.id] });
    expect(same.status).toBe(200);
    const bad = await json(await search(workspaceAdmin, { accountIds: ["not-a-guid"] }));
    expect(Object.keys(bad.errors)).toContain("accountIds[0]");
  });

  it("tokens are the person's: another person's, or a changed query's or order's, are 400; bad bodies are 400 naming the field", async () => {
    const first = await json(await search(analyst, {}));
    expect(first.data.moreIncidentsAvailable).toBe(true);
    const next = { pageToken: first.data.nextPageToken };
    const colleague = await host.person({ organizationalRole: "Member", workspaceAssignments: assigned.map((workspaceId) => ({ workspaceId, role: "Analyst" as const })) });
    const stolen = await search(colleague, next);
    expect([stolen.status, (await json(stolen)).code]).toEqual([400, "VALIDATION_ERROR"]);
    expect((await search(analyst, { ...next, severities: ["High"] })).status).toBe(400);
    expect((await search(analyst, { ...next, order: "severity" })).status).toBe(400);
    const forged = await json(await search(analyst, { pageToken: `${first.data.nextPageToken}x` }));
    expect(forged.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(forged.errors)).toContain("pageToken");
    const bad = await json(await search(analyst, { timeFilterSelection: { type: "Weekly" }, order: "oldest" }));
    expect(bad.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(bad.errors)).toEqual(expect.arrayContaining(["timeFilterSelection.type", "order"]));
    // The contract's paging fields are not the queue's.
    const contractShaped = await json(await search(analyst, { isFirstCall: true, workspacePageTokens: [] }));
    expect(contractShaped.code).toBe("VALIDATION_ERROR");
  });

  it("a person with no workspace sees nothing, and asks no source", async () => {
    const nobody = await host.person({ organizationalRole: "Member" });
    const body = await json(await search(nobody, {}));
    expect(body.data).toEqual({ incidents: [], nextPageToken: null, moreIncidentsAvailable: false, unreadStreams: 0 });
  });
});

describe("GET /portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}", () => {
  /** An incident of the workspace with an account entity, which the catalogue's revoke-sessions playbook acts on. */
  async function incidentWithAccount(workspaceId: string) {
    const catalogue = (await host.services.stores.playbookCatalogues.get(workspaceId))!;
    const playbook = catalogue.playbooks.find((p) => p.referenceId === "revoke-sessions")!;
    for (let i = 0; i < 200; i++) {
      const incident = host.simulated.vendors.createIncident("SourceA", workspaceId, { title: "Impossible travel", severity: "High" });
      const entity = incident.entities.find((e) => actsOn(playbook, e));
      if (entity) return { incident, playbook, entity };
    }
    throw new Error("no incident with an account");
  }

  it("answers the incident, its comments, its gamebook runs and the incidents sharing an entity with it, in one response", async () => {
    const workspaceId = assigned[0]!;
    const { incident, playbook, entity } = await incidentWithAccount(workspaceId);
    const path = `/portal/workspaces/${workspaceId}/incidents/SourceA/${incident.id}`;

    const before = await json(await host.portal(analyst, "GET", path));
    expect(before.data.runs).toEqual([]);

    await host.services.sources.gateway("SourceA").addComment(workspaceId, incident.id, {
      message: "Called the user: not them.",
      authorEmail: "li.wei@contoso-mssp.example",
      authorName: "Li Wei",
      isAgentComment: false,
      agentName: null,
      isClosingComment: false,
      extensionId: null,
    });
    const run = await host.call("POST", `/workspaces/${workspaceId}/gamebooks/run`, {
      body: { incidentId: incident.id, incidentTitle: incident.title, source: "SourceA", playbooks: [{ id: playbook.id, sequence: 1, entityId: entity.id, parameters: {} }] },
    });
    const runId = (await json(run)).data.id;
    expect(run.status).toBe(200);

    const res = await host.portal(analyst, "GET", path);
    const { data } = await json(res);
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toMatch(/^".+"$/);

    // The incident as the contract's own route has it.
    const contract = await json(await host.call("GET", `/workspaces/${workspaceId}/incidents/SourceA/${incident.id}`));
    expect(data.incident).toEqual(contract.data);
    expect(data.incident.investigationDetails.entities.length).toBeGreaterThan(0);
    // The comments as the contract's comments route lists them.
    const comments = await json(await host.call("GET", `/workspaces/${workspaceId}/incidents/SourceA/${incident.id}/comments`));
    expect(data.comments).toEqual(comments.data);
    expect(data.comments.map((c: Json) => c.message)).toContain("Called the user: not them.");
    expect(data.ticketNotesAvailable).toBe(true);
    expect(data.runs).toHaveLength(1);
    expect(data.runs[0]).toMatchObject({ id: runId, requestedBy: { kind: "ServiceAccount", id: host.admin.clientId }, isAutoRun: false, isRetryGamebook: false, isRecover: false });
    // Related: the by-entity search with the incident's id, at most the limit.
    const byEntity = await json(await host.call("GET", `/workspaces/${workspaceId}/incidents/SourceA/by-entity?IncidentId=${incident.id}`));
    expect(data.related).toEqual(byEntity.data.slice(0, RELATED_INCIDENTS_LIMIT));
    expect(data.related.length).toBeGreaterThan(0);
    expect(data.related.map(keyOf)).not.toContain(`${workspaceId}/SourceA/${incident.id}`);
  });

  it("is 404 for another organization's workspace, 403 for one of the person's own they hold no role on, 404 for an incident the source does not have", async () => {
    const { incident } = await incidentWithAccount(unassigned);
    const path = `/portal/workspaces/${unassigned}/incidents/SourceA/${incident.id}`;
    const unassignedWorkspace = (await host.services.stores.workspaces.get(unassigned))!;
    const otherCustomer = host.demo.customers.find((c) => c.id !== unassignedWorkspace.accountId)!;
    const stranger = await host.person({ organizationalRole: "Admin", accountId: otherCustomer.id });
    const foreign = await host.portal(stranger, "GET", path);
    expect([foreign.status, (await json(foreign)).code]).toEqual([404, "NOT_FOUND"]);
    const withoutRole = await host.portal(analyst, "GET", path);
    const refused = await json(withoutRole);
    expect([withoutRole.status, refused.code]).toEqual([403, "INSUFFICIENT_WORKSPACE_ROLE"]);
    // Said to a person, not about a service account.
    expect(`${refused.title} ${refused.detail}`).not.toMatch(/service account/i);
    // An organization-wide role may read it.
    expect((await host.portal(workspaceAdmin, "GET", path)).status).toBe(200);
    const missing = await host.portal(analyst, "GET", `/portal/workspaces/${assigned[0]}/incidents/SourceA/no-such-incident`);
    expect(missing.status).toBe(404);
  });
});
