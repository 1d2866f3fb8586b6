import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What `module.enableCompileCache` reports (Node ≥ 22.8), or why it was not called. */
export type CompileCacheOutcome =
  | { status: "enabled" | "already-enabled"; directory: string }
  | { status: "failed"; directory?: string; message: string }
  | { status: "disabled" | "unsupported" };

/** The part of `node:module` this needs; absent before Node 22.8 (`flushCompileCache`: 22.10). */
interface CompileCacheApi {
  enableCompileCache?: (directory?: string) => { status: number; message?: string; directory?: string };
  flushCompileCache?: () => void;
  constants?: { compileCacheStatus?: Record<"ENABLED" | "ALREADY_ENABLED" | "FAILED" | "DISABLED", number> };
}

/** How long after start the cache is written out, once what the start compiled is in it. */
export const COMPILE_CACHE_FLUSH_DELAY_MS = 5_000;

/**
 * Turns on Node's compile cache for what the process loads from here on: V8 keeps the code it
 * compiled for each module in `directory` and the next process on the same machine loads it from
 * there instead of compiling again. The deployment package's function files call this before they
 * require the bundled app, which is most of what a cold start compiles.
 *
 * The directory must be writable: on Flex Consumption the app's own folder is a read-only package
 * and the instance's temporary folder (`os.tmpdir()`, /tmp) is local to the instance, so a worker
 * that starts again on the same instance (a restart, a recycled worker) finds the cache its
 * predecessor wrote, while a new instance writes it once. `NODE_COMPILE_CACHE` names another
 * directory (Node itself then turns the cache on at start) and `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off. Node 20 has no compile cache: there this does nothing.
 *
 * Node keeps what it compiles in memory and writes it out when the process exits; a worker that the
 * platform stops without a clean exit would never write it, so it is also written a few seconds after
 * start (`schedule`), once the bundle (compiled as it is required, right after this) is in it.
 */
export function enableCompileCache(
  env: NodeJS.ProcessEnv = process.env,
  api: CompileCacheApi = nodeModule as unknown as CompileCacheApi,
  schedule: (write: () => void) => void = (write) => setTimeout(write, COMPILE_CACHE_FLUSH_DELAY_MS).unref(),
): CompileCacheOutcome {
  if (typeof api.enableCompileCache !== "function") return { status: "unsupported" };
  const directory = env.NODE_COMPILE_CACHE || join(tmpdir(), "secops-compile-cache");
  try {
    const result = api.enableCompileCache(directory);
    const codes = api.constants?.compileCacheStatus;
    if (result.status === codes?.ENABLED) {
      const flush = api.flushCompileCache;
      if (typeof flush === "function") {
        schedule(() => {
          try {
            flush.call(api);
          } catch {
            // Written at exit anyway; a failed early write costs nothing but the early copy.
          }
        });
      }
      return { status: "enabled", directory: result.directory ?? directory };
    }
    if (result.status === codes?.ALREADY_ENABLED) return { status: "already-enabled", directory: result.directory ?? directory };
    if (result.status === codes?.DISABLED) return { status: "disabled" };
    return { status: "failed", directory, message: result.message ?? `status ${result.status}` };
  } catch (error) {
    // A cache that cannot be set up costs the start nothing more than having none.
    return { status: "failed", directory, message: error instanceof Error ? error.message : String(error) };
  }
}
