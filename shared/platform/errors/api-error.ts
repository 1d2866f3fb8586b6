/**
 * The one error type of the service. Every failure that reaches a caller is an ApiError with one of
 * the contract's stable codes (docs/contract.md §7, written once in `error-codes.ts`); `problem.ts`
 * turns it into a problem document.
 */
import { errorCodes, INVALID_PAGE_TOKEN_MESSAGE, type ErrorCode, type OtherErrorStatus } from "./error-codes";

export { errorCodes, INVALID_PAGE_TOKEN_MESSAGE, type ErrorCode } from "./error-codes";

/** Map from JSON property path to messages; the empty key carries object-level errors. */
export type FieldErrors = Record<string, string[]>;

/**
 * What a request had changed when its time ran out, as its 504 answer says (the problem's `commit`):
 * `none`, nothing was or will be changed, so the same request may be sent again; `committed`, its
 * change was saved before the answer; `in-progress`, a write was under way and completes on its own.
 * In the last two cases, read the resource before repeating the request.
 */
export type CommitState = "none" | "committed" | "in-progress";

export interface ApiErrorOptions {
  /** Field or identifier concerned. */
  target?: string;
  errors?: FieldErrors;
  /**
   * Overrides the code's usual status where HTTP needs a more precise one than the contract's table
   * gives: only a status the error-code table lists among some code's `otherStatuses`, so that each
   * is documented. `redeliver` of a non-redeliverable event type is 422 VALIDATION_ERROR (contract
   * 6.6.7); an oversized body (413), an unmet `Expect` (417), a request that timed out before it was
   * complete (408) and oversized headers (431) are BAD_REQUEST problems with those statuses.
   */
  status?: OtherErrorStatus;
  /** Extra response headers, e.g. `Allow` on 405 or `Retry-After` on 429. */
  headers?: Record<string, string>;
  /** On a TIMEOUT of the request's own deadline: what it had changed (`Deadline`). */
  commit?: CommitState;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly target?: string;
  readonly errors?: FieldErrors;
  readonly headers: Record<string, string>;
  readonly commit?: CommitState;

  constructor(code: ErrorCode, detail: string, options: ApiErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? errorCodes[code].status;
    this.target = options.target;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.commit = options.commit;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

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
