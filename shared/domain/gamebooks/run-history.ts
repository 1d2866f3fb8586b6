import { z } from "zod";
import { ApiError, isApiError } from "../../platform/errors/api-error";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, issuePageToken, readPageToken, type PagingContext } from "../../platform/http/paging";
import type { Pagination } from "../../platform/http/route";
import type { Uses } from "../../platform/operation-context";
import { gamebookRunStatuses, type GamebookRunRecord } from "./gamebook-run";
import type { GamebookRunCursor, GamebookRunFilter } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../organizations/workspace";
import { searchTerm } from "./run-record";
import { gamebookRunExample } from "../examples/gamebook-examples";
import { gamebookRunView } from "./gamebook-views";
import { settleWithin, type Settled } from "../../platform/concurrency/settle-within";
import { isTransient, unavailableOf, type Unavailable } from "../../platform/http/partial-results";

/**
 * A run history's reader: a service account (the contract's history routes) or a person (the
 * portal's), whose page tokens are bound to them.
 */
export type HistoryContext = Uses<"stores" | "config"> & PagingContext;

const cursorSchema = z.strictObject({ at: z.string().min(1), id: z.string().min(1) });
const acrossCursorSchema = z.strictObject({ page: z.int().min(2), at: z.string().min(1), id: z.string().min(1) });

const text = z.string().trim().min(1).max(256);

/** `GET /gamebooks/history` (docs/contract.md §4.1): `query`, `pageToken`, and the usual `pageSize`. */
export const historyQuery = z.strictObject({
  query: text.optional().describe("Case-insensitive text in the run's title, the incident's title or the submitter's name."),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).describe(`Runs per page, 1 to ${MAX_PAGE_SIZE}.`),
  pageToken: z.string().min(1).max(4096).optional().describe("The `pagination.continuationToken` of the previous page, unmodified."),
});

/** A workspace's runs, newest first, one keyset page: its cost is its size, however long the history. */
export async function workspaceHistory(
  ctx: HistoryContext,
  workspace: WorkspaceRecord,
  query: z.output<typeof historyQuery>,
): Promise<{ runs: GamebookRunRecord[]; pagination: Pagination }> {
  const term = query.query === undefined ? undefined : searchTerm(query.query);
  const listing = `gamebook-history\n${workspace.id}\n${term ?? ""}`;
  const after = query.pageToken === undefined ? undefined : readPageToken(ctx, query.pageToken, listing, cursorSchema, "pageToken");
  const page = await ctx.stores.gamebookRuns.list(
    workspace.id,
    { text: term },
    query.pageSize,
    after && { creationDate: after.at, id: after.id },
  );
  return {
    runs: page.items,
    pagination: page.next
      ? { hasMore: true, continuationToken: issuePageToken(ctx, listing, { at: page.next.creationDate, id: page.next.id }) }
      : { hasMore: false },
  };
}

/** Page size of the cross-workspace history (server-controlled, as docs/contract.md §8 has it for incidents). */
export const ACROSS_PAGE_SIZE = 50;
/** Pages a request may skip to reach `currentPage` (from the first page, or from its token's). */
export const MAX_PAGES_SKIPPED = 20;
/** Workspace queries in flight at once for one request. */
const QUERY_CONCURRENCY = 16;

/** Repeated (`workspaces=a&workspaces=b`) or comma-separated (`workspaces=a,b`), or both. */
function listParameter<T extends z.ZodType<unknown, string>>(item: T, max: number) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== ""))
    .pipe(z.array(item).max(max));
}

/** `GET /gamebooks/across-workspaces/history` (docs/contract.md §4.2). */
export const acrossHistoryQuery = z.strictObject({
  workspaces: listParameter(z.guid(), 1000)
    .optional()
    .describe("Workspace GUIDs, repeated or comma-separated; absent: every workspace mapped to the credential. Workspaces not mapped to it are left out."),
  statuses: listParameter(z.enum(gamebookRunStatuses), gamebookRunStatuses.length)
    .optional()
    .describe(`Run statuses, repeated or comma-separated: ${gamebookRunStatuses.join(", ")}; absent: all.`),
  currentPage: z.coerce.number().int().min(1).max(1_000_000).default(1).describe("The page, 1-based."),
  query: text.optional().describe("Case-insensitive text in the run's title, the incident's title or the submitter's name."),
  pageToken: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      `The \`pagination.continuationToken\` of page N, sent with \`currentPage\` N+1 (or later): the page is then read from where page N ended, at a cost that does not grow with the page number. Without it, a page is reached by reading the pages before it; at most ${MAX_PAGES_SKIPPED} pages are skipped that way.`,
    ),
});

