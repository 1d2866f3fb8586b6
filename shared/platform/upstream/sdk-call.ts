import { ApiError, isApiError } from "../errors/api-error";
import { isTimeout } from "./transport-errors";
import { upstreamStatusError } from "./upstream-status";

/**
 * How an Azure SDK call is made: under a deadline, with the caller's abort, and with every failure
 * turned into an ApiError by contract 7's rules, as the JSON bridge client does for plain HTTP. The
 * SDK's own error text (which can quote the upstream's body) stays in `cause`.
 *
 * Build the SDK clients with `retryOptions: { maxRetries: 0 }`: an upstream 429 then reaches the
 * caller as RATE_LIMITED with its `Retry-After`, instead of the SDK sleeping inside the request.
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

/** The SDKs' RestError carries `statusCode` and the response's headers. */
interface RestErrorLike {
  name?: string;
  statusCode?: number;
  response?: { headers?: { get(name: string): string | undefined } };
}

function sdkError(call: SdkCall, error: unknown, deadline: AbortSignal): ApiError {
  if (isApiError(error)) return error;
  const { system, what } = call;
  if (call.signal?.aborted) {
    return new ApiError("UPSTREAM_ERROR", `Request aborted: the caller went away while ${what} at ${system}.`, { cause: error });
  }
  const rest = (error ?? {}) as RestErrorLike;
  if (typeof rest.statusCode === "number" && rest.statusCode > 0) {
    const mapped = upstreamStatusError(system, { status: rest.statusCode, retryAfter: rest.response?.headers?.get("retry-after") }, what, (call.now ?? (() => new Date()))());
    return new ApiError(mapped.code, mapped.message, { errors: mapped.errors, headers: mapped.headers, cause: error });
  }
  if (deadline.aborted || rest.name === "AbortError" || isTimeout(error)) {
    return new ApiError("TIMEOUT", `${system} did not answer within ${call.timeoutMs} ms while ${what}.`, { cause: error });
  }
  return new ApiError("UPSTREAM_ERROR", `${system} could not be reached or answered unreadably while ${what}.`, { cause: error });
}
