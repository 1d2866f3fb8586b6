import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ApiError } from "../../shared/platform/errors/api-error";
import { PageTokens } from "../../shared/platform/http/page-token";
import { incidentQueuePage, QUEUE_PAGE_SIZE, type QueueOrder, type QueueQuery } from "../../shared/domain/incidents/incident-queue";
import { GIVE_UP_AFTER_FAILED_PAGES, type ListingContext } from "../../shared/domain/incidents/cross-workspace-listing";
import { sources, type Source } from "../../shared/model/sources";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import type { IncidentWindowQuery } from "../../shared/systems/vendors/port";
import type { Severity, VendorIncident } from "../../shared/model/incidents/incident";

/*
 * The queue's merge against vendors that list newest first, each with its own order inside one
 * millisecond and its own page cursors: whatever the incidents, paging to the end hands out every
 * incident once, in the queue's order; a stream that fails keeps its place and is given up only as
 * the listing's rules say.
 */

const NOW = Date.parse("2026-11-20T12:00:00.000Z");
const severityRank: Record<Severity, number> = { High: 0, Medium: 1, Low: 2, Informational: 3 };

interface Planted {
  workspace: number;
  source: number;
  /** Milliseconds before NOW: few distinct values, so that many incidents share one. */
  ageMs: number;
  severity: Severity;
}

function workspaceOf(i: number): WorkspaceRecord {
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  return { id, name: `ws-${i}`, accountId: "10000000-0000-4000-8000-000000000001" } as WorkspaceRecord;
}

function incidentOf(p: Planted, n: number, workspaces: WorkspaceRecord[]): VendorIncident {
  return {
    id: `inc-${String(n).padStart(4, "0")}`,
    source: sources[p.source]!,
    workspaceId: workspaces[p.workspace]!.id,
    number: n,
    title: `Incident ${n}`,
    description: "",
    severity: p.severity,
    status: "New",
    classification: null,
    closingComment: null,
    owner: null,
    createdAt: new Date(NOW - p.ageMs).toISOString(),
    lastModificationTime: new Date(NOW - p.ageMs).toISOString(),
    lastActivityTime: new Date(NOW - p.ageMs).toISOString(),
    entities: [],
    alerts: [],
    gamebookCatalog: {},
    vendorIdentifiers: {},
  } as VendorIncident;
}

/**
 * A vendor of the incidents given: newest first, ties inside one millisecond in an order of its own
 * (descending id, unlike the queue), an offset cursor, and failures on demand per stream.
 */
function fakeContext(incidents: VendorIncident[], fail: (workspaceId: string, source: Source, call: number) => ApiError | null) {
  const calls = new Map<string, number>();
  const gateway = (source: Source) => ({
    async listIncidents(query: IncidentWindowQuery) {
      const key = `${query.workspaceId}/${source}`;
      const call = (calls.get(key) ?? 0) + 1;
      calls.set(key, call);
      const failure = fail(query.workspaceId, source, call);
      if (failure) throw failure;
      const matching = incidents
        .filter((i) => i.workspaceId === query.workspaceId && i.source === source)
        .filter((i) => i.createdAt >= query.from && i.createdAt < query.to)
        .filter((i) => !query.filters?.severities || query.filters.severities.includes(i.severity))
        .sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1));
      const offset = query.cursor === undefined ? 0 : Number(query.cursor);
      const items = matching.slice(offset, offset + query.limit);
      return offset + query.limit < matching.length ? { items, cursor: String(offset + query.limit) } : { items };
    },
  });
  const ctx = {
    pageTokens: new PageTokens(Buffer.alloc(32, 7)),
    person: { accountId: "10000000-0000-4000-8000-000000000001", userId: "u-1" },
    now: () => new Date(NOW),
    config: { crossWorkspaceBudgetMs: 10_000, sourceLimits: Object.fromEntries(sources.map((s) => [s, { maxConcurrency: 32 }])) },
    stores: { incidents: { getMany: async () => [] } },
    sources: { gateway, isEnabledFor: () => true },
    breakers: { failing: () => undefined, pendingMs: () => 0 },
  } as unknown as ListingContext;
  return { ctx, calls };
}

const query = (order: QueueOrder, extra: Partial<QueueQuery> = {}): QueueQuery => ({
  severities: [],
  statuses: [],
  sources: [],
  assigneeEmails: [],
  includeUnassigned: false,
  order,
  ...extra,
});