/** A page of the cross-workspace history, as both the contract's route and the portal's answer it. */
export const acrossHistoryView = z
  .object({
    runs: z.array(gamebookRunView).describe("The page's runs, newest first across the workspaces."),
    currentPage: z.int().describe("The page returned, 1-based."),
    pageSize: z.int().describe(`Runs per page (server-controlled: ${ACROSS_PAGE_SIZE}).`),
    hasMore: z.boolean().describe("True when a next page exists."),
  })
  .meta({ examples: [{ runs: [gamebookRunExample], currentPage: 1, pageSize: ACROSS_PAGE_SIZE, hasMore: true }] });

export interface AcrossHistoryPage {
  runs: GamebookRunRecord[];
  currentPage: number;
  pageSize: number;
  hasMore: boolean;
}

/**
 * The runs of these workspaces (those mapped to the caller, or those a person sees, among the ones
 * asked for), newest first across them,
 * by page number. Each page is a merge of keyset pages of the workspaces from one position in the
 * global order (creationDate, id): each workspace is read from there in small batches that grow
 * only for a workspace that keeps supplying the page, so a page reads about its own size plus a
 * few runs per workspace, whatever the total. A page's token records where the next page starts;
 * without one, the pages before `currentPage` are read to find its start (at most
 * MAX_PAGES_SKIPPED of them). No total is counted: on Cosmos a count reads every matching run.
 *
 * A workspace whose runs cannot be read (the store throttled, unreachable or slower than the
 * request's budget) is left out of the rest of the request and reported in `unavailable`: the page
 * is then the one the other workspaces make, and reading it again tries the reported ones again.
 */
export async function acrossWorkspacesHistory(
  ctx: HistoryContext,
  workspaces: readonly WorkspaceRecord[],
  query: z.output<typeof acrossHistoryQuery>,
): Promise<{ page: AcrossHistoryPage; pagination: Pagination; unavailable: Unavailable[] }> {
  const statuses = query.statuses === undefined ? undefined : [...new Set(query.statuses)].sort();
  const term = query.query === undefined ? undefined : searchTerm(query.query);
  const filter: GamebookRunFilter = { text: term, statuses };
  // Bound to the set of workspaces, not their display order: a renamed workspace keeps the pages valid.
  const listing = `gamebook-history-across\n${workspaces.map((w) => w.id).sort().join(",")}\n${(statuses ?? []).join(",")}\n${term ?? ""}`;

  let from: GamebookRunCursor | undefined;
  let fromPage = 1;
  if (query.pageToken !== undefined) {
    const token = readPageToken(ctx, query.pageToken, listing, acrossCursorSchema, "pageToken");
    if (token.page > query.currentPage) {
      throw new ApiError("VALIDATION_ERROR", `This pageToken starts page ${token.page}; send it with currentPage ${token.page} or later, or send currentPage ${query.currentPage} without it.`, {
        target: "pageToken",
        errors: { pageToken: [`Starts page ${token.page}, after currentPage ${query.currentPage}.`] },
      });
    }
    from = { creationDate: token.at, id: token.id };
    fromPage = token.page;
  }
  const skip = query.currentPage - fromPage;
  if (skip > MAX_PAGES_SKIPPED) {
    throw new ApiError(
      "VALIDATION_ERROR",
      `Page ${query.currentPage} is more than ${MAX_PAGES_SKIPPED} pages past ${query.pageToken === undefined ? "the first" : `the token's page ${fromPage}`}: follow pagination.continuationToken page by page (send it as pageToken), or narrow the query.`,
      { target: "currentPage", errors: { currentPage: [`At most ${MAX_PAGES_SKIPPED} pages past the pageToken's page (the first without one).`] } },
    );
  }

  const reads = new HistoryReads(ctx, filter);
  const empty = { page: { runs: [], currentPage: query.currentPage, pageSize: ACROSS_PAGE_SIZE, hasMore: false }, pagination: { hasMore: false } };
  if (workspaces.length === 0) return { ...empty, unavailable: [] };
  if (skip > 0) {
    const skipped = await mergeNewestFirst(reads, workspaces, from, skip * ACROSS_PAGE_SIZE);
    if (!skipped.next) return { ...empty, unavailable: reads.unavailable };
    from = skipped.next;
  }
  const merged = await mergeNewestFirst(reads, workspaces, from, ACROSS_PAGE_SIZE);
  const pagination: Pagination = merged.next
    ? { hasMore: true, continuationToken: issuePageToken(ctx, listing, { page: query.currentPage + 1, at: merged.next.creationDate, id: merged.next.id }) }
    : { hasMore: false };
  return {
    page: { runs: merged.items, currentPage: query.currentPage, pageSize: ACROSS_PAGE_SIZE, hasMore: merged.next !== undefined },
    pagination,
    unavailable: reads.unavailable,
  };
}

interface Stream {
  workspace: WorkspaceRecord;
  buffer: GamebookRunRecord[];
  /** Where the workspace's next batch starts; undefined once it has no more. */
  next: GamebookRunCursor | undefined;
  batch: number;
}

