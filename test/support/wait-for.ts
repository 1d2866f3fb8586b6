/**
 * Polls `probe` until it returns something truthy, and returns that; fails naming `what` after
 * `timeoutMs`. For asynchronous effects (deliveries, log entries) on a loaded machine: wait for the
 * outcome, never for a fixed time.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Resolves once the clock has moved past `instant` (an ISO time). A reconciler pass reads each
 * vendor's window up to its own start, that millisecond excluded (the next pass takes it): a test
 * that creates an incident and reconciles at once must let the millisecond of its creation pass, or
 * the incident may fall to the pass after.
 */
export async function clockPast(instant: string): Promise<void> {
  // Polled against the wall clock the pass reads, not one timer: a timer keeps its own clock.
  while (Date.now() <= Date.parse(instant)) await new Promise((r) => setTimeout(r, 1));
}