function queueKey(order: QueueOrder) {
  return (a: VendorIncident, b: VendorIncident) =>
    (order === "severity" ? severityRank[a.severity] - severityRank[b.severity] : 0) ||
    Date.parse(b.createdAt) - Date.parse(a.createdAt) ||
    (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0) ||
    (a.source < b.source ? -1 : a.source > b.source ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

async function pageToEnd(ctx: ListingContext, workspaces: WorkspaceRecord[], q: QueueQuery) {
  const pages: { ids: string[]; unavailable: string[] }[] = [];
  let token: string | undefined;
  for (let guard = 0; guard < 500; guard++) {
    const page = await incidentQueuePage(ctx, workspaces, { ...q, ...(token ? { pageToken: token } : {}) });
    pages.push({ ids: page.incidents.map((i) => i.summary.incident.id), unavailable: page.unavailable.map((u) => `${u.workspaceId}/${u.source}${u.gaveUp ? " gave up" : ""}`) });
    expect(page.incidents.length).toBeLessThanOrEqual(QUEUE_PAGE_SIZE);
    if (page.nextPageToken === null) return pages;
    token = page.nextPageToken;
  }
  throw new Error("the queue did not end");
}

const plantedArb = (workspaces: number) =>
  fc.array(
    fc.record({
      workspace: fc.nat(workspaces - 1),
      source: fc.nat(2),
      ageMs: fc.oneof(fc.nat(5), fc.nat(100_000)),
      severity: fc.constantFrom<Severity>("High", "Medium", "Low", "Informational"),
    }),
    { maxLength: 260 },
  );

describe("the incident queue", () => {
  for (const order of ["newest", "severity"] as const) {
    it(`hands out every incident once, in the ${order} order, across pages, whatever the vendors' ties and page ends`, async () => {
      const workspaces = [0, 1, 2, 3].map(workspaceOf);
      await fc.assert(
        fc.asyncProperty(plantedArb(4), async (planted) => {
          const incidents = planted.map((p, n) => incidentOf(p, n, workspaces));
          const { ctx } = fakeContext(incidents, () => null);
          const pages = await pageToEnd(ctx, workspaces, query(order, { sources: ["SourceA", "SourceB", "SourceC"] }));
          const got = pages.flatMap((p) => p.ids);
          expect(got).toEqual([...incidents].sort(queueKey(order)).map((i) => i.id));
          // Every page full but the last; no empty page after the last incident.
          expect(pages.slice(0, -1).every((p) => p.ids.length === QUEUE_PAGE_SIZE)).toBe(true);
          if (pages.length > 1) expect(pages[pages.length - 1]!.ids.length).toBeGreaterThan(0);
        }),
        { numRuns: 60 },
      );
    });
  }

  it("after the first page reads only the streams whose turn has come", async () => {
    const workspaces = Array.from({ length: 40 }, (_, i) => workspaceOf(i));
    // Each stream one incident a minute apart, the streams interleaved: 40 x 3 streams, 5 incidents each.
    const planted: Planted[] = [];
    for (let w = 0; w < 40; w++) for (let s = 0; s < 3; s++) for (let k = 0; k < 5; k++) planted.push({ workspace: w, source: s, ageMs: (k * 120 + w * 3 + s) * 1000, severity: "High" });
    const incidents = planted.map((p, n) => incidentOf(p, n, workspaces));
    const { ctx, calls } = fakeContext(incidents, () => null);
    const q = query("newest", { sources: ["SourceA", "SourceB", "SourceC"] });
    const first = await incidentQueuePage(ctx, workspaces, q);
    const afterFirst = [...calls.values()].reduce((a, b) => a + b, 0);
    expect(afterFirst).toBe(120);
    expect(first.unreadStreams).toBe(0);
    const second = await incidentQueuePage(ctx, workspaces, { ...q, pageToken: first.nextPageToken! });
    const secondCalls = [...calls.values()].reduce((a, b) => a + b, 0) - afterFirst;
    // The second page's 50 come from at most 50 streams: not all 120 again.
    expect(secondCalls).toBeGreaterThan(0);
    expect(secondCalls).toBeLessThanOrEqual(QUEUE_PAGE_SIZE);
    expect([...first.incidents, ...second.incidents].map((i) => i.summary.incident.id)).toEqual(
      [...incidents].sort(queueKey("newest")).slice(0, 100).map((i) => i.id),
    );
  });

  it("in severity order, the first page reads each stream once, at the first level: a stream with no High waits for the queue to reach Medium", async () => {
    const workspaces = Array.from({ length: 40 }, (_, i) => workspaceOf(i));
    // Even workspaces: three High incidents each on SourceA (60 in all, more than a page); odd ones: Medium only.
    const planted: Planted[] = [];
    for (let w = 0; w < 40; w++) for (let k = 0; k < 3; k++) planted.push({ workspace: w, source: 0, ageMs: (k * 60 + w) * 1000, severity: w % 2 === 0 ? "High" : "Medium" });
    const incidents = planted.map((p, n) => incidentOf(p, n, workspaces));
    const { ctx, calls } = fakeContext(incidents, () => null);
    const q = query("severity", { sources: ["SourceA"] });
    const first = await incidentQueuePage(ctx, workspaces, q);
    expect(first.incidents.map((i) => i.summary.incident.id)).toEqual([...incidents].sort(queueKey("severity")).slice(0, QUEUE_PAGE_SIZE).map((i) => i.id));
    // One call per stream: the odd workspaces' Medium incidents are not read for a page of Highs.
    expect([...calls.values()]).toEqual(Array.from({ length: 40 }, () => 1));
    expect(first.unreadStreams).toBe(0);
    // The next page reaches Medium: every stream is read at it (the evens' last Highs were in hand).
    const pages = await pageToEnd(ctx, workspaces, { ...q, pageToken: first.nextPageToken! });
    expect([...first.incidents.map((i) => i.summary.incident.id), ...pages.flatMap((p) => p.ids)]).toEqual([...incidents].sort(queueKey("severity")).map((i) => i.id));
  });

  it("reads each source's streams no more at once than its vendor takes", async () => {
    const workspaces = Array.from({ length: 30 }, (_, i) => workspaceOf(i));
    const planted: Planted[] = [];
    for (let w = 0; w < 30; w++) for (let s = 0; s < 2; s++) planted.push({ workspace: w, source: s, ageMs: (w * 2 + s) * 1000, severity: "High" });
    const incidents = planted.map((p, n) => incidentOf(p, n, workspaces));
    const { ctx } = fakeContext(incidents, () => null);
    const inner = ctx.sources.gateway;
    const inFlight = new Map<Source, number>();
    const most = new Map<Source, number>();
    (ctx as { sources: unknown }).sources = {
      isEnabledFor: () => true,
      gateway: (source: Source) => ({
        listIncidents: async (q: IncidentWindowQuery, signal?: AbortSignal) => {
          inFlight.set(source, (inFlight.get(source) ?? 0) + 1);
          most.set(source, Math.max(most.get(source) ?? 0, inFlight.get(source)!));
          await new Promise((r) => setTimeout(r, 5));
          inFlight.set(source, inFlight.get(source)! - 1);
          return inner(source).listIncidents(q, signal);
        },
      }),
    };
    (ctx.config as { sourceLimits: Record<Source, { maxConcurrency: number }> }).sourceLimits = { ...ctx.config.sourceLimits, SourceA: { maxConcurrency: 3 }, SourceB: { maxConcurrency: 5 } };
    const page = await incidentQueuePage(ctx, workspaces, query("newest", { sources: ["SourceA", "SourceB"] }));
    expect(page.incidents).toHaveLength(QUEUE_PAGE_SIZE);
    expect(Object.fromEntries(most)).toEqual({ SourceA: 3, SourceB: 5 });
  });

  it("goes on without a failing stream, names it, reads it again next page, and hands its incidents out once it answers", async () => {
    const workspaces = [0, 1, 2].map(workspaceOf);
    const planted: Planted[] = [];
    for (let w = 0; w < 3; w++) for (let k = 0; k < 40; k++) planted.push({ workspace: w, source: 0, ageMs: (k * 10 + w) * 1000, severity: "Medium" });
    const incidents = planted.map((p, n) => incidentOf(p, n, workspaces));
    const failing = workspaces[1]!.id;
    // Workspace 1 fails its first two calls, then answers.
    const { ctx } = fakeContext(incidents, (workspaceId, _source, call) => (workspaceId === failing && call <= 2 ? new ApiError("UPSTREAM_ERROR", "SourceA failed (503).") : null));
    const pages = await pageToEnd(ctx, workspaces, query("newest", { sources: ["SourceA"] }));
    expect(pages[0]!.unavailable).toEqual([`${failing}/SourceA`]);
    expect(pages[1]!.unavailable).toEqual([`${failing}/SourceA`]);
    expect(pages[0]!.ids.concat(pages[1]!.ids).every((id) => incidents.find((i) => i.id === id)!.workspaceId !== failing)).toBe(true);
    const got = pages.flatMap((p) => p.ids);
    // Every incident once, the failing workspace's among them.
    expect([...got].sort()).toEqual(incidents.map((i) => i.id).sort());
    // The healthy streams' incidents stay in order among themselves.
    const healthy = got.filter((id) => incidents.find((i) => i.id === id)!.workspaceId !== failing);
    expect(healthy).toEqual(incidents.filter((i) => i.workspaceId !== failing).sort(queueKey("newest")).map((i) => i.id));
  });

  it(`gives a stream up after ${GIVE_UP_AFTER_FAILED_PAGES} failed pages in a row, and at once for a failure that will not pass`, async () => {
    const workspaces = [0, 1, 2].map(workspaceOf);
    const planted: Planted[] = [];
    for (let w = 0; w < 3; w++) for (let k = 0; k < 60; k++) planted.push({ workspace: w, source: 0, ageMs: (k * 10 + w) * 1000, severity: "Low" });
    const incidents = planted.map((p, n) => incidentOf(p, n, workspaces));
    const [, flaky, gone] = workspaces.map((w) => w.id);
    const { ctx } = fakeContext(incidents, (workspaceId) =>
      workspaceId === flaky ? new ApiError("UPSTREAM_ERROR", "SourceA failed (503).") : workspaceId === gone ? new ApiError("NOT_FOUND", "No such workspace at SourceA.") : null,
    );
    const pages = await pageToEnd(ctx, workspaces, query("newest", { sources: ["SourceA"] }));
    expect(pages[0]!.unavailable.sort()).toEqual([`${flaky}/SourceA`, `${gone}/SourceA gave up`].sort());
    expect(pages[1]!.unavailable).toEqual([`${flaky}/SourceA`]);
    expect(pages[2]!.unavailable).toEqual([`${flaky}/SourceA gave up`]);
    expect(pages.slice(3).every((p) => p.unavailable.length === 0)).toBe(true);
    expect(pages.flatMap((p) => p.ids)).toEqual(incidents.filter((i) => i.workspaceId === workspaces[0]!.id).sort(queueKey("newest")).map((i) => i.id));
  });

  it("past the page's budget answers what is certain and how many streams are left, and the next call goes on", async () => {
    const workspaces = Array.from({ length: 6 }, (_, i) => workspaceOf(i));
    const planted: Planted[] = [];
    for (let w = 0; w < 6; w++) for (let k = 0; k < 10; k++) planted.push({ workspace: w, source: 0, ageMs: (k * 10 + w) * 1000, severity: "High" });
    const incidents = planted.map((p, n) => incidentOf(p, n, workspaces));
    const { ctx } = fakeContext(incidents, () => null);
    const slow = ctx.sources.gateway;
    let budgetMs = 60;
    const { sourceLimits } = ctx.config;
    (ctx as { config: { crossWorkspaceBudgetMs: number } }).config = {
      get crossWorkspaceBudgetMs() {
        return budgetMs;
      },
      sourceLimits,
    } as never;
    (ctx as { sources: unknown }).sources = {
      isEnabledFor: () => true,
      gateway: (source: Source) => ({
        listIncidents: async (q: IncidentWindowQuery, signal?: AbortSignal) => {
          // Workspaces 3 to 5 answer after the budget.
          if (Number(q.workspaceId.slice(-1)) >= 3) await new Promise((r) => setTimeout(r, 150));
          return slow(source).listIncidents(q, signal);
        },
      }),
    };
    const first = await incidentQueuePage(ctx, workspaces, query("newest", { sources: ["SourceA"] }));
    // Three streams were still being read when the budget ran out: nothing is certain yet.
    expect(first.incidents).toEqual([]);
    expect(first.unreadStreams).toBe(3);
    expect(first.unavailable).toEqual([]);
    expect(first.nextPageToken).not.toBeNull();
    budgetMs = 5_000;
    const pages = await pageToEnd(ctx, workspaces, { ...query("newest", { sources: ["SourceA"] }), pageToken: first.nextPageToken! });
    expect(pages.flatMap((p) => p.ids)).toEqual([...incidents].sort(queueKey("newest")).map((i) => i.id));
  });
});
