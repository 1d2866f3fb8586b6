/**
 * Runs `work` over `items` with at most `limit` in flight and answers the results in the items'
 * order. The first failure stops it: no further item is started, the ones in flight are told
 * through the signal `work` receives (which also follows `signal`, the caller's), and that first
 * error is thrown once they have settled, so nothing runs on unobserved.
 *
 * @example
 * const pages = await mapLimited(workspaces, 8, (w, signal) => gateway.listIncidents(w.id, signal));
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, signal: AbortSignal) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const stop = new AbortController();
  const combined = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const results = new Array<R>(items.length);
  let failure: { error: unknown } | undefined;
  let next = 0;
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, combined);
      } catch (error) {
        failure ??= { error };
        stop.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
