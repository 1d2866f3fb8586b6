import { z } from "zod";
import { ApiError } from "../../platform/errors/api-error";
import { issuePageToken, readPageToken } from "../../platform/http/paging";
import type { Pagination } from "../../platform/http/route";
import type { GamebookRunRecord, GamebookRunStatus } from "../../model/gamebooks/gamebook-run";
import type { GamebookRunCursor, GamebookRunFilter } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { searchTerm } from "./run-record";
import type { Unavailable } from "../../platform/http/partial-results";
import { HistoryReads, type HistoryContext } from "./history-reads";
import { mergeNewestFirst } from "./history-merge";
import { seekByCounts } from "./history-seek";

const cursorSchema = z.strictObject({ at: z.string().min(1), id: z.string().min(1) });
const acrossCursorSchema = z.strictObject({ page: z.int().min(2), at: z.string().min(1), id: z.string().min(1) });

/** A workspace's history query (docs/contract.md §4.1), as the API parses it. */
export interface HistoryQuery {
  /** Case-insensitive text in the run's title, the incident's title or the submitter's name. */
  query?: string | undefined;
  pageSize: number;
  pageToken?: string | undefined;
}

/** The cross-workspace history query (docs/contract.md §4.2), as the API parses it. */
export interface AcrossHistoryQuery {
  /** Absent: every workspace the caller sees. */
  workspaces?: string[] | undefined;
  /** Absent: every status. */
  statuses?: GamebookRunStatus[] | undefined;
  /** 1-based. */
  currentPage: number;
  query?: string | undefined;
  /** The continuation token of an earlier page. */
  pageToken?: string | undefined;
}

/** A workspace's runs, newest first, one keyset page: its cost is its size, however long the history. */
export async function workspaceHistory(
  ctx: HistoryContext,
  workspace: WorkspaceRecord,
  query: HistoryQuery,
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
/**
 * Runs a page may be reached past by merging (reading them); a deeper page is sought by counting
 * (`seekByCounts`) until at most this many remain.
 */
const MERGE_AT_MOST = 2 * ACROSS_PAGE_SIZE;

export interface AcrossHistoryPage {
  runs: GamebookRunRecord[];
  currentPage: number;
  pageSize: number;
  hasMore: boolean;
}

/**
 * The runs of these workspaces (those mapped to the caller, or those a person sees, among the ones
 * asked for), newest first across them, by page number. A page is a merge of keyset pages of the
 * workspaces from one position in the global order (creationDate, id) (`mergeNewestFirst`), so it
 * reads about its own size plus a few runs per workspace, whatever the total. A page's token records
 * where the next page starts. Without one (or with the token of a page far before `currentPage`),
 * the start of a deep page is found by counting the runs before it in each workspace
 * (`seekByCounts`), not by reading them; the last stretch, at most MERGE_AT_MOST runs, is merged.
 * No total is returned: it would cost every request the counts that only a deep page needs.
 *
 * A workspace whose runs cannot be read (the store throttled, unreachable or slower than the
 * request's budget) is left out of the rest of the request and reported in `unavailable`: the page
 * is then the one the other workspaces make, and reading it again tries the reported ones again.
 */
export async function acrossWorkspacesHistory(
  ctx: HistoryContext,
  workspaces: readonly WorkspaceRecord[],
  query: AcrossHistoryQuery,
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

  const reads = new HistoryReads(ctx, filter);
  const empty = { page: { runs: [], currentPage: query.currentPage, pageSize: ACROSS_PAGE_SIZE, hasMore: false }, pagination: { hasMore: false } };
  if (workspaces.length === 0) return { ...empty, unavailable: [] };
  let start = from;
  let skip = (query.currentPage - fromPage) * ACROSS_PAGE_SIZE;
  if (skip > MERGE_AT_MOST) {
    const sought = await seekByCounts(reads, workspaces, from, skip, MERGE_AT_MOST);
    if (!sought) return { ...empty, unavailable: reads.unavailable };
    ({ start, skip } = sought);
  }
  const merged = await mergeNewestFirst(reads, workspaces, start, skip + ACROSS_PAGE_SIZE);
  const runs = merged.items.slice(skip);
  const pagination: Pagination = merged.next
    ? { hasMore: true, continuationToken: issuePageToken(ctx, listing, { page: query.currentPage + 1, at: merged.next.creationDate, id: merged.next.id }) }
    : { hasMore: false };
  return {
    page: { runs, currentPage: query.currentPage, pageSize: ACROSS_PAGE_SIZE, hasMore: merged.next !== undefined },
    pagination,
    unavailable: reads.unavailable,
  };
}
