import type { GamebookRunCursor, GamebookRunSpan, GamebookRunStore } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { HistoryReads } from "./history-reads";

/** Where a merge starts to reach a deep page: a position, and the runs still to pass from there. */
export interface Sought {
  /** Undefined: from the newest run. */
  start: GamebookRunCursor | undefined;
  skip: number;
}

/**
 * Finds where the run `skip` places after `from` (in the newest-first order across the workspaces)
 * stands, by counting rather than by reading the runs before it: the answer is a position from which
 * at most `within` runs remain to be passed (more only when the runs of one millisecond outnumber
 * it), or undefined when fewer than `skip + 1` runs follow `from`.
 *
 * The position is a creation instant t: every run at or after t comes before it, so the number of
 * runs before it is the sum over the workspaces of a range count (`span`), and that number falls as t
 * rises. The search keeps an instant whose count is at most `skip` (hi) and one whose count is more
 * (lo), starting from the workspaces' newest and oldest runs, and tries an instant between them,
 * interpolated towards `skip - within / 2` as if each workspace's runs were spread evenly over its
 * history, or halfway when the
 * last try did not halve the interval (uneven histories still converge like a bisection). Each try
 * counts only in the workspaces that have runs between lo and hi, which after a few tries are few.
 * A workspace that becomes unavailable on the way is left out and the search starts again without it.
 */
export async function seekByCounts(reads: HistoryReads, workspaces: readonly WorkspaceRecord[], from: GamebookRunCursor | undefined, skip: number, within: number): Promise<Sought | undefined> {
  const spanOf = (since?: number) => (store: GamebookRunStore, workspace: WorkspaceRecord) =>
    store.span(workspace.id, reads.filter, { before: from, ...(since === undefined ? {} : { since: new Date(since).toISOString() }) });

  for (;;) {
    const live = workspaces.filter((w) => reads.isIn(w));
    const totals = await reads.each(live, spanOf());
    if (totals.includes(undefined)) continue;
    const spans = totals as GamebookRunSpan[];
    const total = sum(spans.map((s) => s.count));
    if (total <= skip) return undefined;

    // Counts per workspace at lo and at hi: a workspace whose two counts are equal has no run
    // between them, so its count anywhere between is known without asking.
    let lo = Math.min(...spans.filter((s) => s.count > 0).map((s) => Date.parse(s.oldest!)));
    let hi = Math.max(...spans.filter((s) => s.count > 0).map((s) => Date.parse(s.newest!))) + 1;
    let atLo = spans.map((s) => s.count);
    let atHi = spans.map(() => 0);
    let below = total;
    let above = 0;
    let halve = false;
    let lost = false;
    // Each workspace's runs between lo and hi, as if spread evenly over the part of the interval
    // its history covers (histories of different lengths are what a provider's workspaces have).
    const models = (): Model[] =>
      spans.flatMap((s, i) =>
        atLo[i]! === atHi[i]! ? [] : [{ from: Math.max(lo, Date.parse(s.oldest!)), to: Math.min(hi, Date.parse(s.newest!) + 1), atFrom: atLo[i]!, atTo: atHi[i]! }],
      );
    const known = () => sum(atHi.filter((v, i) => v === atLo[i]));
    while (skip - above > within && hi - lo > 1) {
      const t = halve ? Math.floor((lo + hi) / 2) : interpolated(lo, hi, models(), skip - Math.floor(within / 2), known());
      const open = live.flatMap((_, i) => (atLo[i]! > atHi[i]! ? [i] : []));
      const counted = await reads.each(open.map((i) => live[i]!), spanOf(t));
      if (counted.includes(undefined)) {
        lost = true;
        break;
      }
      const at = [...atHi];
      open.forEach((i, k) => (at[i] = counted[k]!.count));
      const count = sum(at);
      const between = below - above;
      if (count <= skip) [hi, atHi, above] = [t, at, count];
      else [lo, atLo, below] = [t, at, count];
      // A guess that did not halve the runs between lo and hi is followed by halving the time between them.
      halve = below - above > between / 2;
    }
    if (lost) continue;
    // Every run at or after hi comes first: the merge starts just before hi (an empty id sorts
    // before every id), or at `from` when none does (hi is then past `from`).
    return { start: above === 0 ? from : { creationDate: new Date(hi).toISOString(), id: "" }, skip: skip - above };
  }
}

/** One workspace's expected count of runs at or after t, for t between `from` and `to`. */
interface Model {
  from: number;
  to: number;
  atFrom: number;
  atTo: number;
}

/**
 * The instant strictly between lo and hi where the models add up to `target` (with `fixed`, the
 * counts of the workspaces with no run between lo and hi): a bisection in memory, no store read.
 */
function interpolated(lo: number, hi: number, models: readonly Model[], target: number, fixed: number): number {
  const expected = (t: number) =>
    fixed + sum(models.map((m) => (t <= m.from ? m.atFrom : t >= m.to ? m.atTo : m.atFrom - ((m.atFrom - m.atTo) * (t - m.from)) / (m.to - m.from))));
  let low = lo + 1;
  let high = hi - 1;
  // The expected count falls as t rises: find the first instant where it is at most the target.
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (expected(mid) <= target) high = mid;
    else low = mid + 1;
  }
  return low;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
