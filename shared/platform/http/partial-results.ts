import { z } from "zod";
import { errorCodes, type ApiError, type ErrorCode } from "../errors/api-error";
import { BREAKER_FAILURE_CODES, isCircuitOpen } from "../upstream/circuit-breaker";

/**
 * The report a cross-workspace answer carries in `meta.unavailable`: each workspace (and, for the
 * incident listing, each source) that could not be read for this answer, and why. The answer holds
 * what the others gave, as Log Analytics' cross-workspace queries return their partial result with
 * an error per failing workspace. Empty when everything was read.
 */
export const unavailableEntry = z
  .object({
    workspaceId: z.string().describe("The workspace that could not be read."),
    workspaceName: z.string(),
    source: z.string().optional().describe("The source that could not be read (the incident listing); absent where the whole workspace is meant."),
    code: z.enum(Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]]).describe("The problem code a read of it alone would have answered: `UPSTREAM_ERROR`, `TIMEOUT` or `RATE_LIMITED`, or `NOT_FOUND` where the vendor does not know the workspace."),
    detail: z.string().describe("What happened, as a problem's `detail` says it."),
    retryAfterSeconds: z.int().optional().describe("When it is worth trying again, where known (the vendor's `Retry-After`, or the breaker's cool-down)."),
    circuitOpen: z.boolean().describe("True when no call was made: the circuit breaker of this workspace (or of the whole source) is open after repeated failures."),
    gaveUp: z.boolean().describe("True when the listing has stopped trying it: its token is gone from `sourcePageTokens`, and its incidents not yet listed are not in this listing. Start a new listing to try it again."),
    failedPages: z.int().optional().describe("The incident listing: pages in a row on which this stream has failed."),
  })
  .strict();
export type Unavailable = z.infer<typeof unavailableEntry>;

/** `meta` of a cross-workspace answer: the contract's two fields and the report. */
export const partialMeta = z.object({
  requestId: z.string(),
  timestamp: z.iso.datetime(),
  unavailable: z.array(unavailableEntry).describe("The workspaces (and sources) this answer could not read, and why; empty when every one was read."),
});

/** A report entry for `error`, the failure of reading `workspace` (and `source`). */
export function unavailableOf(
  workspace: { id: string; name: string },
  error: ApiError,
  extra: { source?: string; gaveUp?: boolean; failedPages?: number } = {},
): Unavailable {
  const seconds = Number(error.headers["Retry-After"]);
  return {
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    ...(extra.source === undefined ? {} : { source: extra.source }),
    code: error.code,
    detail: error.message,
    ...(Number.isInteger(seconds) && seconds > 0 ? { retryAfterSeconds: seconds } : {}),
    circuitOpen: isCircuitOpen(error),
    gaveUp: extra.gaveUp ?? false,
    ...(extra.failedPages === undefined ? {} : { failedPages: extra.failedPages }),
  };
}

/**
 * Whether a workspace's failure is one it may recover from (reported and retried), rather than a
 * lasting answer: the failures the circuit breakers count.
 */
export function isTransient(error: ApiError): boolean {
  return BREAKER_FAILURE_CODES.includes(error.code);
}
