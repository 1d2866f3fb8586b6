import { expect } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";

/**
 * The ApiError a call fails with. Fails the test when the call succeeds or fails with anything else,
 * so a test can go on to check the error's code, status and message.
 */
export async function apiErrorOf(call: Promise<unknown> | (() => unknown)): Promise<ApiError> {
  const error = await (typeof call === "function" ? Promise.resolve().then(call) : call).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
