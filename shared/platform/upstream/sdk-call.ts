import { ApiError, isApiError } from "../errors/api-error";
import { isTimeout } from "./transport-errors";
import { upstreamStatusError } from "./upstream-status";

/**
 * How an Azure SDK call is made: under a deadline, with the caller's abort, and with every failure
 * turned into an ApiError by docs/contract.md §7's rules, as the JSON bridge client does for plain HTTP. The
 * SDK's own error text (which can quote the upstream's body) stays in `cause`.
 *
 * Build the SDK clients with `retryOptions: { maxRetries: 0 }`, or with a retry policy that never
 * sleeps on a 429 (the ARM cloud inventory's): an upstream 429 then reaches the caller as
 * RATE_LIMITED with its `Retry-After`, instead of the SDK sleeping inside the request.
 *
 * Inside `run`, an answer that is not a failure for this operation (a 404 meaning "absent") is read
 * with `sdkErrorStatus` and `sdkErrorCode`; what `run` throws on is mapped here.
 *
 * @example
 * const tables = await sdkCall({ system: "Azure Monitor", what: "listing tables", timeoutMs, signal }, (abortSignal) =>
 *   collect(client.tables.listByWorkspace(group, name, { abortSignal })));
 */
export interface SdkCall {
  system: string;
  /** The operation, for error details: "querying the Usage table of workspace w1". */
  what: string;
  timeoutMs: number;
  /** The caller's signal: its abort wins over the deadline. */
  signal?: AbortSignal;
  now?: () => Date;
}

export async function sdkCall<T>(call: SdkCall, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const combined = call.signal ? AbortSignal.any([deadline, call.signal]) : deadline;
  try {
    return await run(combined);
  } catch (error) {
    throw sdkError(call, error, deadline);
  }
}

/**
 * The SDKs' RestError carries the HTTP status, the upstream's own error code (ARM's
 * `ResourceGroupNotFound`, `AuthorizationFailed`, …) and the response's headers. Recognised by shape,
 * so that the SDK need not be loaded to classify what it threw.
 */
interface RestErrorLike {
  name?: string;
  statusCode?: number;
  code?: string;
  response?: { headers?: { get(name: string): string | undefined } };
}

/** The HTTP status of an SDK failure when the upstream answered; undefined when it did not. */
export function sdkErrorStatus(error: unknown): number | undefined {
  const status = typeof error === "object" && error !== null ? (error as RestErrorLike).statusCode : undefined;
  return typeof status === "number" && status > 0 ? status : undefined;
}

/** The upstream's own error code of an answered SDK failure (`ResourceGroupNotFound`), if it sent one. */
export function sdkErrorCode(error: unknown): string | undefined {
  if (sdkErrorStatus(error) === undefined) return undefined;
  const code = (error as RestErrorLike).code;
  return typeof code === "string" ? code : undefined;
}

function sdkError(call: SdkCall, error: unknown, deadline: AbortSignal): ApiError {
  if (isApiError(error)) return error;
  const { system, what } = call;
  if (call.signal?.aborted) {
    return new ApiError("UPSTREAM_ERROR", `Request aborted: the caller went away while ${what} at ${system}.`, { cause: error });
  }
  const rest = (error ?? {}) as RestErrorLike;
  const status = sdkErrorStatus(error);
  if (status !== undefined) {
    const mapped = upstreamStatusError(system, { status, retryAfter: rest.response?.headers?.get("retry-after") }, what, (call.now ?? (() => new Date()))());
    return new ApiError(mapped.code, mapped.message, { errors: mapped.errors, headers: mapped.headers, cause: error });
  }
  if (deadline.aborted || rest.name === "AbortError" || isTimeout(error)) {
    return new ApiError("TIMEOUT", `${system} did not answer within ${call.timeoutMs} ms while ${what}.`, { cause: error });
  }
  return new ApiError("UPSTREAM_ERROR", `${system} could not be reached or answered unreadably while ${what}.`, { cause: error });
}
