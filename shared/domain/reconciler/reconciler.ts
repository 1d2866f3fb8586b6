import type { Uses } from "../operation-context";
import { isApiError } from "../../platform/errors/api-error";
import { baselineState, createdEventDue, upstreamChange, upstreamChangePossible, type UpstreamChange } from "../incidents/upstream-changes";
import { stateIdOf } from "../incidents/incident-state";

import { lastModifiedSources, type Source } from "../../model/sources";
import type { Versioned } from "../../platform/store/ports";
import { commit } from "../../platform/store/commit";
import type { ReconcilerStateRecord } from "../../model/reconciler/reconciler-state";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { PassSummary, Tally, WorkspaceResult, WorkspaceShare } from "./reconciler-port";
import type { PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import { catalogueOf } from "../gamebooks/gamebook-settings";
import { autoRunMessageRecord, autoRunRequest } from "../gamebooks/auto-run";

/** The workspace's catalogue for its automation rules, read at the first arrival of a pass and only then. */
type CatalogueOnce = () => Promise<PlaybookCatalogueRecord>;

/** Each window starts this long before the previous one ended (docs/contract.md §4.2: one to two minutes). */
export const RECONCILE_OVERLAP_MS = 90_000;
/** Vendor page size while reconciling. */
const PAGE_SIZE = 500;
/**
 * A window that held nothing leaves its watermark where it was (a nothing-changed pass writes
 * nothing), but never longer than this: windows stay bounded for vendors that cap how far back a
 * last-modified query may reach.
 */
export const WATERMARK_MAX_AGE_MS = 24 * 3600_000;

/**
 * One workspace's share of a pass: for every source that can list by last-modified time (and is
 * enabled for the workspace), the window since its watermark (minus the overlap), paged, each incident turned into
 * state and events by `upstreamChange`, committed with the state's etag. The sources run
 * concurrently; a source that fails (a throttling vendor) keeps its watermark, so the next pass
 * covers its window again, and the others are not held up.
 *
 * Safe to repeat and to overlap with another pass of the same workspace: state commits are
 * etag-checked, event ids come from their subject, and a watermark only moves with the etag it was
 * read with. A nothing-changed pass reads the reconciler document once and writes nothing.
 */
export async function reconcileWorkspace(services: Uses<"events" | "logger" | "now" | "sources" | "stores">, message: WorkspaceShare): Promise<WorkspaceResult> {
  const result: WorkspaceResult = {
    workspaceId: message.workspaceId,
    outcome: "done",
    incidentsSeen: 0,
    created: 0,
    closed: 0,
    updated: 0,
    deleted: 0,
    baselined: 0,
    vendorCalls: 0,
    eventsPublished: 0,
    watermarkWrites: 0,
    coveredThrough: null,
  };
  let workspace: WorkspaceRecord | undefined;
  try {
    workspace = await services.stores.workspaces.get(message.workspaceId);
    if (!workspace) return { ...result, outcome: "missing" };
    let state = await bookkeeping(services, workspace, result);
    const ws = workspace;
    let catalogue: Promise<PlaybookCatalogueRecord> | undefined;
    const catalogueOnce: CatalogueOnce = () => (catalogue ??= catalogueOf(services, ws.id));
    // A source switched off for the workspace, or with no system behind it, is passed over.
    const polled = lastModifiedSources.filter((s) => services.sources.isEnabledFor(ws, s));
    const windowEnd = services.now().toISOString();
    const outcomes = await Promise.all(
      polled.map(async (source) => {
        const watermark = state.value.watermarks[source] ?? state.value.baselineAt;
        try {
          const seen = await reconcileWindow(services, ws, source, watermark, windowEnd, state.value.baselineAt, result, catalogueOnce);
          return { source, watermark, complete: seen.complete, fresh: seen.fresh, repeats: seen.items - seen.fresh };
        } catch (error) {
          result.outcome = "failed";
          result.error = String(error);
          if (askedToWait(error)) result.heldBack = true;
          services.logger.warn("reconciler left a source for the next pass", { workspaceId: message.workspaceId, source, error: String(error) });
          return { source, watermark, complete: false, fresh: 0, repeats: 0 };
        }
      }),
    );
    const moves = outcomes.filter((o) => o.complete && watermarkMoves(o, windowEnd));
    if (moves.length > 0) {
      const watermarks = { ...state.value.watermarks, ...Object.fromEntries(moves.map((o) => [o.source, windowEnd])) };
      try {
        state = await services.stores.reconciler.replace({ ...state.value, watermarks }, state.etag);
        result.watermarkWrites++;
      } catch (error) {
        // Another pass of this workspace moved them meanwhile: this pass's windows are covered again next time.
        if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
      }
    }
    result.coveredThrough = outcomes.length === 0 ? windowEnd : outcomes.map((o) => (o.complete ? windowEnd : o.watermark)).sort()[0]!;
  } catch (error) {
    result.outcome = "failed";
    result.error = String(error);
    if (askedToWait(error)) result.heldBack = true;
    services.logger.warn("reconciler left a workspace for the next pass", { workspaceId: message.workspaceId, error: String(error) });
  }
  return result;
}

/** A refusal with a `Retry-After`: the vendor's 429, or its circuit breaker's while open. */
function askedToWait(error: unknown): boolean {
  return isApiError(error) && error.headers["Retry-After"] !== undefined;
}

/**
 * Whether a completed window moves its source's watermark to the window's end. A window with changes
 * newer than the watermark does. One holding only the overlap's repeats does once the watermark is an
 * overlap old: every late-visible change before it has been seen by then, and the repeats leave the
 * next window. An empty window leaves it, so a nothing-changed pass writes nothing, until it is old.
 */
function watermarkMoves(o: { watermark: string; fresh: number; repeats: number }, windowEnd: string): boolean {
  const age = Date.parse(windowEnd) - Date.parse(o.watermark);
  return o.fresh > 0 || (o.repeats > 0 && age >= RECONCILE_OVERLAP_MS) || age > WATERMARK_MAX_AGE_MS;
}

/**
 * The workspace's reconciler document, created at its first pass (the baseline: incidents there
 * already are not new), with the incidents open at the baseline recorded once.
 */
async function bookkeeping(services: Uses<"now" | "sources" | "stores">, workspace: WorkspaceRecord, result: WorkspaceResult): Promise<Versioned<ReconcilerStateRecord>> {
  const store = services.stores.reconciler;
  let state = await store.get(workspace.id);
  if (!state) {
    try {
      const created = { id: workspace.id, workspaceId: workspace.id, baselineAt: services.now().toISOString(), baselineRecorded: false, watermarks: {} };
      state = await store.create(created);
      result.watermarkWrites++;
    } catch (error) {
      if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
      state = (await store.get(workspace.id))!;
    }
  }
  if (!state.value.baselineRecorded) {
    await recordBaseline(services, workspace, state.value.baselineAt, result);
    state = await store.replace({ ...state.value, baselineRecorded: true }, state.etag);
    result.watermarkWrites++;
  }
  return state;
}

/**
 * Records, without events, every incident open at the baseline: they are not new, but a close of one
 * of them in the vendor console must later be recognised as a close of an incident the service holds
 * open. Runs once per workspace (again after a crash midway: an existing state is left alone).
 */
async function recordBaseline(services: Uses<"now" | "sources" | "stores">, workspace: WorkspaceRecord, baselineAt: string, result: WorkspaceResult): Promise<void> {
  const polled = lastModifiedSources.filter((s) => services.sources.isEnabledFor(workspace, s));
  for (const source of polled) {
    const gateway = services.sources.gateway(source);
    let cursor: string | undefined;
    do {
      result.vendorCalls++;
      const page = await gateway.listIncidents({
        workspaceId: workspace.id,
        field: "createdAt",
        from: new Date(0).toISOString(),
        to: baselineAt,
        limit: PAGE_SIZE,
        cursor,
        filters: { statuses: ["New", "Active"] },
      });
      cursor = page.cursor;
      const stored = await services.stores.incidents.getMany(workspace.id, page.items.map((i) => stateIdOf(i.source, i.id)));
      const known = new Set(stored.map((s) => s.value.id));
      for (const incident of page.items) {
        if (known.has(stateIdOf(incident.source, incident.id))) continue;
        try {
          await services.stores.incidents.commit(baselineState(workspace, incident, baselineAt, services.now()), null, []);
          result.baselined++;
        } catch (error) {
          // Written meanwhile by an API change or another pass: that state is newer; keep it.
          if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
        }
      }
    } while (cursor);
  }
}

/**
 * One source's window, paged. `complete` is false when an incident was given up on (contended);
 * `fresh` counts the incidents modified at or after the watermark (the rest are the overlap's repeats).
 */
async function reconcileWindow(
  services: Uses<"events" | "logger" | "now" | "sources" | "stores">,
  workspace: WorkspaceRecord,
  source: Source,
  watermark: string,
  to: string,
  baselineAt: string,
  result: WorkspaceResult,
  catalogueOnce: CatalogueOnce,
): Promise<{ complete: boolean; items: number; fresh: number }> {
  const gateway = services.sources.gateway(source);
  const from = new Date(Date.parse(watermark) - RECONCILE_OVERLAP_MS).toISOString();
  let complete = true;
  let items = 0;
  let fresh = 0;
  let cursor: string | undefined;
  do {
    result.vendorCalls++;
    const page = await gateway.listIncidents({ workspaceId: workspace.id, field: "lastModificationTime", from, to, limit: PAGE_SIZE, cursor, includeDeleted: true });
    cursor = page.cursor;
    items += page.items.length;
    fresh += page.items.filter((i) => i.lastModificationTime >= watermark).length;
    result.incidentsSeen += page.items.length;
    if (page.items.length === 0) continue;
    const stored = await services.stores.incidents.getMany(workspace.id, page.items.map((i) => stateIdOf(i.source, i.id)));
    const byId = new Map(stored.map((s) => [s.value.id, s.value]));
    for (const incident of page.items) {
      const stored = byId.get(stateIdOf(incident.source, incident.id));
      // Unchanged since the stored copy (the overlap brings some back), nothing due: nothing to do.
      if (!upstreamChangePossible(stored, incident, baselineAt)) continue;
      // Only an incident that may arrive now (its incident.created.v1 due) needs the automation rules.
      const mayArrive = createdEventDue(stored, incident, baselineAt) && !incident.deletedAt;
      complete = (await reconcileIncident(services, workspace, incident, baselineAt, result, mayArrive ? catalogueOnce : null)) && complete;
    }
  } while (cursor);
  return { complete, items, fresh };
}

/**
 * Applies one vendor incident to the service's state; retried on a fresh read when a writer raced it.
 * An arrival (its `incident.created.v1`) that an automation rule matches commits the rule's `autoRun`
 * message with it (`gamebooks/auto-run.ts`).
 */
async function reconcileIncident(
  services: Uses<"events" | "logger" | "now" | "stores">,
  workspace: WorkspaceRecord,
  incident: Parameters<typeof upstreamChange>[2],
  baselineAt: string,
  result: WorkspaceResult,
  /** Given when the incident may arrive now: the catalogue is read for the first such incident of the pass. */
  catalogueOnce: CatalogueOnce | null,
): Promise<boolean> {
  const store = services.stores.incidents;
  const id = stateIdOf(incident.source, incident.id);
  const automated = catalogueOnce !== null && autoRunRequest(await catalogueOnce(), incident) !== null;
  try {
    let change: UpstreamChange | null = null;
    await commit({
      deadline: services.deadline,
      async read() {
        const current = await store.get(workspace.id, id);
        return { value: current?.value ?? null, etag: current?.etag ?? null };
      },
      next(stored) {
        change = upstreamChange(workspace, stored ?? undefined, incident, baselineAt, services.now()) ?? null;
        if (!change) return null;
        const autoRun = automated && change.kind === "created" ? [autoRunMessageRecord(workspace.id, incident, services.now().toISOString())] : [];
        return { value: change.state, outbox: [...change.events, ...autoRun] };
      },
      write: (state, etag, outbox) => store.commit(state!, etag, outbox),
      outbox: {
        async publish(records) {
          // Read the count after the await: the workspace's sources run concurrently on one result,
          // and `x += await …` would add to the value read before it.
          const published = await services.events.outbox.publish(records);
          result.eventsPublished += published;
          return published;
        },
      },
    });
    if (change) result[(change as UpstreamChange).kind]++;
    return true;
  } catch (error) {
    if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
    services.logger.warn("reconciler gave up on a contended incident; the next pass retries it", { workspaceId: workspace.id, incidentId: incident.id });
    return false;
  }
}

export interface PassTiming {
  startedAt: Date;
  now: Date;
  /** Wall time the pass took (the clock above may be a test's). */
  durationMs: number;
  intervalMs: number;
}

export function summarizePass(passId: string, results: readonly WorkspaceResult[], timing: PassTiming & { messages: number }): PassSummary {
  const { startedAt, now, intervalMs } = timing;
  const sum = (key: keyof Tally | "watermarkWrites") => results.reduce((n, r) => n + r[key], 0);
  const ages = results.filter((r) => r.outcome !== "missing").map((r) => (r.coveredThrough === null ? Infinity : now.getTime() - Date.parse(r.coveredThrough)));
  return {
    passId,
    workspaces: results.filter((r) => r.outcome !== "missing").length,
    messages: timing.messages,
    failed: results.filter((r) => r.outcome === "failed").length,
    incidentsSeen: sum("incidentsSeen"),
    created: sum("created"),
    closed: sum("closed"),
    updated: sum("updated"),
    deleted: sum("deleted"),
    baselined: sum("baselined"),
    vendorCalls: sum("vendorCalls"),
    eventsPublished: sum("eventsPublished"),
    watermarkWrites: sum("watermarkWrites"),
    durationMs: Math.round(timing.durationMs),
    lagMs: ages.length === 0 ? 0 : Math.max(0, ...ages.map((a) => (Number.isFinite(a) ? a : now.getTime() - startedAt.getTime()))),
    workspacesBehind: ages.filter((a) => a > 2 * intervalMs).length,
  };
}