/**
 * The store reads of one request: every batch of every workspace answers within the request's
 * budget (`CROSS_WORKSPACE_BUDGET_MS`, from the request's first read). A workspace whose read fails
 * with an upstream's problem (`UPSTREAM_ERROR`, `TIMEOUT`, `RATE_LIMITED`), or does not answer within
 * the budget, is out for the rest of the request and reported once; any other failure is the
 * request's own and fails it.
 */
class HistoryReads {
  readonly unavailable: Unavailable[] = [];
  private readonly out = new Set<string>();
  private readonly budgetMs: number;
  private readonly deadline: number;

  constructor(
    private readonly ctx: HistoryContext,
    private readonly filter: GamebookRunFilter,
  ) {
    this.budgetMs = ctx.config.crossWorkspaceBudgetMs;
    this.deadline = Date.now() + this.budgetMs;
  }

  /** Whether the workspace is still read in this request. */
  isIn(workspace: WorkspaceRecord): boolean {
    return !this.out.has(workspace.id);
  }

  /**
   * Reads each stream's next batch, at most QUERY_CONCURRENCY at once, into its buffer; the streams
   * whose read failed are left as they were, and their workspaces are out. Whether every stream was read.
   */
  async fill(streams: readonly Stream[]): Promise<boolean> {
    const store = this.ctx.stores.gamebookRuns;
    const remainingMs = Math.max(0, this.deadline - Date.now());
    const pages = await settleWithin(streams, QUERY_CONCURRENCY, { totalMs: remainingMs }, (stream) => store.list(stream.workspace.id, this.filter, stream.batch, stream.next), this.ctx.signal);
    let all = true;
    streams.forEach((stream, i) => {
      const page = pages[i]!;
      if (page.status === "fulfilled") {
        stream.buffer.push(...page.value.items);
        stream.next = page.value.next;
        return;
      }
      all = false;
      this.out.add(stream.workspace.id);
      this.unavailable.push(unavailableOf(stream.workspace, this.failureOf(stream, page)));
    });
    return all;
  }

  private failureOf(stream: Stream, page: Exclude<Settled<unknown>, { status: "fulfilled" }>): ApiError {
    if (page.status !== "rejected") {
      return new ApiError("TIMEOUT", `The runs of workspace ${stream.workspace.id} were not read within this request's budget of ${this.budgetMs} ms.`);
    }
    if (!isApiError(page.reason) || !isTransient(page.reason)) throw page.reason;
    return page.reason;
  }
}

/**
 * The first `count` runs after `from` in the global newest-first order of the workspaces still read,
 * and the cursor after them when more exist. A workspace's buffer is refilled only when it runs dry
 * while its next run could still be the newest left, with a batch twice the last, so a page served
 * by one busy workspace costs a few growing queries and one served by many costs one small query
 * each. A workspace whose read fails stops contributing there: the runs it gave stay, and the merge
 * goes on with the others.
 */
async function mergeNewestFirst(
  reads: HistoryReads,
  workspaces: readonly WorkspaceRecord[],
  from: GamebookRunCursor | undefined,
  count: number,
): Promise<{ items: GamebookRunRecord[]; next?: GamebookRunCursor }> {
  const reading = workspaces.filter((w) => reads.isIn(w));
  const firstBatch = Math.min(count + 1, Math.max(5, Math.ceil((2 * (count + 1)) / Math.max(1, reading.length))));
  const streams: Stream[] = reading.map((workspace) => ({ workspace, buffer: [], next: from, batch: firstBatch }));
  const grow = (stream: Stream) => {
    stream.batch = Math.min(count + 1, stream.batch * 2);
  };
  await reads.fill(streams);
  streams.forEach(grow);
  let live = streams.filter((stream) => reads.isIn(stream.workspace));

  const items: GamebookRunRecord[] = [];
  // One more than asked, to know whether another page exists.
  while (items.length <= count) {
    let newest: Stream | undefined;
    for (const stream of live) {
      const head = stream.buffer[0];
      if (head && (!newest || newerThan(head, newest.buffer[0]!))) newest = stream;
    }
    if (!newest) break;
    items.push(newest.buffer.shift()!);
    if (newest.buffer.length === 0 && newest.next !== undefined) {
      if (await reads.fill([newest])) grow(newest);
      else live = live.filter((stream) => stream !== newest);
    }
  }
  const page = items.slice(0, count);
  const last = page.at(-1);
  return { items: page, next: items.length > count && last ? { creationDate: last.creationDate, id: last.id } : undefined };
}

/** The global order: creationDate, then id, descending (as every store lists them). */
function newerThan(a: GamebookRunRecord, b: GamebookRunRecord): boolean {
  return a.creationDate !== b.creationDate ? a.creationDate > b.creationDate : a.id > b.id;
}
