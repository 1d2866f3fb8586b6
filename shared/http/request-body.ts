import { ApiError } from "../errors/api-error";

/** Bodies above this size are refused before parsing. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON body: a non-JSON media type is 415, bytes that are not JSON are 400 BAD_REQUEST.
 * An empty body is `undefined`, which the route's schema then accepts or rejects.
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  if (raw.length > MAX_BODY_BYTES) {
    throw new ApiError("BAD_REQUEST", `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  if (!isJsonMediaType(contentType)) {
    throw new ApiError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Send the body as application/json${contentType ? `, not ${contentType.split(";")[0]}` : " (Content-Type is missing)"}.`,
      { target: "Content-Type" },
    );
  }
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (error) {
    throw new ApiError("BAD_REQUEST", `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
