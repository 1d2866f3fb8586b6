import { ApiError } from "../errors/api-error";

/** A file part of a `multipart/form-data` body. */
export interface UploadedFile {
  fileName: string;
  /** As the client declared it; the route decides what it accepts. */
  contentType: string;
  bytes: Buffer;
}

/**
 * Reads a `multipart/form-data` body (RFC 7578) with the runtime's own parser (undici's
 * `Response.formData()`), into an object the route's schema validates: text fields as strings,
 * file parts as `UploadedFile`, a repeated name as an array. Without a prototype, so a field named
 * `__proto__` is an ordinary (unknown) key. Another media type is 415; a body the parser cannot
 * read (no boundary, truncated) is 400.
 */
export async function parseMultipartBody(raw: Buffer, contentType: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (raw.length === 0) return undefined;
  const type = contentType?.split(";")[0]!.trim().toLowerCase();
  if (type !== "multipart/form-data") {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", `Send the body as multipart/form-data${type ? `, not ${type}` : " (Content-Type is missing)"}.`, {
      target: "Content-Type",
    });
  }
  let form: FormData;
  try {
    // A request body is never a SharedArrayBuffer's view: the cast only narrows the buffer's type, as
    // the DOM's BodyInit (seen by the browser tests' compilation) asks.
    form = await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType! } }).formData();
  } catch {
    throw new ApiError("BAD_REQUEST", "The multipart/form-data body could not be read: check its boundary and that every part is complete.");
  }
  const out = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of form.entries()) {
    const part =
      typeof value === "string"
        ? value
        : ({ fileName: value.name, contentType: value.type || "application/octet-stream", bytes: Buffer.from(await value.arrayBuffer()) } satisfies UploadedFile);
    const existing = out[name];
    out[name] = existing === undefined ? part : Array.isArray(existing) ? [...existing, part] : [existing, part];
  }
  return out;
}
