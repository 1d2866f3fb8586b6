/** One item's outcome: its result, its failure, still running when its time was up, or never started. */
export type Settled<R> =
  | { status: "fulfilled"; value: R }
  | { status: "rejected"; reason: unknown }
  | { status: "late" }
  | { status: "unstarted" };

/**
 * How long `settleWithin` waits: `totalMs` for the whole (a page's budget), `eachMs` for any one
 * item from its own start (an answer that must read every item, but not wait on one slow upstream).
 */
export interface SettleBudget {
  totalMs?: number;
  eachMs?: number;
}

/**
 * Runs `work` over `items` with at most `limit` in flight, and answers when all have settled or the
 * budget is spent: each item's outcome, in the items' order. One failure does not stop the others
 * (unlike `mapLimited`). An item past its time is `late`; with a total budget, items not started by
 * then are not started (`unstarted`). Late items are left to finish on their own, their outcome
 * unobserved (an upstream's breaker still learns it): the caller answers with what it has rather
 * than wait on the slowest upstream.
 *
 * @example
 * const pages = await settleWithin(streams, 16, { totalMs: 2_500 }, (s, signal) => gateway.listIncidents(s.query, signal));
 * pages.forEach((p, i) => p.status === "fulfilled" ? use(p.value) : report(streams[i], p));
 */
export async function settleWithin<T, R>(
  items: readonly T[],
  limit: number,
  budget: SettleBudget,
  work: (item: T, signal?: AbortSignal) => Promise<R>,
  signal?: AbortSignal,
): Promise<Settled<R>[]> {
  const results: Settled<R>[] = items.map(() => ({ status: "unstarted" }));
  let next = 0;
  let timeUp = false;
  const timers = new Set<NodeJS.Timeout>();
  /** Resolves "late" after `ms`; the timer goes when the race is over. */
  const after = (ms: number) => {
    let timer!: NodeJS.Timeout;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), ms);
      timers.add(timer);
    });
    return { late, done: () => (clearTimeout(timer), timers.delete(timer)) };
  };
  const worker = async () => {
    while (!timeUp && next < items.length) {
      const index = next++;
      results[index] = { status: "late" };
      const running = work(items[index]!, signal).then(
        (value): Settled<R> => ({ status: "fulfilled", value }),
        (reason): Settled<R> => ({ status: "rejected", reason }),
      );
      let outcome: Settled<R> | "late";
      if (budget.eachMs === undefined) outcome = await running;
      else {
        const own = after(budget.eachMs);
        outcome = await Promise.race([running, own.late]);
        own.done();
      }
      if (!timeUp && outcome !== "late") results[index] = outcome;
    }
  };
  const all = Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  const total = budget.totalMs === undefined ? undefined : after(budget.totalMs);
  try {
    await (total ? Promise.race([all, total.late]) : all);
  } finally {
    total?.done();
    timeUp = true;
    for (const timer of timers) clearTimeout(timer);
  }
  return results;
}
