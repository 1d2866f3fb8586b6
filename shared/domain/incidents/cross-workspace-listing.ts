import { createHash } from "node:crypto";
import { z } from "zod";
import { ApiError, INVALID_PAGE_TOKEN_MESSAGE, invalidPageToken, isApiError } from "../../platform/errors/api-error";
import { issuePageToken, readPageToken, type PagingContext } from "../../platform/http/paging";
import type { Uses } from "../operation-context";
import type { IncidentFilters, IncidentPage, IncidentWindowQuery } from "../../systems/vendors/port";
import type { PublicStatus, Severity, VendorIncident } from "../../model/incidents/incident";
import { lastModifiedSources, parseSource, sources, type Source } from "../../model/sources";
import type { IncidentStateRecord } from "../../model/incidents/incident-state-record";
import type { Versioned } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { initialState, stateIdOf } from "./incident-state";
import { toIncidentSummary, type IncidentSummaryView } from "./incident-view";
import { mapLimited } from "../../platform/concurrency/map-limited";
import { settleWithin, type Settled } from "../../platform/concurrency/settle-within";
import { isTransient, unavailableOf, type Unavailable } from "../../platform/http/partial-results";

/** Incidents per call the listing aims at, taken from the streams (workspace × source) still paging. */
export const LISTING_PAGE_TARGET = 200;
const MIN_PER_STREAM = 5;
const MAX_PER_STREAM = 50;
/** `filterByLastModified`: most incidents one workspace contributes to one call ("several hundred"). */
export const LAST_MODIFIED_CAP = 500;
/** Most workspaces a listing pages at once (`workspacePageTokens` entries): the largest provider served. */
export const MAX_LISTED_WORKSPACES = 10_000;
/**
 * The listing's body limit, measured (docs/scaling.md, Cross-workspace paging). At 10,000 workspaces x 7
 * sources the contract's shape alone (keys and workspace ids, empty tokens) is 1.55 MiB, so 1 MiB
 * cannot be had; a first answer sent back is 1.6 MiB (an unstarted stream costs one character). The
 * largest body a listing can ask back is every stream started, each token carrying its vendor's
 * cursor: 11.05 MiB with the simulated vendors' cursors (~170 characters a token), measured by
 * test/api/incidents-across-workspaces.test.ts. The limit is that with a little room: a body any
 * larger is not one this service asked for.
 */
export const ACROSS_WORKSPACES_MAX_BODY_BYTES = 12 * 1024 * 1024;
/**
 * Calls in flight at once for one listing call where it reads every workspace (last-modified mode's
 * vendor calls) and for the store reads of a page's workspaces. A paging call's few streams are
 * asked all at once instead (`listAcrossWorkspaces`).
 */
const VENDOR_CONCURRENCY = 16;
/**
 * Pages in a row a stream may fail before the listing gives it up: its token is dropped, so the
 * listing can end, and the report says so. Three: a blip passes on the next try, and a failing
 * tenant is retried across the listing (its token goes to the back) without holding it open forever.
 */
export const GIVE_UP_AFTER_FAILED_PAGES = 3;

export const timeFilterTypes = ["ThreeHours", "SixHours", "TwelveHours", "TwentyFourHours", "FortyEightHours", "Custom"] as const;
const hoursOf: Record<Exclude<(typeof timeFilterTypes)[number], "Custom">, number> = {
  ThreeHours: 3,
  SixHours: 6,
  TwelveHours: 12,
  TwentyFourHours: 24,
  FortyEightHours: 48,
};

/** A listing's time window: one of the fixed spans back from its first call, or Custom with both ends. */
export interface TimeFilterSelection {
  type: (typeof timeFilterTypes)[number];
  customStartUtc?: string | undefined;
  customEndUtc?: string | undefined;
}

/** The filters of a listing's query (docs/contract.md §4.2), parsed: the same in the contract's listing and in the portal's queue. */
export interface IncidentListingFilters {
  severities: Severity[];
  statuses: PublicStatus[];
  /** Empty: every source (with `filterByLastModified`, SourceA and SourceB). */
  sources: Source[];
  /** Absent: no time bound. */
  timeFilterSelection?: TimeFilterSelection | undefined;
  /** Case-insensitive text in the title, the number or an entity name. */
  query?: string | undefined;
  assigneeEmails: string[];
  includeUnassigned: boolean;
}

