import type { z } from "zod";
import { invalidPageToken } from "../../platform/errors/api-error";

/**
 * An adapter's resume point as an opaque string (base64url of JSON). The endpoints wrap it in their
 * signed page token, so a caller cannot forge it; the check here keeps a stale or foreign cursor from
 * being trusted all the same.
 */
export function encodeLogCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

export function decodeLogCursor<S extends z.ZodType>(cursor: string, schema: S): z.output<S> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidPageToken("cursor");
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw invalidPageToken("cursor");
  return result.data;
}
