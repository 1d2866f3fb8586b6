import { ApiError } from "../errors/api-error";
import { retryAfterSeconds } from "./retry-after";

export interface UpstreamAnswer {
  status: number;
  /** The upstream's `Retry-After`, relayed on 429 as whole seconds. */
  retryAfter?: string | null;
}

/**
 * docs/contract.md §7 rule 1, for any upstream system (vendor bridges, Microsoft Graph, Azure Resource
 * Manager, ticketing, automation): an upstream 4xx becomes the matching caller-facing code, and only
 * 5xx, opaque answers and a refused service credential (401/403) stay UPSTREAM_ERROR. `system` and
 * `what` make the detail ("SourceA … while reading incident 42"); no upstream body is ever quoted.
 *
 * @example throw upstreamStatusError("Microsoft Graph", { status: 429, retryAfter: "30" }, "listing sign-ins", new Date());
 */
export function upstreamStatusError(system: string, answer: UpstreamAnswer, what: string, now: Date): ApiError {
  const { status } = answer;
  const detail = (problem: string) => `${system} ${problem} (status ${status}) while ${what}.`;
  switch (status) {
    case 404:
      return new ApiError("NOT_FOUND", detail("found no such resource"));
    // 422 is the upstream understanding the request and refusing its content (e.g. closing without a
    // classification): the caller's input was rejected, which is VALIDATION_ERROR, not an opaque failure.
    case 400:
    case 422: {
      const message = detail("rejected the request as invalid");
      return new ApiError("VALIDATION_ERROR", message, { errors: { "": [message] } });
    }
    case 409:
      return new ApiError("CONFLICT", detail("reported a conflict with the resource's current state"));
    case 429: {
      const seconds = retryAfterSeconds(answer.retryAfter, now);
      return new ApiError("RATE_LIMITED", detail("is rate limiting the service"), {
        headers: seconds === undefined ? {} : { "Retry-After": String(seconds) },
      });
    }
    case 408:
    case 504:
      return new ApiError("TIMEOUT", detail("timed out"));
    case 401:
    case 403:
      return new ApiError("UPSTREAM_ERROR", detail("refused the service's credential"));
    default: {
      // A 503 (or any 5xx) with Retry-After says when to come back: relayed, and honoured by the source limiter.
      const seconds = status >= 500 ? retryAfterSeconds(answer.retryAfter, now) : undefined;
      return new ApiError("UPSTREAM_ERROR", detail(status >= 500 ? "failed" : "answered unexpectedly"), {
        headers: seconds === undefined ? {} : { "Retry-After": String(seconds) },
      });
    }
  }
}
