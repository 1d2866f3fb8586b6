/**
 * The one error type of the service. Every failure that reaches a caller is an ApiError with one of
 * the contract's stable codes (contract section 7); `problem.ts` turns it into a problem document.
 */
export const errorCodes = {
  VALIDATION_ERROR: { status: 400, title: "Your request parameters didn't validate." },
  BAD_REQUEST: { status: 400, title: "The request could not be understood." },
  EXTENSION_NOT_ENABLED: { status: 400, title: "A required integration is not enabled for the workspace." },
  UNAUTHORIZED: { status: 401, title: "Authentication is required." },
  FORBIDDEN: { status: 403, title: "The operation is not permitted." },
  INSUFFICIENT_SCOPE: { status: 403, title: "The credential lacks a required scope." },
  INSUFFICIENT_WORKSPACE_ROLE: { status: 403, title: "The service account has no role on the workspace." },
  MFA_REQUIRED: { status: 403, title: "Multi-factor authentication is required." },
  USER_NOT_REGISTERED: { status: 403, title: "The user is not registered." },
  NOT_FOUND: { status: 404, title: "The resource was not found." },
  METHOD_NOT_ALLOWED: { status: 405, title: "The method is not allowed for this resource." },
  CONFLICT: { status: 409, title: "The request conflicts with the current state of the resource." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "The request body media type is not supported." },
  RATE_LIMITED: { status: 429, title: "Too many requests." },
  INTERNAL_ERROR: { status: 500, title: "An unexpected error occurred." },
  UPSTREAM_ERROR: { status: 502, title: "An upstream system failed." },
  TIMEOUT: { status: 504, title: "An upstream operation timed out." },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCodes;

/** Map from JSON property path to messages; the empty key carries object-level errors. */
export type FieldErrors = Record<string, string[]>;

export interface ApiErrorOptions {
  /** Field or identifier concerned. */
  target?: string;
  errors?: FieldErrors;
  /**
   * Overrides the code's usual status where HTTP needs a more precise one than the contract's table
   * gives: `redeliver` of a non-redeliverable event type is 422 VALIDATION_ERROR (contract 6.6.7);
   * an oversized body (413), an unmet `Expect` (417), a request that timed out before it was
   * complete (408) and oversized headers (431) are BAD_REQUEST problems with those statuses.
   */
  status?: 408 | 413 | 417 | 422 | 431;
  /** Extra response headers, e.g. `Allow` on 405 or `Retry-After` on 429. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly target?: string;
  readonly errors?: FieldErrors;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail: string, options: ApiErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? errorCodes[code].status;
    this.target = options.target;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** The contract's fixed text for a page token that was modified, hand-built or issued to someone else. */
export const INVALID_PAGE_TOKEN_MESSAGE =
  "The pagination tokens are invalid. Use the tokens from the previous response unmodified.";

export function notFound(what: string, target?: string): ApiError {
  return new ApiError("NOT_FOUND", `${what} was not found.`, { target });
}

/** 400 VALIDATION_ERROR with the contract's fixed text, for any token that is not one we issued. */
export function invalidPageToken(target = "continuationToken"): ApiError {
  return new ApiError("VALIDATION_ERROR", INVALID_PAGE_TOKEN_MESSAGE, {
    target,
    errors: { [target]: [INVALID_PAGE_TOKEN_MESSAGE] },
  });
}