/** The listing's query, parsed: the filters, and the tokens of the previous page. */
export interface AcrossWorkspacesBody extends IncidentListingFilters {
  isFirstCall: boolean;
  workspacePageTokens: { workspaceId: string; sourceTokens: Record<string, string> }[];
  filterByLastModified: boolean;
}

/**
 * One incident of a page: its row, and the etag of the service's state of it (null while it holds
 * none). With the row's `lastModificationTime` that is the incident's version (`incidentEtag`), which
 * the portal's answer carries for a change made from the list to send back; the contract's does not.
 */
export interface ListedIncident {
  summary: IncidentSummaryView;
  stateEtag: string | null;
}

export interface AcrossWorkspacesResult {
  incidents: ListedIncident[];
  sourcePageTokens: { workspaceId: string; sourceTokens: Partial<Record<Source, string>> }[];
  moreIncidentsAvailable: boolean;
  /** The streams this page could not read (`meta.unavailable`). */
  unavailable: Unavailable[];
}

/**
 * The token of a stream not yet started: one character. At 10,000 workspaces a first page hands
 * back 70,000 streams, nearly all unstarted, and a signed token each (~40 characters) would double
 * the body every later call must send. What an unstarted stream needs, the first call's time, is
 * the same for all of them, so one of them carries it, signed (the anchor, below), and the others
 * carry this mark.
 */
const UNSTARTED = "~";

/**
 * What a stream token carries, as compact as it can be: the time of the listing's first call (epoch
 * seconds, base 36; the window is derived from it and from the query), once the stream has started
 * the vendor adapter's cursor, and after a failed page the pages in a row it has failed (with "" for
 * the cursor of a stream that failed its first page). Which workspace and source it pages is where
 * the token sits in the request; that, the caller and the query are signed into the token, not
 * copied into it.
 */
const firstCall = z.string().regex(/^[0-9a-z]{1,9}$/);
const streamCursor = z.union([
  z.tuple([firstCall]),
  z.tuple([firstCall, z.string().min(1)]),
  z.tuple([firstCall, z.string(), z.int().min(1).max(GIVE_UP_AFTER_FAILED_PAGES - 1)]),
]);

interface Stream {
  workspace: WorkspaceRecord;
  source: Source;
  /** The vendor adapter's cursor; null before the stream's first page. */
  cursor: string | null;
  /** The first call's time, epoch seconds: the listing's window is fixed by it. */
  firstCallAt: number;
  /** Pages in a row on which the stream failed. */
  failedPages: number;
}

/** A stream the previous response left open, with its token as sent: verified only if it is served now. */
interface WaitingStream {
  workspace: WorkspaceRecord;
  source: Source;
  token: string;
  target: string;
}

/** What the listing runs with: the services it reads, and the caller its page tokens are signed to. */
export type ListingContext = Uses<"stores" | "sources" | "breakers" | "config" | "now"> & PagingContext;

/**
 * One page of the incidents of `workspaces` (docs/contract.md §4.2): those the caller may see, in one order
 * everywhere (by name, then id). A service account's are the workspaces mapped to it; a person's,
 * those of their organization they may act on. A token names its workspace, so one sent back for a
 * workspace no longer among them is left out, as a lost role is.
 */
