/** One item's outcome: its result, its failure, still running when the time was up, or never started. */
export type Settled<R> =
  | { status: "fulfilled"; value: R }
  | { status: "rejected"; reason: unknown }
  | { status: "late" }
  | { status: "unstarted" };

/**
 * Runs `work` over `items` with at most `limit` in flight, and answers when all have settled or
 * `budgetMs` has passed, whichever comes first: each item's outcome, in the items' order. One failure
 * does not stop the others (unlike `mapLimited`). At the budget, items not yet started are not
 * started, and those still running are left to finish on their own, their outcome unobserved (an
 * upstream's breaker still learns it): the caller answers with what it has rather than wait on the
 * slowest upstream.
 *
 * @example
 * const pages = await settleWithin(streams, 16, 2_500, (s, signal) => gateway.listIncidents(s.query, signal));
 * pages.forEach((p, i) => p.status === "fulfilled" ? use(p.value) : report(streams[i], p));
 */
export async function settleWithin<T, R>(
  items: readonly T[],
  limit: number,
  budgetMs: number,
  work: (item: T, signal?: AbortSignal) => Promise<R>,
  signal?: AbortSignal,
): Promise<Settled<R>[]> {
  const results: Settled<R>[] = items.map(() => ({ status: "unstarted" }));
  let next = 0;
  let timeUp = false;
  const worker = async () => {
    while (!timeUp && next < items.length) {
      const index = next++;
      results[index] = { status: "late" };
      try {
        const value = await work(items[index]!, signal);
        if (!timeUp) results[index] = { status: "fulfilled", value };
      } catch (reason) {
        if (!timeUp) results[index] = { status: "rejected", reason };
      }
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budgetMs);
  });
  try {
    await Promise.race([Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker)), deadline]);
  } finally {
    clearTimeout(timer);
    timeUp = true;
  }
  return results;
}
