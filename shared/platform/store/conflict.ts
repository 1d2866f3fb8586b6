import { ApiError } from "../errors/api-error";

/*
 * The errors every store adapter raises, built in one place so that the memory and Cosmos adapters
 * give callers the same codes and the same words. `cause` keeps an adapter's own error for the logs.
 */

/** The store's own conflicts: another writer came between a read and a write. */
const lostRaces = new WeakSet<ApiError>();

function lostRace(error: ApiError): ApiError {
  lostRaces.add(error);
  return error;
}

/**
 * Whether `error` is a lost race (a stale etag, or a create beaten by another create) rather than a
 * CONFLICT a rule answered: the unit of work runs again on a fresh read only after a lost race.
 */
export function isLostRace(error: unknown): boolean {
  return error instanceof ApiError && lostRaces.has(error);
}

/** A write carried an etag that is no longer current: someone else wrote in between. */
export function concurrentWrite(kind: string, cause?: unknown): ApiError {
  return lostRace(new ApiError("CONFLICT", `The ${kind} was changed by another request. Read it again and retry.`, { cause }));
}

/** A create hit an id that is already taken: another create got there first, or it exists. */
export function alreadyExists(kind: string, id: string, cause?: unknown): ApiError {
  return lostRace(new ApiError("CONFLICT", `${kind} ${id} already exists.`, { cause }));
}

/** A conditional write (replace or delete) found no document to apply to. */
export function missingDocument(kind: string, cause?: unknown): ApiError {
  return new ApiError("NOT_FOUND", `${kind} was not found.`, { cause });
}
