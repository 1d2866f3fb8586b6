import { setMaxListeners } from "node:events";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { z } from "zod";
import { ApiError } from "../../platform/errors/api-error";
import { issuePackedPageToken, readPackedPageToken } from "../../platform/http/paging";
import { settleWithin, type Settled } from "../../platform/concurrency/settle-within";
import { mapLimited } from "../../platform/concurrency/map-limited";
import { isTransient, unavailableOf, type Unavailable } from "../../platform/http/partial-results";
import type { IncidentFilters } from "../../systems/vendors/port";
import { severities, type Severity, type VendorIncident } from "../../model/incidents/incident";
import { sources, type Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import {
  failureOf,
  filtersOf,
  GIVE_UP_AFTER_FAILED_PAGES,
  listingBinding,
  MAX_LISTED_WORKSPACES,
  pageOf,
  statesOf,
  summariesOf,
  windowOf,
  type IncidentListingFilters,
  type ListedIncident,
  type ListingContext,
} from "./cross-workspace-listing";

/**
 * The incident queue: every incident of many workspaces' sources in one order, page after page.
 *
 * Each (workspace, source) is a stream the vendor lists newest first. The queue is their exact merge:
 * an incident is handed out only once no stream can hold one before it. What a page leaves of each
 * stream travels in the page token: the last incident it handed out (where it resumes), the creation
 * time of its next one when that was seen (so it need not be read again until its turn), and the
 * pages in a row it has failed. A page therefore reads a stream only when the stream's next incident
 * may belong on it: the first page reads every stream once; a later page reads the few whose turn
 * has come.
 *
 * "Severity, then newest" is the same merge over each stream's severities in turn: a stream lists its
 * High incidents newest first, then its Medium ones, and so on, each a vendor query of one severity.
 *
 * Nothing is invented and nothing is handed out twice; a stream that fails keeps its place in the
 * token, is named in `unavailable` and is read again on the next page (given up after
 * `GIVE_UP_AFTER_FAILED_PAGES` failures in a row, or at once for a failure that will not pass). While
 * it is failing the merge goes on without it, so its incidents come when it answers again, on that
 * page, ahead of where the pages before had reached.
 */

/** Incidents one page of the queue holds. */
export const QUEUE_PAGE_SIZE = 50;
/** Fewest and most incidents asked of one stream in one call. */
const MIN_READ = 3;
const MAX_READ = QUEUE_PAGE_SIZE;
/** Most incidents asked of a vendor in one call: what the reconciler asks for too. */
const MAX_VENDOR_PAGE = 500;

export const queueOrders = ["newest", "severity"] as const;
export type QueueOrder = (typeof queueOrders)[number];

/** Highest severity first. */
const bySeverity: readonly Severity[] = [...severities].reverse();

/** Where a stream stands: how far it has been handed out, and what is known of what comes next. */
interface StreamPosition {
  /** Index into the query's severity levels (always 0 for "newest"). */
  level: number;
  /** The last incident handed out at this level (creation time, ms; id), or null for none yet. */
  after: { t: number; id: string } | null;
  /** Creation time (ms) of the stream's next incident at this level, when a read has seen it. */
  next: number | null;
  /** Pages in a row on which the stream failed. */
  failedPages: number;
}

interface Stream extends StreamPosition {
  workspace: WorkspaceRecord;
  source: Source;
  /** Incidents read this call and not yet handed out, in order, each with its creation time (ms). */
  buffer: Held[];
  /** Whether this call read the stream: then `buffer` is what it holds up to `exhausted` or a read boundary. */
  read: boolean;
  /** This call read the stream to the end of its level (the vendor had nothing more). */
  exhausted: boolean;
  /** The stream failed on this call: it sits out the rest of the page. */
  failedNow: boolean;
  done: boolean;
}

/** An incident in hand, with its creation time parsed once. */
interface Held {
  incident: VendorIncident;
  t: number;
}

/** The queue's query: a listing's filters, the order, and where the previous page stopped. */
export interface QueueQuery extends IncidentListingFilters {
  order: QueueOrder;
  pageToken?: string;
}

export interface QueuePage {
  incidents: ListedIncident[];
  nextPageToken: string | null;
  /** Streams not yet read at the level the queue has reached: while any is left, the page cannot say what comes first, and holds less. */
  unreadStreams: number;
  unavailable: Unavailable[];
}

/**
 * The token's cursor: the first call's time (epoch seconds, base 36), then per workspace its id and
 * each chosen source's position, or 0 for a source that has nothing more. Deflated, because at a
 * thousand workspaces it holds several thousand positions whose keys repeat.
 */
const position = z.union([
  z.literal(0),
  // [level, after time (base 36) or "", after id or "", next time (base 36) or "", failed pages]
  z.tuple([z.int().min(0).max(severities.length - 1), z.string().max(12), z.string().max(256), z.string().max(12), z.int().min(0).max(GIVE_UP_AFTER_FAILED_PAGES - 1)]),
]);
const cursorSchema = z.object({
  at: z.string().regex(/^[0-9a-z]{1,9}$/),
  w: z.array(z.tuple([z.string().regex(/^[A-Za-z0-9_-]{22}$/), z.array(position)])).max(MAX_LISTED_WORKSPACES),
});
/** Most bytes a token's cursor inflates to: 10,000 workspaces' positions with room (a deflate bomb stops there). */
const MAX_CURSOR_BYTES = 8 * 1024 * 1024;

/**
 * One page of the queue over `workspaces` (those the caller may see). The first call's streams are
 * every workspace's chosen, enabled sources; later calls page the streams the token names, leaving
 * out a workspace the caller no longer sees.
 */
export async function incidentQueuePage(ctx: ListingContext, workspaces: WorkspaceRecord[], query: QueueQuery): Promise<QueuePage> {
  const levels: (Severity | null)[] =
    query.order === "severity" ? bySeverity.filter((s) => query.severities.length === 0 || query.severities.includes(s)) : [null];
  const chosenSources = query.sources.length > 0 ? sources.filter((s) => query.sources.includes(s)) : sources;
  const binding = bindingOf(query);
  const { firstCallAt, streams } =
    query.pageToken === undefined ? firstStreams(ctx, workspaces, chosenSources) : resumedStreams(ctx, workspaces, chosenSources, levels, binding, query.pageToken);
  const window = windowOf(query, firstCallAt);
  const filters = filtersOf(query);
  const deadline = Date.now() + ctx.config.crossWorkspaceBudgetMs;
  const unavailable: Unavailable[] = [];
  const signal = readsSignal(ctx.signal, sum(chosenSources.map((source) => placesOf(ctx, source))));

  // Each source's streams are read in a line of their own, as many at once as its vendor takes (the
  // places of its limiter): every read then goes at the vendor's pace. More at once would only wait in
  // the limiter's line, and a read of several calls (a level after another, a millisecond followed)
  // waiting there between each would end past the budget, its work lost, page after page.
  const read = (batch: Stream[], limit: number, throughLevels = false) => {
    const remaining = Math.max(1, deadline - Date.now());
    const bySource = new Map<Source, Stream[]>();
    for (const stream of batch) {
      const line = bySource.get(stream.source);
      if (line) line.push(stream);
      else bySource.set(stream.source, [stream]);
    }
    return Promise.all(
      [...bySource].map(async ([source, line]) => {
        const outcomes = await settleWithin(line, placesOf(ctx, source), { totalMs: remaining }, (stream, abort) =>
          readStream(ctx, stream, { levels, filters, window, limit, deadline, throughLevels }, abort),
        signal);
        settleReads(line, outcomes);
      }),
    );
  };
  const settleReads = (line: Stream[], outcomes: Settled<ReadResult>[]) =>
    outcomes.forEach((outcome, i) => {
      const stream = line[i]!;
      if (outcome.status === "fulfilled") return applyRead(stream, outcome.value, levels.length);
      // Not asked before the budget ran out, or still under way then: not the stream's failure. It stays
      // where it is and holds back what it might precede until a later call reads it. A vendor that has
      // stopped answering is failed then at once: its breaker knows the call still pending (`pageOf`).
      if (outcome.status === "unstarted" || outcome.status === "late") return;
      if (outcome.reason instanceof PastDeadline) return;
      const error = failureOf(stream, outcome, ctx.config.crossWorkspaceBudgetMs);
      stream.failedNow = true;
      stream.failedPages += 1;
      const gaveUp = !isTransient(error) || stream.failedPages >= GIVE_UP_AFTER_FAILED_PAGES;
      if (gaveUp) stream.done = true;
      unavailable.push(unavailableOf(stream.workspace, error, { source: stream.source, gaveUp, failedPages: stream.failedPages }));
    });

  const live = () => streams.filter((s) => !s.done && !s.failedNow);
  const emitted: { stream: Stream; incident: VendorIncident }[] = [];
  while (emitted.length < QUEUE_PAGE_SIZE) {
    // Hand out what is certain: the first candidate, while it is an incident already read.
    const candidates = live();
    const queue = new CandidateHeap(candidates);
    let best = queue.peek();
    while (best && emitted.length < QUEUE_PAGE_SIZE && best.buffer.length > 0) {
      emit(best, emitted, levels.length);
      queue.replaceTop();
      best = queue.peek();
    }
    if (!best || emitted.length >= QUEUE_PAGE_SIZE) break;
    // The first candidate is a stream whose next incident is not in hand: read every stream that may
    // hold one of the incidents the page still needs, in one round.
    const batch = toRead(candidates, QUEUE_PAGE_SIZE - emitted.length);
    if (Date.now() >= deadline) break;
    await read(batch, readLimit(QUEUE_PAGE_SIZE - emitted.length, batch.length));
  }
  // "More" only when there is more: a stream whose next incident is unknown is read once to know it,
  // unless another is known to hold one.
  const unknown = live().filter((s) => s.buffer.length === 0 && !(s.read && s.exhausted && s.level === levels.length - 1) && s.next === null);
  if (!live().some((s) => s.buffer.length > 0 || s.next !== null) && unknown.length > 0 && Date.now() < deadline) {
    await read(unknown, MIN_READ, true);
  }
  for (const stream of streams) settle(stream, levels.length);

  // Breakers: a stream waiting its turn whose workspace is failing is named, so each page shows what fails.
  const named = new Set(unavailable.map((u) => `${u.workspaceId}/${u.source}`));
  for (const stream of streams) {
    if (stream.done || named.has(`${stream.workspace.id}/${stream.source}`)) continue;
    const failing = ctx.breakers.failing({ system: stream.source, workspaceId: stream.workspace.id });
    if (failing) unavailable.push(unavailableOf(stream.workspace, failing, { source: stream.source }));
  }

  const incidents = await listed(ctx, emitted);
  const open = streams.filter((s) => !s.done);
  return {
    incidents,
    nextPageToken: open.length === 0 ? null : issuePackedPageToken(ctx, binding, pack(firstCallAt, streams)),
    unreadStreams: unplaced(open).length,
    unavailable,
  };
}

function sum(values: number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** How many calls a source's vendor takes at once from this process (its limiter's places). */
function placesOf(ctx: ListingContext, source: Source): number {
  return ctx.config.sourceLimits[source].maxConcurrency;
}

/**
 * The signal the page's reads share: the caller's, through one listener of its own, with room for a
 * listener per read in flight (each vendor call listens to it), which Node would otherwise warn of.
 */
function readsSignal(caller: AbortSignal | undefined, inFlight: number): AbortSignal | undefined {
  if (!caller) return undefined;
  const shared = AbortSignal.any([caller]);
  setMaxListeners(inFlight + 16, shared);
  return shared;
}

/**
 * The streams not yet read at the level the queue has reached (in newest order, the one level): their
 * next incident may come before every incident known, so while any is left a page may hold fewer.
 */
function unplaced(open: Stream[]): Stream[] {
  let reached = Infinity;
  for (const stream of open) reached = Math.min(reached, stream.level);
  return open.filter((s) => s.level === reached && !s.read && s.after === null && s.next === null);
}

/** The streams of a first call: every workspace's chosen sources that serve it, none read yet. */
function firstStreams(ctx: ListingContext, workspaces: WorkspaceRecord[], chosen: readonly Source[]): { firstCallAt: number; streams: Stream[] } {
  const streams = workspaces.flatMap((workspace) =>
    chosen.filter((source) => ctx.sources.isEnabledFor(workspace, source)).map((source) => fresh(workspace, source, { level: 0, after: null, next: null, failedPages: 0 })),
  );
  return { firstCallAt: Math.floor(ctx.now().getTime() / 1000), streams };
}

function fresh(workspace: WorkspaceRecord, source: Source, at: StreamPosition): Stream {
  return { workspace, source, ...at, buffer: [], read: false, exhausted: false, failedNow: false, done: false };
}

/** The streams a token names, at the positions it carries; any token not issued for this query and caller is 400. */
function resumedStreams(
  ctx: ListingContext,
  workspaces: WorkspaceRecord[],
  chosen: readonly Source[],
  levels: readonly unknown[],
  binding: string,
  token: string,
): { firstCallAt: number; streams: Stream[] } {
  const packed = readPackedPageToken(ctx, token, binding, "pageToken");
  let cursor: z.output<typeof cursorSchema>;
  try {
    cursor = cursorSchema.parse(JSON.parse(inflateRawSync(packed, { maxOutputLength: MAX_CURSOR_BYTES }).toString("utf8")));
  } catch {
    // Signed by this service, so only a change of the token's layout gets here: start again.
    throw new ApiError("VALIDATION_ERROR", "This page token is from an earlier version of the queue: start again from the first page.", { target: "pageToken" });
  }
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  const streams: Stream[] = [];
  for (const [packedId, positions] of cursor.w) {
    const workspace = byId.get(guidOf(packedId));
    // A workspace the caller no longer sees is left out, as a lost role is.
    if (!workspace) continue;
    positions.forEach((p, i) => {
      const source = sources[i];
      if (p === 0 || source === undefined || !chosen.includes(source) || !ctx.sources.isEnabledFor(workspace, source)) return;
      const [level, afterT, afterId, nextT, failedPages] = p;
      if (level >= levels.length) return;
      streams.push(
        fresh(workspace, source, {
          level,
          after: afterT === "" ? null : { t: parseInt(afterT, 36), id: afterId },
          next: nextT === "" ? null : parseInt(nextT, 36),
          failedPages,
        }),
      );
    });
  }
  return { firstCallAt: parseInt(cursor.at, 36), streams };
}

/** What one read of a stream is asked for. */
interface ReadPlan {
  levels: readonly (Severity | null)[];
  filters: IncidentFilters;
  window: { from: string; to: string };
  limit: number;
  /** When the page stops waiting: a read still going then makes no further call. */
  deadline: number;
  /** At a level with none left, read the next at once (to know whether the stream holds anything more at all). */
  throughLevels: boolean;
}

/**
 * One read of a stream: its incidents after its position, newest first, at most `limit`, at its
 * level. A level with none left ends the read there (the stream goes on to the next level, unread:
 * `applyRead`), unless `throughLevels`: then the next level is read at once, so that the read ends on
 * the stream's true next incident. A page reads one level a read: the first page of the severity
 * order needs each stream's first High incident, not its first of every level.
 */
async function readStream(ctx: ListingContext, stream: Stream, plan: ReadPlan, signal: AbortSignal | undefined): Promise<ReadResult> {
  // Worked on a copy of the position: a read the page stopped waiting for must not change the stream
  // when it ends after all; only a read the page took is applied (`applyRead`).
  let level = stream.level;
  let after = stream.after;
  for (;;) {
    const { items, exhausted } = await readLevel(ctx, stream, after, plan.levels[level]!, plan, signal);
    if (items.length > 0 || !exhausted || level === plan.levels.length - 1 || !plan.throughLevels) return { level, after, items, exhausted };
    level += 1;
    after = null;
    stopIfPast(plan.deadline);
  }
}

/**
 * Thrown by a read the page has stopped waiting for, instead of making another vendor call: its
 * outcome is no longer looked at (should it arrive before the page's timer, it is taken as late, not
 * as a failure), and its calls would only stand in line before the next page's. The call already made
 * is left to end, so that a vendor that has stopped answering is still known by it (`pageOf`).
 */
class PastDeadline extends Error {}

function stopIfPast(deadline: number): void {
  if (Date.now() >= deadline) throw new PastDeadline("The page's time was up.");
}

interface ReadResult {
  level: number;
  after: StreamPosition["after"];
  items: VendorIncident[];
  exhausted: boolean;
}

function applyRead(stream: Stream, read: ReadResult, levelCount: number): void {
  if (read.items.length === 0 && read.exhausted && read.level < levelCount - 1) {
    // Nothing left at its level: on to the next, unread (its next incident there can be any of that level's).
    Object.assign(stream, { level: read.level + 1, after: null, next: null, read: false, exhausted: false, buffer: [] });
    return;
  }
  stream.level = read.level;
  stream.after = read.after;
  stream.read = true;
  stream.buffer = read.items.map((incident) => ({ incident, t: Date.parse(incident.createdAt) }));
  stream.exhausted = read.exhausted;
  stream.next = stream.buffer[0]?.t ?? null;
}

/**
 * A stream's incidents at one level after its position: those of which none are missing, in order.
 * A read ends on whole milliseconds: a stream's position is (time, id), so a millisecond handed out in
 * part would lose the rest of it whose ids sort before the last one handed out. A vendor page that
 * ends inside one is followed by the next until the millisecond is whole, however many that takes (a
 * bulk import can create hundreds in one); the page's time budget still bounds the read, and a read
 * cut short by it is a failure of the stream's, reported, not a shorter answer.
 */
async function readLevel(
  ctx: ListingContext,
  stream: Stream,
  after: StreamPosition["after"],
  level: Severity | null,
  { filters, window, limit, deadline }: ReadPlan,
  signal: AbortSignal | undefined,
): Promise<{ items: VendorIncident[]; exhausted: boolean }> {
  // Resume just past the last incident handed out: its millisecond is read again, and what was handed out dropped.
  const to = after ? new Date(Math.min(Date.parse(window.to), after.t + 1)).toISOString() : window.to;
  const query = { ...filters, ...(level ? { severities: [level] } : {}) };
  const items: VendorIncident[] = [];
  let cursor: string | undefined;
  // Each page past the first asks for more: a millisecond of hundreds is whole in a few calls, not a hundred.
  for (let pageLimit = limit; ; pageLimit = Math.min(MAX_VENDOR_PAGE, pageLimit * 4)) {
    const page = await pageOf(
      ctx,
      stream,
      ctx.config.crossWorkspaceBudgetMs,
      { workspaceId: stream.workspace.id, field: "createdAt", from: window.from, to, limit: pageLimit, cursor, filters: query },
      signal,
    );
    items.push(...page.items.filter((i) => !after || isAfter(i, after)));
    cursor = page.cursor;
    if (cursor === undefined) return { items: items.sort(byKey), exhausted: true };
    items.sort(byKey);
    // The page may end inside one millisecond's incidents, in an order of the vendor's: keep those
    // newer than its last millisecond, which the next read takes whole.
    const lastT = Date.parse(items[items.length - 1]?.createdAt ?? page.items[page.items.length - 1]!.createdAt);
    const whole = items.filter((i) => Date.parse(i.createdAt) > lastT);
    if (whole.length > 0) return { items: whole, exhausted: false };
    stopIfPast(deadline);
  }
}

/** Whether an incident comes after a stream's position (newest first, then by id). */
function isAfter(incident: VendorIncident, after: { t: number; id: string }): boolean {
  const t = Date.parse(incident.createdAt);
  return t < after.t || (t === after.t && incident.id > after.id);
}

function byKey(a: VendorIncident, b: VendorIncident): number {
  const ta = Date.parse(a.createdAt);
  const tb = Date.parse(b.createdAt);
  return ta !== tb ? tb - ta : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * A stream's candidate for the page's next place, as a comparable key: its next incident in hand, or
 * the earliest its next one can be (what it is known to hold, or its position, or its level's top).
 */
interface Candidate {
  level: number;
  t: number;
  workspaceId: string;
  source: Source;
  id: string;
}

function candidateOf(stream: Stream): Candidate | null {
  const head = stream.buffer[0];
  if (head) return key(stream, head.t, head.incident.id);
  if (stream.read && stream.exhausted) return null;
  if (!stream.read && stream.next !== null) return key(stream, stream.next, "");
  return key(stream, stream.after?.t ?? Infinity, stream.after?.id ?? "");
}

function key(stream: Stream, t: number, id: string): Candidate {
  return { level: stream.level, t, workspaceId: stream.workspace.id, source: stream.source, id };
}

function compare(a: Candidate, b: Candidate): number {
  if (a.level !== b.level) return a.level - b.level;
  if (a.t !== b.t) return b.t - a.t;
  if (a.workspaceId !== b.workspaceId) return a.workspaceId < b.workspaceId ? -1 : 1;
  if (a.source !== b.source) return a.source < b.source ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The streams by their candidates, first on top: a page hands out fifty incidents from thousands of
 * streams, so the first is found in log time, not by a pass over all of them.
 */
class CandidateHeap {
  private readonly items: { stream: Stream; key: Candidate }[] = [];

  constructor(streams: Stream[]) {
    for (const stream of streams) {
      const key = candidateOf(stream);
      if (key) this.items.push({ stream, key });
    }
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  peek(): Stream | undefined {
    return this.items[0]?.stream;
  }

  /** The top stream's candidate changed (it handed out an incident): put it where it now belongs. */
  replaceTop(): void {
    const top = this.items[0]!;
    const key = candidateOf(top.stream);
    if (key) {
      this.items[0] = { stream: top.stream, key };
    } else {
      // Nothing more from it on this page: the last leaf takes the top, and sinks.
      const last = this.items.pop()!;
      if (this.items.length === 0) return;
      this.items[0] = last;
    }
    this.down(0);
  }

  private down(i: number): void {
    const { items } = this;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && compare(items[left]!.key, items[smallest]!.key) < 0) smallest = left;
      if (right < items.length && compare(items[right]!.key, items[smallest]!.key) < 0) smallest = right;
      if (smallest === i) return;
      [items[i], items[smallest]] = [items[smallest]!, items[i]!];
      i = smallest;
    }
  }
}

/**
 * Hands out a stream's next incident. A stream that has handed out the last of a level goes on to the
 * next level, unread: its next incident there can be any of that level's.
 */
function emit(stream: Stream, emitted: { stream: Stream; incident: VendorIncident }[], levelCount: number): void {
  const { incident, t } = stream.buffer.shift()!;
  stream.after = { t, id: incident.id };
  stream.next = stream.buffer[0]?.t ?? null;
  emitted.push({ stream, incident });
  if (stream.buffer.length === 0 && stream.exhausted && stream.level < levelCount - 1) {
    Object.assign(stream, { level: stream.level + 1, after: null, next: null, read: false, exhausted: false });
  }
}

/**
 * The streams to read for the `slots` places left: those whose next incident is not in hand and may
 * come before the `slots`-th incident known to exist (all of them while fewer than `slots` are known).
 * Known: the incidents in hand, and one for each stream whose next incident's time a read has seen.
 */
function toRead(streams: Stream[], slots: number): Stream[] {
  const known = new Smallest(slots);
  for (const stream of streams) {
    for (const held of stream.buffer) {
      known.offer(key(stream, held.t, held.incident.id));
    }
    // At its time, with the highest id there: no earlier than the incident it stands for.
    if (stream.buffer.length === 0 && !stream.read && stream.next !== null) {
      known.offer(key(stream, stream.next, "\uffff"));
    }
  }
  const bar = known.last();
  return streams.filter((s) => {
    if (s.buffer.length > 0) return false;
    const key = candidateOf(s);
    return key !== null && (bar === null || compare(key, bar) <= 0);
  });
}

/** The `count` first candidates offered, kept in a bounded max-heap: `last()` is the count-th, once there are that many. */
class Smallest {
  private readonly items: Candidate[] = [];

  constructor(private readonly count: number) {}

  offer(key: Candidate): void {
    const { items } = this;
    if (items.length < this.count) {
      items.push(key);
      for (let i = items.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (compare(items[i]!, items[parent]!) <= 0) break;
        [items[i], items[parent]] = [items[parent]!, items[i]!];
        i = parent;
      }
      return;
    }
    if (compare(key, items[0]!) >= 0) return;
    items[0] = key;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let largest = i;
      if (left < items.length && compare(items[left]!, items[largest]!) > 0) largest = left;
      if (right < items.length && compare(items[right]!, items[largest]!) > 0) largest = right;
      if (largest === i) return;
      [items[i], items[largest]] = [items[largest]!, items[i]!];
      i = largest;
    }
  }

  /** The count-th first, or null while fewer were offered. */
  last(): Candidate | null {
    return this.items.length >= this.count ? this.items[0]! : null;
  }
}

/**
 * How many incidents to ask of each stream. A round of a few streams (a later page's) asks each for
 * every place left: a vendor call costs its latency whatever it holds, and a stream that runs dry
 * mid-page would cost another round. A round of thousands (the first page's) asks each for its share.
 */
function readLimit(slots: number, streams: number): number {
  if (streams <= QUEUE_PAGE_SIZE) return Math.min(MAX_READ, Math.max(MIN_READ, slots + 1));
  return Math.min(MAX_READ, Math.max(MIN_READ, Math.ceil(slots / Math.max(1, streams)) + 1));
}

/** A stream's position after the page: whether it has anything left, and its failures reset once it answered. */
function settle(stream: Stream, levelCount: number): void {
  if (stream.done || stream.failedNow || !stream.read) return;
  stream.failedPages = 0;
  if (stream.exhausted && stream.buffer.length === 0 && stream.level === levelCount - 1) stream.done = true;
}

function pack(firstCallAt: number, streams: Stream[]): Buffer {
  const byWorkspace = new Map<string, Stream[]>();
  for (const stream of streams) {
    if (stream.done) continue;
    const list = byWorkspace.get(stream.workspace.id) ?? [];
    list.push(stream);
    byWorkspace.set(stream.workspace.id, list);
  }
  const w = [...byWorkspace].map(([workspaceId, list]) => {
    const positions: z.output<typeof position>[] = sources.map(() => 0);
    for (const s of list) {
      positions[sources.indexOf(s.source)] = [s.level, s.after ? s.after.t.toString(36) : "", s.after?.id ?? "", s.next === null ? "" : s.next.toString(36), s.failedPages];
    }
    while (positions.length > 0 && positions[positions.length - 1] === 0) positions.pop();
    return [packedGuid(workspaceId), positions] as const;
  });
  return deflateRawSync(JSON.stringify({ at: firstCallAt.toString(36), w }));
}

function packedGuid(id: string): string {
  return Buffer.from(id.replaceAll("-", ""), "hex").toString("base64url");
}

function guidOf(packed: string): string {
  const hex = Buffer.from(packed, "base64url").toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The page's incidents with the service's state of each: one store read per workspace on the page. */
async function listed(ctx: ListingContext, emitted: { stream: Stream; incident: VendorIncident }[]): Promise<ListedIncident[]> {
  const byWorkspace = new Map<string, { workspace: WorkspaceRecord; items: VendorIncident[] }>();
  for (const { stream, incident } of emitted) {
    const entry = byWorkspace.get(stream.workspace.id) ?? { workspace: stream.workspace, items: [] };
    entry.items.push(incident);
    byWorkspace.set(stream.workspace.id, entry);
  }
  const states = new Map(await mapLimited([...byWorkspace.values()], 16, async ({ workspace, items }) => [workspace.id, await statesOf(ctx, workspace, items)] as const));
  const now = ctx.now();
  return emitted.map(({ stream, incident }) => summariesOf(stream.workspace, [incident], states.get(stream.workspace.id)!, now)[0]!);
}

/** What a token is valid for: the query without its token. Another filter, order or narrowing pages another queue. */
function bindingOf(query: QueueQuery & { accountIds?: readonly string[]; workspaceIds?: readonly string[] }): string {
  const { pageToken: _token, ...rest } = query;
  const ids = (list: readonly string[] | undefined) => (list ?? []).map((id) => id.toLowerCase()).sort();
  return listingBinding("incident-queue", { ...rest, accountIds: ids(rest.accountIds), workspaceIds: ids(rest.workspaceIds) });
}
