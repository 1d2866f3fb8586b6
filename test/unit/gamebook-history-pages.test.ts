import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { PageTokens } from "../../shared/platform/http/page-token";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import type { GamebookRunStore, Stores } from "../../shared/platform/store/ports";
import { acrossWorkspacesHistory, ACROSS_PAGE_SIZE } from "../../shared/domain/gamebooks/run-history";
import { acrossHistoryQuery } from "../../shared/api/schemas/run-history-schemas";
import type { HistoryContext } from "../../shared/domain/gamebooks/history-reads";
import type { GamebookRunRecord } from "../../shared/model/gamebooks/gamebook-run";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import { gamebookRun } from "../contract/store-contract";

/*
 * Contract 4.2: the cross-workspace history's query is `workspaces, statuses, currentPage, query`,
 * with no limit on `currentPage`. At a provider's size (100 workspaces x 2,000 runs, histories of
 * different lengths in time) any page is answered without a token, the same runs as the tokens lead
 * to, at a number of store operations that does not grow with the page number.
 */

const NOW = Date.parse("2026-11-20T12:00:00.000Z");
const DAY = 86_400_000;

function workspaceOf(i: number): WorkspaceRecord {
  return { id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, name: `ws-${i}`, accountId: "acct-1" } as WorkspaceRecord;
}

/** A deterministic generator (mulberry32), so that the operation counts pinned below are the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `perWorkspace` runs in each workspace, over the last 1 to 90 days (each workspace its own span), every fourth Failed. */
function plantedRuns(workspaces: readonly WorkspaceRecord[], perWorkspace: number, at: (w: number, next: () => number) => number): GamebookRunRecord[] {
  const next = random(44);
  return workspaces.flatMap((workspace, w) =>
    Array.from({ length: perWorkspace }, (_, i) => {
      const creationDate = new Date(at(w, next)).toISOString();
      const run = gamebookRun(`run-${String(w).padStart(3, "0")}-${String(i).padStart(5, "0")}`, workspace.id, "SourceA", `inc-${w}-${i}`, 0);
      return { ...run, creationDate, modificationDate: creationDate, status: i % 4 === 0 ? "Failed" : "Succeeded" } as GamebookRunRecord;
    }),
  );
}

const newestFirst = (a: GamebookRunRecord, b: GamebookRunRecord) =>
  a.creationDate !== b.creationDate ? (a.creationDate < b.creationDate ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/** Store operations by name, counted on the run store. */
function counted(store: GamebookRunStore, counts: Map<string, number>, fail?: (op: string, workspaceId: string) => boolean): GamebookRunStore {
  return new Proxy(store, {
    get(target, name: string) {
      const op = Reflect.get(target, name) as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        counts.set(name, (counts.get(name) ?? 0) + 1);
        if (fail?.(name, args[0] as string)) return Promise.reject(new ApiError("UPSTREAM_ERROR", "The partition is unreachable."));
        return op.apply(target, args);
      };
    },
  });
}

async function storesWith(runs: readonly GamebookRunRecord[]): Promise<Stores> {
  const stores = createMemoryStores({ maxSettledGamebookRuns: runs.length + 1 });
  for (const run of runs) await stores.gamebookRuns.create(run, []);
  return stores;
}

function contextOf(stores: Stores, gamebookRuns: GamebookRunStore, pageTokens: PageTokens): HistoryContext {
  return {
    stores: { ...stores, gamebookRuns },
    config: { crossWorkspaceBudgetMs: 2_500 },
    pageTokens,
    principal: { serviceAccountId: "sa-1" },
  } as unknown as HistoryContext;
}

