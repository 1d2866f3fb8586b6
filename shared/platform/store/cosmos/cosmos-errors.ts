import { ApiError } from "../../errors/api-error";
import { alreadyExists, concurrentWrite, missingDocument } from "../conflict";

export type CosmosOperation = "read" | "query" | "create" | "upsert" | "replace" | "delete" | "batch";

export interface CosmosErrorContext {
  operation: CosmosOperation;
  /** The document kind in messages, as the memory adapter names it ("service account"). */
  kind: string;
  id?: string;
}

/**
 * Translates a Cosmos SDK failure into the ApiError the memory adapter would raise for the same
 * situation, or into the contract's code for an upstream failure. Anything else comes back
 * unchanged: it is a defect (a missing container, a bad query), and the pipeline reports it as
 * INTERNAL_ERROR.
 *
 * @example
 * try { await item.replace(doc, options); } catch (error) { throw translateCosmosError(error, { operation: "replace", kind: "user" }); }
 */
export function translateCosmosError(error: unknown, context: CosmosErrorContext): unknown {
  const code = codeOf(error);
  const { operation, kind } = context;
  switch (code) {
    case 412: // IfMatch failed: the document changed since it was read.
      return concurrentWrite(kind, error);
    case 409:
      // Without unique-key policies, only a create can collide (on the id).
      return operation === "create" || operation === "batch" ? alreadyExists(kind, context.id ?? "(unknown id)", error) : error;
    case 404:
      // On a conditional write, 404 means the document is gone. On a read or query it means the
      // database or container is missing, which is a deployment defect, not the caller's problem.
      return operation === "replace" || operation === "delete" ? missingDocument(kind, error) : error;
    case 429: {
      // The SDK has already retried with back-off; this is the throttling that remained.
      const retryAfterMs = retryAfterOf(error);
      return new ApiError("RATE_LIMITED", "The data store is busy. Retry later.", {
        headers: retryAfterMs === undefined ? {} : { "Retry-After": String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
        cause: error,
      });
    }
    case 408:
    case 504:
    case "TimeoutError": // The SDK's own request timeout.
    case "ETIMEDOUT":
      return new ApiError("TIMEOUT", "The data store did not answer in time.", { cause: error });
    case 503: // Unavailable after the SDK's retries and region failover: an upstream 5xx.
      return new ApiError("UPSTREAM_ERROR", "The data store is unavailable.", { cause: error });
    default:
      return error;
  }
}

/** `code` of an ErrorResponse (HTTP status), a TimeoutError or a Node system error. */
function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}

function retryAfterOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("retryAfterInMs" in error)) return undefined;
  return typeof error.retryAfterInMs === "number" ? error.retryAfterInMs : undefined;
}
