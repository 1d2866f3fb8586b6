import { ApiError, isApiError } from "../../../platform/errors/api-error";
import { isTimeout } from "../../../platform/upstream/transport-errors";
import { upstreamStatusError } from "../../../platform/upstream/upstream-status";

export const ARM_SYSTEM = "Azure Resource Manager";

/**
 * What the Azure SDK throws for an answered request: a RestError with the HTTP status, ARM's error
 * code (`ResourceGroupNotFound`, `AuthorizationFailed`, …) and the response headers. Recognised by
 * shape, as the SDK's own `isRestError` does, so that the SDK need not be loaded to classify it.
 */
export interface ArmRestError {
  name: "RestError";
  statusCode?: number;
  code?: string;
  response?: { headers: { get(name: string): string | undefined } };
}

export function isArmRestError(error: unknown): error is ArmRestError {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "RestError";
}

/** The ARM status of a failure, when ARM answered at all. */
export function armStatus(error: unknown): number | undefined {
  return isArmRestError(error) ? error.statusCode : undefined;
}

export interface ArmCallContext {
  /** The operation, for the detail: "listing the resource groups of subscription …". */
  what: string;
  /** The operation's own deadline. */
  deadline: AbortSignal;
  timeoutMs: number;
  /** The caller's signal (the client went away). */
  signal?: AbortSignal;
  now: Date;
}

/**
 * Contract 7 for Azure Resource Manager: an answered request maps by its status (404 NOT_FOUND,
 * 401/403 UPSTREAM_ERROR — the service's identity lacks a role, 429 RATE_LIMITED with ARM's
 * Retry-After, 408/504 TIMEOUT, 5xx UPSTREAM_ERROR); our deadline or a socket timeout is TIMEOUT;
 * anything else (unreachable, reset) is UPSTREAM_ERROR. ARM's message is never quoted: it can name
 * principals, tenants and resources of others.
 */
export function armFailure(error: unknown, context: ArmCallContext): ApiError {
  if (isApiError(error)) return error;
  const { what } = context;
  // The caller's abort wins over our deadline: the caller has gone, nobody waits for a TIMEOUT.
  if (context.signal?.aborted) {
    return new ApiError("UPSTREAM_ERROR", `Request aborted: the caller went away while ${what} at ${ARM_SYSTEM}.`, { cause: error });
  }
  if (context.deadline.aborted || isTimeout(error)) {
    return new ApiError("TIMEOUT", `${ARM_SYSTEM} did not answer within ${context.timeoutMs} ms while ${what}.`, { cause: error });
  }
  const status = armStatus(error);
  if (status !== undefined && isArmRestError(error)) {
    return upstreamStatusError(ARM_SYSTEM, { status, retryAfter: error.response?.headers.get("retry-after") }, what, context.now);
  }
  return new ApiError("UPSTREAM_ERROR", `${ARM_SYSTEM} could not be reached while ${what}.`, { cause: error });
}
