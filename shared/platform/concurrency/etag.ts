import { ApiError } from "../errors/api-error";

/**
 * Checks an optional `If-Match` against the current etag. A mismatch is 409 CONFLICT (the contract's
 * code for a version mismatch); `*` or no header matches anything.
 */
export function checkIfMatch(ifMatch: string | undefined, etag: string): void {
  if (ifMatch === undefined || ifMatch.trim() === "*") return;
  const offered = ifMatch.split(",").map((t) => t.trim().replace(/^W\//, ""));
  if (!offered.includes(etag)) {
    throw new ApiError("CONFLICT", "The resource has changed since you read it (If-Match does not match its ETag). Read it again.", {
      target: "If-Match",
    });
  }
}
