import { call } from "./api/client";

/**
 * Optimistic concurrency: a resource is read with its `ETag`, and a change sends it back as
 * `If-Match`, so that the server refuses (409) a change made over someone else's.
 */

/** Reads a resource with its `ETag`, or throws the server's problem. */
export async function withEtag<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ value: T; etag: string | undefined }> {
  let etag: string | undefined;
  const value = await call(
    pending.then((result) => {
      etag = result.response.headers.get("ETag") ?? undefined;
      return result;
    }),
  );
  return { value, etag };
}

/** `If-Match` when there is a version to match. */
export function ifMatch(etag: string | undefined): Record<string, string> {
  return etag ? { "If-Match": etag } : {};
}
