import { ApiError } from "../errors/api-error";

/** Decodes whole bodies only (never `stream: true`), so one decoder serves every request. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The default of `MAX_REQUEST_BODY_BYTES`. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** 413 with the contract's BAD_REQUEST code: the table has no code of its own for a body too large. */
export function bodyTooLarge(maxBytes: number): ApiError {
  return new ApiError("BAD_REQUEST", `The request body exceeds ${maxBytes} bytes.`, { status: 413 });
}

/**
 * Reads a JSON body: a non-JSON media type is 415, bytes that are not JSON are 400 BAD_REQUEST, a
 * body over `maxBytes` is 413 BAD_REQUEST. An empty body is `undefined`, which the route's schema
 * then accepts or rejects.
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined, maxBytes = MAX_BODY_BYTES): unknown {
  if (raw.length === 0) return undefined;
  if (raw.length > maxBytes) throw bodyTooLarge(maxBytes);
  if (!isJsonMediaType(contentType)) {
    throw new ApiError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Send the body as application/json${contentType ? `, not ${contentType.split(";")[0]}` : " (Content-Type is missing)"}.`,
      { target: "Content-Type" },
    );
  }
  // Bytes that are not UTF-8 would otherwise become U+FFFD and be accepted as some other text.
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new ApiError("BAD_REQUEST", "The request body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError("BAD_REQUEST", `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