export async function listAcrossWorkspaces(ctx: ListingContext, workspaces: WorkspaceRecord[], body: AcrossWorkspacesBody): Promise<AcrossWorkspacesResult> {
  const chosenSources = body.sources.length > 0 ? [...new Set(body.sources)] : body.filterByLastModified ? lastModifiedSources : sources;
  const filters = filtersOf(body);
  const firstCallAt = Math.floor(ctx.now().getTime() / 1000);
  if (body.filterByLastModified) {
    // Last-modified mode issues no tokens, so any token sent back is not one of ours (rule 5).
    if (body.workspacePageTokens.length > 0) throw invalidTokens("workspacePageTokens[0]");
    return lastModifiedListing(ctx, workspaces, chosenSources, filters, windowOf(body, firstCallAt));
  }

  const binding = bindingOf(body);
  // A source switched off for a workspace (or with no system behind it) leaves that workspace out, as a missing role does.
  const serves = (workspace: WorkspaceRecord, source: Source) => ctx.sources.isEnabledFor(workspace, source);
  const open = body.isFirstCall
    ? workspaces.flatMap((workspace) => chosenSources.filter((source) => serves(workspace, source)).map((source): Stream => ({ workspace, source, cursor: null, firstCallAt, failedPages: 0 })))
    : openStreams(ctx, body, workspaces, chosenSources, binding).filter((stream) => serves(stream.workspace, stream.source));

  // A page holds about LISTING_PAGE_TARGET incidents: up to that many streams advance by a few each.
  // Only their tokens are read and signed again; the others are handed back untouched, moved to the
  // front so the next call serves them first. A call's work follows its page, not what waits.
  const perStream = Math.min(MAX_PER_STREAM, Math.max(MIN_PER_STREAM, Math.floor(LISTING_PAGE_TARGET / Math.max(1, open.length))));
  const servedCount = Math.ceil(LISTING_PAGE_TARGET / perStream);
  const served = open.slice(0, servedCount).map((s) => ("token" in s ? readStream(ctx, s, binding) : s));
  const waiting = open.slice(servedCount);
  const budgetMs = ctx.config.crossWorkspaceBudgetMs;
  // No page waits on a slow vendor beyond the budget: what has not answered by then is carried over.
  // The served streams (at most LISTING_PAGE_TARGET / MIN_PER_STREAM, one vendor call each) are asked
  // at once, so a page waits one vendor latency, not one per round; what each vendor takes at once is
  // its limiter's to bound (the source's places), as in the queue.
  const pages = await settleWithin(served, Math.max(1, served.length), { totalMs: budgetMs }, (stream, signal) =>
    pageOf(ctx, stream, budgetMs,
      {
        workspaceId: stream.workspace.id,
        field: "createdAt",
        ...windowOf(body, stream.firstCallAt),
        limit: perStream,
        cursor: stream.cursor ?? undefined,
        filters,
      },
      signal,
    ),
    ctx.signal,
  );

  const unavailable: Unavailable[] = [];
  const tokens = new Map<string, Partial<Record<Source, string>>>();
  const put = (workspaceId: string, source: Source, token: string) => {
    const entry = tokens.get(workspaceId) ?? {};
    entry[source] = token;
    tokens.set(workspaceId, entry);
  };
  const issue = (stream: Stream, adapterCursor: string | null, failedPages = 0) => {
    if (adapterCursor === null && failedPages === 0) return put(stream.workspace.id, stream.source, UNSTARTED);
    const at = stream.firstCallAt.toString(36);
    const cursor = failedPages > 0 ? [at, adapterCursor ?? "", failedPages] : adapterCursor === null ? [at] : [at, adapterCursor];
    put(stream.workspace.id, stream.source, issuePageToken(ctx, streamListing(binding, stream.workspace.id, stream.source), cursor));
  };
  for (const stream of waiting) {
    if ("token" in stream) put(stream.workspace.id, stream.source, stream.token);
    else issue(stream, null);
    // A stream waiting its turn whose breaker has not closed since it failed is named too, so every
    // page shows what is failing, not only what it served.
    const failing = ctx.breakers.failing({ system: stream.source, workspaceId: stream.workspace.id });
    if (failing) unavailable.push(unavailableOf(stream.workspace, failing, { source: stream.source }));
  }
  // The service's state of the page's incidents: one read per workspace on the page (the states of a
  // workspace share its partition), not one per stream, and the workspaces' reads in parallel.
  const onPage = new Map<string, { workspace: WorkspaceRecord; items: VendorIncident[] }>();
  served.forEach((stream, i) => {
    const page = pages[i]!;
    if (page.status !== "fulfilled") return;
    const entry = onPage.get(stream.workspace.id) ?? { workspace: stream.workspace, items: [] };
    entry.items.push(...page.value.items);
    onPage.set(stream.workspace.id, entry);
  });
  const states = new Map(
    await mapLimited([...onPage.values()], VENDOR_CONCURRENCY, async ({ workspace, items }) => [workspace.id, await statesOf(ctx, workspace, items)] as const),
  );
  const now = ctx.now();
  const incidents: ListedIncident[] = [];
  const failed: (() => void)[] = [];
  for (let i = 0; i < served.length; i++) {
    const stream = served[i]!;
    const page = pages[i]!;
    if (page.status === "fulfilled") {
      incidents.push(...summariesOf(stream.workspace, page.value.items, states.get(stream.workspace.id)!, now));
      // A finished stream drops out of the tokens (rule 4).
      if (page.value.cursor !== undefined) issue(stream, page.value.cursor);
      continue;
    }
    if (page.status === "unstarted") {
      issue(stream, stream.cursor, stream.failedPages);
      continue;
    }
    const error = failureOf(stream, page, budgetMs);
    const failedPages = stream.failedPages + 1;
    const gaveUp = !isTransient(error) || failedPages >= GIVE_UP_AFTER_FAILED_PAGES;
    unavailable.push(unavailableOf(stream.workspace, error, { source: stream.source, gaveUp, failedPages }));
    // A failed stream keeps its place in the listing at the back of the tokens, to be tried again
    // after the others; entries are never invented for it (rule 4).
    if (!gaveUp) failed.push(() => issue(stream, stream.cursor, failedPages));
  }
  for (const keep of failed) keep();
  const sourcePageTokens = [...tokens].map(([workspaceId, sourceTokens]) => ({ workspaceId, sourceTokens }));
  anchorUnstarted(ctx, binding, sourcePageTokens, firstCallAtOf(open, firstCallAt));
  return {
    incidents,
    sourcePageTokens,
    moreIncidentsAvailable: tokens.size > 0,
    unavailable,
  };
}

