import { createHash } from "node:crypto";
import { z } from "zod";
import { ApiError } from "../../platform/errors/api-error";
import type { Pagination } from "../../platform/http/route";
import type { RequestContext } from "../route-kinds";
import { issuePageToken, readPageToken } from "../../platform/http/paging";
import { anomalySeverities, detectIngestionAnomalies, requiredHistory, type IngestionAnomaly } from "../../domain/datasources/ingestion-anomalies";
import { HOUR_MS } from "../../systems/log-analytics/port";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { MAX_ANOMALY_LOOKBACK_DAYS, MAX_ANOMALY_WINDOW_DAYS, type anomalyQueryBody, type anomalyResult } from "./datasource-schemas";
import { mappedLogAnalyticsWorkspaces } from "../../domain/organizations/mapped-workspaces";
import type { Unavailable } from "../../platform/http/partial-results";
import { readWorkspaces } from "./workspace-reads";

type Query = z.output<typeof anomalyQueryBody>;
type Result = z.infer<typeof anomalyResult>;
type AnomalyView = Result["anomalies"][number];

const DAY_MS = 24 * HOUR_MS;
/** Workspaces read at once: each is a handful of upstream queries. */
const WORKSPACE_CONCURRENCY = 4;
/** Latency is measured only over the last 48 hours (Azure: it scans records). */
const LATENCY_LOOKBACK_MS = 48 * HOUR_MS;

const cursorSchema = z
  .object({
    window: z.object({ start: z.iso.datetime(), end: z.iso.datetime() }).strict(),
    after: z.object({ rank: z.number().int(), start: z.iso.datetime(), id: z.string().min(1) }).strict().optional(),
  })
  .strict();
type Cursor = z.infer<typeof cursorSchema>;

/**
 * One page of ingestion anomalies across the caller's mapped workspaces. The anomalies are computed
 * again for every page from the window fixed at the first page (so a default "last 24 hours" does
 * not slide) and paged by keyset over (severity, start, id): ids are stable, so a page boundary stays
 * where it was even when an ongoing anomaly grows. A workspace whose Log Analytics cannot be read
 * within the budget contributes nothing to the page and is reported in `unavailable`: the page is
 * the one the other workspaces make, and reading it again tries the reported ones again.
 */
export async function searchAnomalies(ctx: RequestContext, query: Query): Promise<{ data: Result; pagination: Pagination; unavailable: Unavailable[] }> {
  const listing = `datasource-anomalies:${filtersHash(query)}`;
  const cursor: Cursor = query.continuationToken
    ? readPageToken(ctx, query.continuationToken, listing, cursorSchema, "continuationToken")
    : { window: resolveWindow(query.window, ctx.now()) };
  const workspaces = await mappedLogAnalyticsWorkspaces(ctx, query.workspaceIds?.length ? query.workspaceIds : undefined);
  const { read, unavailable } = await readWorkspaces(ctx, workspaces, WORKSPACE_CONCURRENCY, (w, signal) => workspaceAnomalies(ctx, w, cursor.window, signal));
  const found = read.flatMap(({ value }) => value);
  const matching = found.filter((a) => matches(a, query)).sort(byRank);
  const rest = cursor.after ? matching.filter((a) => byRank(a, cursor.after!) > 0) : matching;
  const page = rest.slice(0, query.pageSize);
  const last = page.at(-1);
  const pagination: Pagination =
    rest.length > query.pageSize && last
      ? { hasMore: true, continuationToken: issuePageToken(ctx, listing, { window: cursor.window, after: { rank: rankOf(last), start: last.window.start, id: last.id } }) }
      : { hasMore: false };
  return { data: { window: cursor.window, workspaces: read.map(({ workspace }) => workspace.id), anomalies: page }, pagination, unavailable };
}

