import { ApiError } from "../errors/api-error";

/** A file part of a `multipart/form-data` body. */
export interface UploadedFile {
  fileName: string;
  /** As the client declared it; the route decides what it accepts. */
  contentType: string;
  bytes: Buffer;
}

/**
 * Most parts a body may hold. An upload is a file and a few fields; undici's parser reads every part
 * before anything can judge them, so a body of a hundred thousand empty parts would hold the event
 * loop for seconds. The parts are counted first, by a scan that stops at this many.
 */
export const MAX_MULTIPART_PARTS = 8;

/**
 * Reads a `multipart/form-data` body (RFC 7578) with the runtime's own parser (undici's
 * `Response.formData()`), into an object the route's schema validates: text fields as strings,
 * file parts as `UploadedFile`, a repeated name as an array. Without a prototype, so a field named
 * `__proto__` is an ordinary (unknown) key. Another media type is 415; a body the parser cannot
 * read (no boundary, truncated) is 400; so is one of more than `MAX_MULTIPART_PARTS` parts, before
 * any part is parsed.
 */
export async function parseMultipartBody(raw: Buffer, contentType: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (raw.length === 0) return undefined;
  const type = contentType?.split(";")[0]!.trim().toLowerCase();
  if (type !== "multipart/form-data") {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", `Send the body as multipart/form-data${type ? `, not ${type}` : " (Content-Type is missing)"}.`, {
      target: "Content-Type",
    });
  }
  const boundary = boundaryOf(contentType!);
  if (!boundary) throw unreadable();
  if (partsAtLeast(raw, boundary, MAX_MULTIPART_PARTS + 1)) {
    throw new ApiError("BAD_REQUEST", `A multipart/form-data body here holds at most ${MAX_MULTIPART_PARTS} parts: the file and the documented fields.`);
  }
  let form: FormData;
  try {
    // A request body is never a SharedArrayBuffer's view: the cast only narrows the buffer's type, as
    // the DOM's BodyInit (seen by the browser tests' compilation) asks.
    form = await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType! } }).formData();
  } catch {
    throw unreadable();
  }
  const out = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of form.entries()) {
    const part =
      typeof value === "string"
        ? value
        : ({ fileName: value.name, contentType: value.type || "application/octet-stream", bytes: Buffer.from(await value.arrayBuffer()) } satisfies UploadedFile);
    const existing = out[name];
    if (existing === undefined) out[name] = part;
    else if (Array.isArray(existing)) existing.push(part);
    else out[name] = [existing, part];
  }
  return out;
}

function unreadable(): ApiError {
  return new ApiError("BAD_REQUEST", "The multipart/form-data body could not be read: check its boundary and that every part is complete.");
}

/** The `boundary` parameter of a multipart Content-Type (RFC 2046 5.1.1: 1 to 70 characters, perhaps quoted). */
function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/**
 * Whether the body holds at least `count` parts: delimiters ("--" + boundary at the start of the
 * body or after a CRLF) beyond the first open a part each, the closing one aside. Stops at `count`.
 */
function partsAtLeast(raw: Buffer, boundary: string, count: number): boolean {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let delimiters = raw.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? 1 : 0;
  for (let at = raw.indexOf(delimiter); at !== -1; at = raw.indexOf(delimiter, at + delimiter.length)) {
    delimiters += 1;
    // The closing delimiter opens no part; any other one does.
    if (delimiters >= count && !isClosing(raw, at + delimiter.length)) return true;
  }
  return false;
}

function isClosing(raw: Buffer, at: number): boolean {
  return raw[at] === 0x2d && raw[at + 1] === 0x2d;
}