/** The vendor filters of a listing's query. */
export function filtersOf(body: Omit<IncidentListingFilters, "sources" | "timeFilterSelection">): IncidentFilters {
  return {
    severities: body.severities.length > 0 ? body.severities : undefined,
    statuses: body.statuses.length > 0 ? body.statuses : undefined,
    query: body.query,
    assigneeEmails: body.assigneeEmails.length > 0 ? body.assigneeEmails : undefined,
    includeUnassigned: body.includeUnassigned || undefined,
  };
}

/** Why a served stream gave no page: the vendor's failure, or no answer within the page's budget. */
export function failureOf(stream: { workspace: WorkspaceRecord; source: Source }, page: Settled<IncidentPage>, budgetMs: number): ApiError {
  if (page.status === "rejected") {
    // Anything but a vendor's or a breaker's answer is a fault of the service itself: not the stream's to report.
    if (!isApiError(page.reason)) throw page.reason;
    return page.reason;
  }
  return new ApiError("TIMEOUT", `${stream.source} did not answer for workspace ${stream.workspace.id} within the page's ${budgetMs} ms; the next page tries it again.`);
}

/**
 * Last-modified mode: each workspace's whole window in one call, ordered by lastModificationTime
 * descending, up to the cap per workspace; past the cap, `moreIncidentsAvailable` says to narrow the
 * window (rule 3). There is nothing to continue, so no tokens are issued.
 */
