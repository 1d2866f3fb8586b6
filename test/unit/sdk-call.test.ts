import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { sdkCall, sdkErrorCode, sdkErrorStatus } from "../../shared/platform/upstream/sdk-call";
import { apiErrorOf } from "../support/api-error-of";

/** What an Azure SDK throws for an answered request, by shape (the SDK is not loaded). */
function restError(statusCode: number, code: string, headers: Record<string, string> = {}) {
  return Object.assign(new Error(`${code}: upstream text that must not reach the caller`), {
    name: "RestError",
    statusCode,
    code,
    response: { headers: { get: (name: string) => headers[name] } },
  });
}

const call = { system: "Azure Resource Manager", what: "listing subscriptions", timeoutMs: 5_000, now: () => new Date("2024-06-12T09:00:00Z") };

describe("sdkCall: every failure is an ApiError with the SDK's error as its cause", () => {
  it("maps an answered request by its status, keeping Retry-After", async () => {
    const thrown = restError(429, "TooManyRequests", { "retry-after": "37" });
    const error = await apiErrorOf(sdkCall(call, async () => Promise.reject(thrown)));
    expect(error).toMatchObject({ code: "RATE_LIMITED", headers: { "Retry-After": "37" } });
    expect(error.message).not.toContain("upstream text");
    expect(error.cause).toBe(thrown);
  });

  it("is TIMEOUT with the abort as cause when the deadline passes", async () => {
    const error = await apiErrorOf(sdkCall({ ...call, timeoutMs: 20 }, (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)))));
    expect(error.code).toBe("TIMEOUT");
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("is UPSTREAM_ERROR 'Request aborted', cause kept, when the caller goes away", async () => {
    const caller = new AbortController();
    const pending = sdkCall({ ...call, signal: caller.signal }, (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))));
    caller.abort();
    const error = await apiErrorOf(pending);
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain("caller went away");
    expect(error.cause).toBe(caller.signal.reason);
  });

  it("is UPSTREAM_ERROR with the cause kept when the upstream cannot be reached", async () => {
    const thrown = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { name: "RestError", code: "REQUEST_SEND_ERROR" });
    const error = await apiErrorOf(sdkCall(call, async () => Promise.reject(thrown)));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.cause).toBe(thrown);
  });

  it("passes an ApiError the operation threw itself through unchanged", async () => {
    const own = new ApiError("NOT_FOUND", "No such thing.");
    expect(await apiErrorOf(sdkCall(call, async () => Promise.reject(own)))).toBe(own);
  });
});

describe("sdkErrorStatus, sdkErrorCode", () => {
  it("read an answered failure's status and the upstream's code, and nothing from an unanswered one", () => {
    expect(sdkErrorStatus(restError(404, "ResourceGroupNotFound"))).toBe(404);
    expect(sdkErrorCode(restError(404, "ResourceGroupNotFound"))).toBe("ResourceGroupNotFound");
    const unanswered = Object.assign(new Error("reset"), { code: "ECONNRESET" });
    expect(sdkErrorStatus(unanswered)).toBeUndefined();
    expect(sdkErrorCode(unanswered)).toBeUndefined();
    expect(sdkErrorStatus(undefined)).toBeUndefined();
  });
});