describe("cross-workspace gamebook history: any currentPage the totals allow, without a pageToken (docs/contract.md §4.2)", () => {
  const workspaces = Array.from({ length: 100 }, (_, i) => workspaceOf(i));
  let runs: GamebookRunRecord[];
  let stores: Stores;
  const pageTokens = new PageTokens(randomBytes(32));
  const counts = new Map<string, number>();
  const ctx = () => contextOf(stores, counted(stores.gamebookRuns, counts), pageTokens);
  const page = async (query: Record<string, string>) => {
    counts.clear();
    const started = performance.now();
    const answer = await acrossWorkspacesHistory(ctx(), workspaces, acrossHistoryQuery.parse(query));
    return { ...answer, ms: performance.now() - started, operations: Object.fromEntries([...counts].sort()) };
  };
  const idsOf = (list: readonly GamebookRunRecord[]) => list.map((r) => r.id);

  beforeAll(async () => {
    runs = plantedRuns(workspaces, 2_000, (w, next) => NOW - Math.floor(next() * (1 + ((w * 7) % 90)) * DAY));
    stores = await storesWith(runs);
    runs.sort(newestFirst);
  }, 120_000);

  it("answers pages past the twentieth, the middle and the last page by number alone, with the runs the order puts there", async () => {
    const pages = runs.length / ACROSS_PAGE_SIZE;
    for (const n of [22, 1_000, 2_017, pages - 1, pages]) {
      const { page: answer, unavailable } = await page({ currentPage: String(n) });
      expect(idsOf(answer.runs), `page ${n}`).toEqual(idsOf(runs.slice((n - 1) * ACROSS_PAGE_SIZE, n * ACROSS_PAGE_SIZE)));
      expect(answer.hasMore).toBe(n < pages);
      expect(unavailable).toEqual([]);
    }
    expect((await page({ currentPage: String(pages + 1) })).page).toMatchObject({ runs: [], hasMore: false });
  });

  it("a page reached by number is the page the tokens lead to, and its token leads on", async () => {
    const viaNumber = await page({ currentPage: "3000" });
    const next = await page({ currentPage: "3001", pageToken: viaNumber.pagination.continuationToken! });
    expect(idsOf(next.page.runs)).toEqual(idsOf(runs.slice(3000 * ACROSS_PAGE_SIZE, 3001 * ACROSS_PAGE_SIZE)));
    // A token far behind currentPage is a starting point: the rest is sought from it.
    const first = await page({});
    const far = await page({ currentPage: "3001", pageToken: first.pagination.continuationToken! });
    expect(idsOf(far.page.runs)).toEqual(idsOf(next.page.runs));
  });

  it("filters count as they list: a deep page of one status", async () => {
    const failed = runs.filter((r) => r.status === "Failed");
    const answer = await page({ currentPage: "777", statuses: "Failed" });
    expect(idsOf(answer.page.runs)).toEqual(idsOf(failed.slice(776 * ACROSS_PAGE_SIZE, 777 * ACROSS_PAGE_SIZE)));
    // The totals, and counts in about half the workspaces for a second guess.
    expect(answer.operations).toEqual({ list: 101, span: 258 });
  });

  it("100 workspaces x 2,000 runs: the store operations of a page by token, and of deep pages without one", async () => {
    const first = await page({});
    const byToken = await page({ currentPage: "2", pageToken: first.pagination.continuationToken! });
    const middle = await page({ currentPage: "2000" });
    const last = await page({ currentPage: "4000" });
    const figures = { first: first.operations, byToken: byToken.operations, middle: middle.operations, last: last.operations };
    console.log(`history at 100 x 2,000: ${JSON.stringify(figures)}; ms: first ${first.ms.toFixed(0)}, by token ${byToken.ms.toFixed(0)}, page 2000 ${middle.ms.toFixed(0)}, page 4000 ${last.ms.toFixed(0)}`);
    // A page by token: one keyset query per workspace and a few refills. A deep page by number adds
    // the workspaces' totals (one count each) and one guess of where the page starts, counted in the
    // workspaces that have runs around it: two counts per workspace, at any depth.
    expect(figures).toEqual({
      first: { list: 104 },
      byToken: { list: 102 },
      middle: { list: 107, span: 200 },
      last: { list: 108, span: 200 },
    });
  });
});

describe("cross-workspace gamebook history: deep pages in awkward histories", () => {
  const workspaces = Array.from({ length: 3 }, (_, i) => workspaceOf(i));
  const pageTokens = new PageTokens(randomBytes(32));

  it("runs sharing one millisecond, more than the seek can tell apart, are passed by merging", async () => {
    // 600 runs in each workspace, in six instants: many pages inside one millisecond.
    const runs = plantedRuns(workspaces, 600, (_w, next) => NOW - Math.floor(next() * 6));
    const stores = await storesWith(runs);
    runs.sort(newestFirst);
    for (const n of [5, 17, 36]) {
      const { page } = await acrossWorkspacesHistory(contextOf(stores, stores.gamebookRuns, pageTokens), workspaces, acrossHistoryQuery.parse({ currentPage: String(n) }));
      expect(page.runs.map((r) => r.id), `page ${n}`).toEqual(runs.slice((n - 1) * ACROSS_PAGE_SIZE, n * ACROSS_PAGE_SIZE).map((r) => r.id));
    }
  });

  it("a workspace that fails while the page is sought is left out and reported once: the page is the others' page", async () => {
    const runs = plantedRuns(workspaces, 800, (w, next) => NOW - Math.floor(next() * (w + 1) * DAY));
    const stores = await storesWith(runs);
    const others = runs.filter((r) => r.workspaceId !== workspaces[1]!.id).sort(newestFirst);
    let spans = 0;
    const failing = counted(stores.gamebookRuns, new Map(), (op, workspaceId) => op === "span" && workspaceId === workspaces[1]!.id && ++spans === 2);
    const { page, unavailable } = await acrossWorkspacesHistory(contextOf(stores, failing, pageTokens), workspaces, acrossHistoryQuery.parse({ currentPage: "20" }));
    expect(page.runs.map((r) => r.id)).toEqual(others.slice(19 * ACROSS_PAGE_SIZE, 20 * ACROSS_PAGE_SIZE).map((r) => r.id));
    expect(unavailable.map((u) => [u.workspaceId, u.code])).toEqual([[workspaces[1]!.id, "UPSTREAM_ERROR"]]);
  });
});