async function lastModifiedListing(
  ctx: ListingContext,
  workspaces: WorkspaceRecord[],
  chosenSources: readonly Source[],
  filters: IncidentFilters,
  window: { from: string; to: string },
): Promise<AcrossWorkspacesResult> {
  const pairs = workspaces.flatMap((workspace) =>
    chosenSources.filter((source) => ctx.sources.isEnabledFor(workspace, source)).map((source): Stream => ({ workspace, source, cursor: null, firstCallAt: 0, failedPages: 0 })),
  );
  const budgetMs = ctx.config.crossWorkspaceBudgetMs;
  const pages = await settleWithin(
    pairs,
    VENDOR_CONCURRENCY,
    { totalMs: budgetMs },
    (stream, signal) => pageOf(ctx, stream, budgetMs, { workspaceId: stream.workspace.id, field: "lastModificationTime", ...window, limit: LAST_MODIFIED_CAP + 1, filters }, signal),
    ctx.signal,
  );
  // Nothing continues in this mode: a pair not read is reported, and its window is the client's to poll again.
  const unavailable = pairs.flatMap((stream, i) => {
    const page = pages[i]!;
    return page.status === "fulfilled" ? [] : [unavailableOf(stream.workspace, failureOf(stream, page, budgetMs), { source: stream.source, gaveUp: true })];
  });
  let capped = false;
  const incidents: ListedIncident[] = [];
  for (const workspace of workspaces) {
    // Each source was asked for one more than the cap: more than the cap in all means the window is too wide.
    const found = pairs.flatMap((p, i) => {
      const page = pages[i]!;
      return p.workspace === workspace && page.status === "fulfilled" ? page.value.items : [];
    }).sort(byLastModifiedDesc);
    if (found.length > LAST_MODIFIED_CAP) capped = true;
    incidents.push(...(await summaries(ctx, workspace, found.slice(0, LAST_MODIFIED_CAP))));
  }
  // Newest change first; ties by workspace, then incident, so that the order never depends on the workspaces' order.
  incidents.sort(
    ({ summary: a }, { summary: b }) =>
      (a.lastModificationTime < b.lastModificationTime ? 1 : a.lastModificationTime > b.lastModificationTime ? -1 : 0) ||
      (a.incident.workspaceId < b.incident.workspaceId ? -1 : a.incident.workspaceId > b.incident.workspaceId ? 1 : 0) ||
      (a.incident.id < b.incident.id ? -1 : a.incident.id > b.incident.id ? 1 : 0),
  );
  return { incidents, sourcePageTokens: [], moreIncidentsAvailable: capped, unavailable };
}

/**
 * One page of one stream, through its breakers (in the gateway). A workspace whose vendor has left a
 * call unanswered for longer than the page's budget gets no second one meanwhile: piling calls onto
 * a vendor that has stopped answering helps neither, and the first call's outcome (its timeout, in
 * the end) is what teaches the breaker.
 */
export async function pageOf(ctx: ListingContext, stream: { workspace: WorkspaceRecord; source: Source }, budgetMs: number, query: IncidentWindowQuery, signal?: AbortSignal): Promise<IncidentPage> {
  const waitedMs = ctx.breakers.pendingMs({ system: stream.source, workspaceId: stream.workspace.id });
  if (waitedMs > budgetMs) {
    throw new ApiError("TIMEOUT", `${stream.source} has left a call for workspace ${stream.workspace.id} unanswered for ${Math.round(waitedMs / 1000)} s; it is not called again until that call ends.`);
  }
  return ctx.sources.gateway(stream.source).listIncidents(query, signal);
}

function byLastModifiedDesc(a: VendorIncident, b: VendorIncident): number {
  return a.lastModificationTime < b.lastModificationTime ? 1 : a.lastModificationTime > b.lastModificationTime ? -1 : a.id < b.id ? -1 : 1;
}

/**
 * The streams the previous response left open, in the order their tokens came. Each token must sit
 * where it was issued (a source of the query, once per workspace); anything else is the contract's
 * fixed 400 at once. A started stream's token is checked when its stream is served; the unstarted
 * streams' marks are checked all at once against their anchor, which names them all. A workspace the
 * credential lost its role on since is left out.
 */
