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