async function workspaceAnomalies(ctx: RequestContext, workspace: WorkspaceRecord, window: Cursor["window"], signal?: AbortSignal): Promise<AnomalyView[]> {
  const { logAnalytics } = ctx;
  const now = ctx.now();
  const history = requiredHistory(window);
  const latencyFrom = new Date(Math.max(Date.parse(history.from), Math.floor((now.getTime() - LATENCY_LOOKBACK_MS) / HOUR_MS) * HOUR_MS)).toISOString();
  const [connectors, series] = await Promise.all([
    logAnalytics.listDataConnectors(workspace.id, signal),
    logAnalytics.ingestionVolumes({ workspaceId: workspace.id, from: history.from, to: window.end, latencyFrom }, signal),
  ]);
  const names = new Map(connectors.map((c) => [c.id, c.name]));
  const anomalies = detectIngestionAnomalies([{ workspaceId: workspace.id, connectors, series }], { evaluate: window, now: now.toISOString() });
  return anomalies.map((a) => toView(a, workspace, names));
}

function toView(a: IngestionAnomaly, workspace: WorkspaceRecord, names: Map<string, string>): AnomalyView {
  return {
    id: a.id,
    workspaceId: a.workspaceId,
    workspaceName: workspace.name,
    connectorId: a.connectorId,
    connectorName: a.connectorId === null ? null : (names.get(a.connectorId) ?? null),
    source: a.source,
    table: a.table,
    kind: a.kind,
    window: { ...a.window },
    ongoing: a.ongoing,
    expected: { ...a.expected },
    observed: a.observed,
    unit: a.unit,
    deviationPct: a.deviationPct,
    severity: a.severity,
    suspectedCause: { ...a.suspectedCause },
    baselineSamples: a.baselineSamples,
  };
}

function matches(a: AnomalyView, q: Query): boolean {
  const tables = q.tables && new Set(q.tables.map((t) => t.toLowerCase()));
  return (
    (!q.sources?.length || (a.source !== null && q.sources.includes(a.source))) &&
    (!q.kinds?.length || q.kinds.includes(a.kind)) &&
    (!q.severities?.length || q.severities.includes(a.severity)) &&
    (!tables?.size || tables.has(a.table.toLowerCase())) &&
    (!q.connectorIds?.length || (a.connectorId !== null && q.connectorIds.includes(a.connectorId))) &&
    (!q.ongoingOnly || a.ongoing)
  );
}

/** Most severe first (rank 0 = High), then newest first, then by id. */
function rankOf(a: { severity: AnomalyView["severity"] }): number {
  return anomalySeverities.length - 1 - anomalySeverities.indexOf(a.severity);
}

function byRank(a: AnomalyView, b: AnomalyView | { rank: number; start: string; id: string }): number {
  const rankB = "rank" in b ? b.rank : rankOf(b);
  const startB = "rank" in b ? b.start : b.window.start;
  return rankOf(a) - rankB || (a.window.start > startB ? -1 : a.window.start < startB ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The window as whole UTC hours within the limits; default the last 24 hours. */
export function resolveWindow(window: Query["window"], now: Date): Cursor["window"] {
  const nowHour = Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS;
  const end = window ? Math.min(Math.ceil(Date.parse(window.end) / HOUR_MS) * HOUR_MS, nowHour) : nowHour;
  const start = window ? Math.floor(Date.parse(window.start) / HOUR_MS) * HOUR_MS : end - DAY_MS;
  const problems: string[] = [];
  if (!(start < end)) problems.push("window.start must be before window.end (and before now).");
  else if (end - start > MAX_ANOMALY_WINDOW_DAYS * DAY_MS) problems.push(`The window may span at most ${MAX_ANOMALY_WINDOW_DAYS} days.`);
  if (start < nowHour - MAX_ANOMALY_LOOKBACK_DAYS * DAY_MS) problems.push(`window.start may be at most ${MAX_ANOMALY_LOOKBACK_DAYS} days ago.`);
  if (problems.length > 0) throw new ApiError("VALIDATION_ERROR", problems.join(" "), { target: "window", errors: { window: problems } });
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/** The filters a token is bound to (everything but the page size and the token itself). */
function filtersHash(q: Query): string {
  const { pageSize: _size, continuationToken: _token, ...filters } = q;
  return createHash("sha256").update(JSON.stringify(filters)).digest("base64url").slice(0, 22);
}