function openStreams(ctx: ListingContext, body: AcrossWorkspacesBody, workspaces: WorkspaceRecord[], chosenSources: readonly Source[], binding: string): (WaitingStream | Stream)[] {
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  // Per workspace, the sources met so far, a bit each: at 70,000 streams a key string per stream was
  // most of a call's own time (and its garbage).
  const seen = new Map<string, number>();
  const chosen = sources.map((source) => chosenSources.includes(source));
  const streams: (WaitingStream | Stream)[] = [];
  const unstarted: Stream[] = [];
  const marks: string[] = [];
  let anchor: { token: string; target: string } | undefined;
  body.workspacePageTokens.forEach((entry, i) => {
    const workspaceId = entry.workspaceId.toLowerCase();
    const workspace = byId.get(workspaceId);
    let met = seen.get(workspaceId) ?? 0;
    let marked = 0;
    for (const key in entry.sourceTokens) {
      const token = entry.sourceTokens[key]!;
      const source = parseSource(key);
      const bit = source ? 1 << sources.indexOf(source) : 0;
      if (!source || !chosen[sources.indexOf(source)] || met & bit) throw invalidTokens(tokenTarget(i, key));
      met |= bit;
      const isUnstarted = token.startsWith(UNSTARTED);
      if (isUnstarted) {
        marked |= bit;
        if (token !== UNSTARTED) {
          if (anchor) throw invalidTokens(tokenTarget(i, key));
          anchor = { token: token.slice(UNSTARTED.length), target: tokenTarget(i, key) };
        }
      }
      if (!workspace) continue;
      if (!isUnstarted) streams.push({ workspace, source, token, target: tokenTarget(i, key) });
      else {
        const stream: Stream = { workspace, source, cursor: null, firstCallAt: 0, failedPages: 0 };
        unstarted.push(stream);
        streams.push(stream);
      }
    }
    seen.set(workspaceId, met);
    if (marked) marks.push(markLine(workspaceId, marked));
  });
  if (marks.length > 0) {
    if (!anchor) throw invalidTokens(`workspacePageTokens`);
    let cursor: z.output<typeof anchorCursor>;
    try {
      cursor = readPageToken(ctx, anchor.token, anchorListing(binding, marks), anchorCursor, anchor.target);
    } catch (error) {
      throw invalidTokens(anchor.target, error);
    }
    const at = parseInt(cursor[0], 36);
    for (const stream of unstarted) stream.firstCallAt = at;
  }
  return streams;
}

function tokenTarget(entry: number, key: string): string {
  return `workspacePageTokens[${entry}].sourceTokens.${key}`;
}

/** A workspace's unstarted streams as the anchor signs them: its id and its sources, a bit each (so their keys' order does not matter). */
function markLine(workspaceId: string, sourceBits: number): string {
  return `${workspaceId}:${sourceBits.toString(36)}`;
}

const anchorCursor = z.tuple([firstCall]);

/**
 * The listing the unstarted streams' anchor is signed to: the query, and every unstarted stream of
 * the answer (`markLine`, workspaces in their order). A mark added, moved or dropped no longer matches
 * the anchor: the whole set is refused, as a made-up token is.
 */
function anchorListing(binding: string, marks: string[]): string {
  return `${binding}:unstarted:${createHash("sha256").update(marks.join("\n")).digest("base64url")}`;
}

/**
 * Signs the answer's unstarted streams: the first one's mark becomes the anchor, carrying the first
 * call's time, signed over the query and the whole set of marks (`anchorListing`).
 */
function anchorUnstarted(ctx: ListingContext, binding: string, entries: { workspaceId: string; sourceTokens: Partial<Record<Source, string>> }[], firstCallAt: number): void {
  const marks: string[] = [];
  let first: { sourceTokens: Partial<Record<Source, string>>; source: Source } | undefined;
  for (const entry of entries) {
    let marked = 0;
    for (const key in entry.sourceTokens) {
      const source = key as Source;
      if (entry.sourceTokens[source] !== UNSTARTED) continue;
      first ??= { sourceTokens: entry.sourceTokens, source };
      marked |= 1 << sources.indexOf(source);
    }
    if (marked) marks.push(markLine(entry.workspaceId, marked));
  }
  if (!first) return;
  first.sourceTokens[first.source] = UNSTARTED + issuePageToken(ctx, anchorListing(binding, marks), [firstCallAt.toString(36)]);
}

/** The listing's first call's time: every stream of a listing shares it. */
function firstCallAtOf(open: (WaitingStream | Stream)[], now: number): number {
  const known = open.find((s): s is Stream => !("token" in s));
  return known?.firstCallAt ?? now;
}

/**
 * A stream's token, read: it must be one this service issued to this caller, for this very query,
 * at the workspace and source it sits at; anything else is the contract's fixed 400.
 */
