import { ApiError, errorCodes, type CommitState, type ErrorCode, type FieldErrors } from "../errors/api-error";

/** RFC 7807 problem document: the fields of docs/contract.md §7, and the `commit` extension member of a deadline's 504. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  requestId: string;
  timestamp: string;
  target?: string;
  errors?: FieldErrors;
  /** On a 504 of the request's own deadline: what it had changed (`CommitState`). */
  commit?: CommitState;
}

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Path of the error reference the service serves; each code is an anchor on that page. */
export const ERROR_REFERENCE_PATH = "/api/v2/errors";

export function problemType(origin: string, code: ErrorCode): string {
  return `${origin}${ERROR_REFERENCE_PATH}#${code}`;
}

export interface ProblemContext {
  origin: string;
  /** Path and query of the failing request. */
  instance: string;
  requestId: string;
  now: Date;
}

export function toProblem(error: ApiError, ctx: ProblemContext): Problem {
  const problem: Problem = {
    type: problemType(ctx.origin, error.code),
    title: errorCodes[error.code].title,
    status: error.status,
    detail: error.message,
    instance: ctx.instance,
    code: error.code,
    requestId: ctx.requestId,
    timestamp: ctx.now.toISOString(),
  };
  if (error.target !== undefined) problem.target = error.target;
  if (error.errors !== undefined) problem.errors = error.errors;
  if (error.commit !== undefined) problem.commit = error.commit;
  return problem;
}
