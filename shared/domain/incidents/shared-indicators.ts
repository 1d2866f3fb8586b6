import type { Uses } from "../operation-context";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { IncidentIndicators } from "../../model/incidents/incident-state-record";
import { indicatorOf, type IndicatorKind } from "./indicators";

/*
 * Indicators shared across a service provider's customers: the same indicator key in open incidents
 * of two or more customer organizations within a window. Read from the incident states the
 * reconciler keeps (no vendor call), grouped here.
 */

/** The windows a person chooses from, in hours: what "at once" means for a campaign. */
export const sharedIndicatorWindows = { "24h": 24, "3d": 72, "7d": 168, "14d": 336, "30d": 720 } as const;
export type SharedIndicatorWindow = keyof typeof sharedIndicatorWindows;

/** Customer organizations an indicator must be seen in to be shared. */
export const MIN_SHARED_CUSTOMERS = 2;
/**
 * Open incidents one comparison reads at most, newest first: a bound on the read and on what one
 * answer holds in memory (each row ~1 KB). Past it the oldest of the window are left out, and the
 * answer says so.
 */
export const MAX_COMPARED_INCIDENTS = 10_000;
/** Incidents one indicator lists at most, newest first; its counts are of all of them. */
export const MAX_INCIDENTS_PER_INDICATOR = 50;

export interface SharedIndicator {
  key: string;
  kind: IndicatorKind;
  value: string;
  /** The customer organizations it is in, in the order of their first incident. */
  accountIds: string[];
  incidentCount: number;
  /** The creation times of its oldest and newest incidents. */
  firstSeen: string;
  lastSeen: string;
  /** Newest first, at most `MAX_INCIDENTS_PER_INDICATOR`. */
  incidents: IncidentIndicators[];
}

/**
 * Groups incidents by indicator key and keeps the keys found in at least `minCustomers` distinct
 * accounts: most customers first, then most incidents, then the most recently seen, then by key; at
 * most `limit` (`more` when others were left out). Incidents are newest first (ties by workspace,
 * source and id).
 */
export function groupSharedIndicators(
  rows: readonly IncidentIndicators[],
  options: { limit: number; minCustomers?: number; incidentsPerIndicator?: number },
): { indicators: SharedIndicator[]; more: boolean } {
  const minCustomers = options.minCustomers ?? MIN_SHARED_CUSTOMERS;
  const perIndicator = options.incidentsPerIndicator ?? MAX_INCIDENTS_PER_INDICATOR;
  const newestFirst = [...rows].sort((a, b) => compare(b.createdAt, a.createdAt) || compare(a.workspaceId, b.workspaceId) || compare(a.source, b.source) || compare(a.incidentId, b.incidentId));
  const byKey = new Map<string, { accounts: Set<string>; incidents: IncidentIndicators[] }>();
  for (const row of newestFirst) {
    for (const key of new Set(row.indicators)) {
      let group = byKey.get(key);
      if (!group) byKey.set(key, (group = { accounts: new Set(), incidents: [] }));
      group.accounts.add(row.accountId);
      group.incidents.push(row);
    }
  }
  const shared: SharedIndicator[] = [];
  for (const [key, group] of byKey) {
    if (group.accounts.size < minCustomers) continue;
    const oldestFirstAccounts = [...group.incidents].reverse().map((i) => i.accountId);
    shared.push({
      key,
      ...indicatorOf(key),
      accountIds: [...new Set(oldestFirstAccounts)],
      incidentCount: group.incidents.length,
      firstSeen: group.incidents.at(-1)!.createdAt,
      lastSeen: group.incidents[0]!.createdAt,
      incidents: group.incidents.slice(0, perIndicator),
    });
  }
  shared.sort((a, b) => b.accountIds.length - a.accountIds.length || b.incidentCount - a.incidentCount || compare(b.lastSeen, a.lastSeen) || compare(a.key, b.key));
  return { indicators: shared.slice(0, Math.max(0, options.limit)), more: shared.length > options.limit };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface SharedIndicatorsResult {
  from: string;
  to: string;
  indicators: SharedIndicator[];
  /** More indicators were shared than the limit. */
  more: boolean;
  /** Open incidents with indicators compared. */
  comparedIncidents: number;
  /** The window held more than `MAX_COMPARED_INCIDENTS`: its oldest were not compared. */
  incidentsTruncated: boolean;
}

/**
 * The indicators shared by customers among these workspaces' open incidents created in the window:
 * one query of the incident states, grouped by key. Only the workspaces given are read, so every
 * count is of incidents the caller may see.
 */
export async function sharedIndicators(
  ctx: Uses<"stores" | "now">,
  workspaces: readonly WorkspaceRecord[],
  window: SharedIndicatorWindow,
  limit: number,
): Promise<SharedIndicatorsResult> {
  const now = ctx.now();
  const to = now.toISOString();
  const from = new Date(now.getTime() - sharedIndicatorWindows[window] * 3_600_000).toISOString();
  const { items, truncated } = await ctx.stores.incidents.openWithIndicators(
    workspaces.map((w) => w.id),
    from,
    MAX_COMPARED_INCIDENTS,
  );
  // A customer is the workspace's organization as it stands, whatever the state recorded.
  const accountOf = new Map(workspaces.map((w) => [w.id, w.accountId]));
  const rows = items.map((row) => ({ ...row, accountId: accountOf.get(row.workspaceId) ?? row.accountId }));
  const { indicators, more } = groupSharedIndicators(rows, { limit });
  return { from, to, indicators, more, comparedIncidents: items.length, incidentsTruncated: truncated };
}