function readStream(ctx: ListingContext, waiting: WaitingStream, binding: string): Stream {
  let cursor: z.output<typeof streamCursor>;
  try {
    cursor = readPageToken(ctx, waiting.token, streamListing(binding, waiting.workspace.id, waiting.source), streamCursor, waiting.target);
  } catch (error) {
    throw invalidTokens(waiting.target, error);
  }
  return { workspace: waiting.workspace, source: waiting.source, firstCallAt: parseInt(cursor[0], 36), cursor: cursor[1] || null, failedPages: cursor.length === 3 ? cursor[2] : 0 };
}

/** The contract's fixed 400 for the token at `target`, keeping a hint the token check gave. */
function invalidTokens(target: string, cause?: unknown): ApiError {
  const errors = isApiError(cause) && cause.errors ? cause.errors : invalidPageToken(target).errors;
  return new ApiError("VALIDATION_ERROR", INVALID_PAGE_TOKEN_MESSAGE, { target: "workspacePageTokens", errors });
}

/** The listing one stream's token pages: the query, and the workspace and source the token sits at. */
function streamListing(binding: string, workspaceId: string, source: Source): string {
  return `${binding}:${workspaceId}:${source}`;
}

/**
 * The absolute window [from, to) of a listing whose first call was at `firstCallAt` (epoch seconds):
 * relative types end with that second, so the window does not slide while paging; no selection
 * means no lower bound; Custom is the query's own.
 */
export function windowOf(body: { timeFilterSelection?: TimeFilterSelection }, firstCallAt: number): { from: string; to: string } {
  const t = body.timeFilterSelection;
  const end = (firstCallAt + 1) * 1000;
  if (!t) return { from: new Date(0).toISOString(), to: new Date(end).toISOString() };
  if (t.type === "Custom") return { from: new Date(t.customStartUtc!).toISOString(), to: new Date(t.customEndUtc!).toISOString() };
  return { from: new Date(end - hoursOf[t.type] * 3_600_000).toISOString(), to: new Date(end).toISOString() };
}

/**
 * What a token is valid for: the query's filters (not the tokens themselves). A token replayed with
 * other filters would page a different listing, so it is rejected. A relative window is frozen by
 * the first call's time in each token, so the type (not the clock) is what binds.
 */
function bindingOf(body: AcrossWorkspacesBody): string {
  const { workspacePageTokens: _tokens, isFirstCall: _first, ...query } = body;
  return listingBinding("incidents-across", query);
}

/**
 * A listing's binding for its page tokens: a hash of its query with the filters in one spelling
 * (lists sorted, text and addresses in lower case), so the same query binds the same way however sent.
 */
export function listingBinding<Q extends IncidentListingFilters>(listing: string, query: Q): string {
  const normalised = {
    ...query,
    severities: [...query.severities].sort(),
    statuses: [...query.statuses].sort(),
    sources: [...new Set(query.sources)].sort(),
    assigneeEmails: query.assigneeEmails.map((e) => e.toLowerCase()).sort(),
    query: query.query?.toLowerCase(),
  };
  return `${listing}:${createHash("sha256").update(JSON.stringify(normalised)).digest("base64url")}`;
}

async function summaries(ctx: ListingContext, workspace: WorkspaceRecord, items: VendorIncident[]): Promise<ListedIncident[]> {
  return summariesOf(workspace, items, await statesOf(ctx, workspace, items), ctx.now());
}

/** The stored states of these incidents of one workspace, with their etags, by state id: one store read (none for no items). */
export async function statesOf(ctx: ListingContext, workspace: WorkspaceRecord, items: VendorIncident[]): Promise<Map<string, Versioned<IncidentStateRecord>>> {
  if (items.length === 0) return new Map();
  const states = await ctx.stores.incidents.getMany(workspace.id, items.map((i) => stateIdOf(i.source, i.id)));
  return new Map(states.map((s) => [s.value.id, s]));
}

export function summariesOf(workspace: WorkspaceRecord, items: VendorIncident[], states: Map<string, Versioned<IncidentStateRecord>>, now: Date): ListedIncident[] {
  return items.map((i) => {
    const stored = states.get(stateIdOf(i.source, i.id));
    return { summary: toIncidentSummary(i, stored?.value ?? initialState(i, workspace.accountId, now), workspace, now), stateEtag: stored?.etag ?? null };
  });
}
