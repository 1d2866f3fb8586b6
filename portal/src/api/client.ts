import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./openapi";

/** An RFC 7807 problem as the service sends it (see the API's error reference, `/api/v2/errors`). */
export interface Problem {
  status: number;
  code: string;
  title?: string;
  detail?: string;
  target?: string;
  errors?: Record<string, string[]>;
}

/** Thrown by `call` for any answer that is not a success: the server's problem, or one made up for a network failure. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? problem.code);
  }
}

let csrfToken = "";

/** The session's CSRF token, from `GET /portal/me`: sent with every change. */
export function useCsrfToken(token: string): void {
  csrfToken = token;
}

/** The header every change carries (POST, PUT, PATCH, DELETE): the document requires it of each. */
export function csrf(): { "X-CSRF-Token": string } {
  return { "X-CSRF-Token": csrfToken };
}

/** Answers as JSON: the sign-in steps answer a page's script with JSON rather than a redirect. */
const acceptJson: Middleware = {
  onRequest({ request }) {
    request.headers.set("Accept", "application/json");
    return request;
  },
};

/** The typed client of the portal's endpoints: paths, parameters and bodies are those of the served OpenAPI document. */
export const api = createClient<paths>({ baseUrl: "", credentials: "same-origin" });
api.use(acceptJson);

/** Listeners told when the session has ended (401), so the page can show the sign-in. */
const sessionEndedListeners = new Set<() => void>();
export function onSessionEnded(listener: () => void): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

/**
 * Awaits an openapi-fetch call and returns its data, or throws a `ProblemError` with the server's
 * problem. A 401 also tells the page the session has ended.
 */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch {
    throw new ProblemError({ status: 0, code: "NETWORK_ERROR", detail: "The service could not be reached. Check the connection and try again." });
  }
  if (result.response.ok) return result.data as T;
  const problem = toProblem(result.error, result.response.status);
  if (problem.status === 401) for (const listener of sessionEndedListeners) listener();
  throw new ProblemError(problem);
}

function toProblem(body: unknown, status: number): Problem {
  if (body && typeof body === "object" && "code" in body) return { status, ...(body as Omit<Problem, "status">) };
  return { status, code: "UNEXPECTED_RESPONSE", detail: `The service answered ${status}.` };
}

/** The problem's message for one field of a form (its path, as the server names it), if any. */
export function fieldError(problem: Problem | undefined, field: string): string | undefined {
  if (!problem) return undefined;
  const messages = problem.errors?.[field];
  if (messages?.length) return messages.join(" ");
  return problem.target === field ? problem.detail : undefined;
}
