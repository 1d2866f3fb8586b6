import { ApiError } from "../errors/api-error";

/*
 * The errors every store adapter raises, built in one place so that the memory and Cosmos adapters
 * give callers the same codes and the same words. `cause` keeps an adapter's own error for the logs.
 */

/** A write carried an etag that is no longer current: someone else wrote in between. */
export function concurrentWrite(kind: string, cause?: unknown): ApiError {
  return new ApiError("CONFLICT", `The ${kind} was changed by another request. Read it again and retry.`, { cause });
}

/** A create hit an id that is already taken. */
export function alreadyExists(kind: string, id: string, cause?: unknown): ApiError {
  return new ApiError("CONFLICT", `${kind} ${id} already exists.`, { cause });
}

/** A conditional write (replace or delete) found no document to apply to. */
export function missingDocument(kind: string, cause?: unknown): ApiError {
  return new ApiError("NOT_FOUND", `${kind} was not found.`, { cause });
}
