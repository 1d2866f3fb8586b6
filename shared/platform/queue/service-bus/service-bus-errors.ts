import { ApiError, isApiError } from "../../errors/api-error";

/**
 * Translates a Service Bus SDK failure (after the SDK's own retries) into the contract's code:
 * throttling is RATE_LIMITED, a timeout is TIMEOUT, anything else the broker or the connection did
 * is UPSTREAM_ERROR. The SDK error stays as `cause`, for the log. A TypeError is the SDK rejecting
 * our arguments, a defect: it comes back unchanged and the pipeline reports INTERNAL_ERROR.
 *
 * @example
 * try { await sender.sendMessages(batch); } catch (error) { throw translateServiceBusError(error); }
 */
export function translateServiceBusError(error: unknown): unknown {
  if (isApiError(error) || error instanceof TypeError) return error;
  // The SDK is loaded by then: only a Service Bus sender produces these errors.
  const { isServiceBusError } = require("@azure/service-bus") as typeof import("@azure/service-bus");
  if (isServiceBusError(error)) {
    switch (error.code) {
      case "ServiceBusy":
        // Service Bus asks a throttled client to back off for about 10 seconds.
        return new ApiError("RATE_LIMITED", "The message queue is busy. Retry later.", {
          headers: { "Retry-After": "10" },
          cause: error,
        });
      case "ServiceTimeout":
        return new ApiError("TIMEOUT", "The message queue did not answer in time.", { cause: error });
    }
  }
  // Unauthorized, entity not found, quota exceeded, connection lost, a credential that could not get
  // a token: all are upstream failures from the caller's point of view.
  return new ApiError("UPSTREAM_ERROR", "The message queue is unavailable.", { cause: error });
}
