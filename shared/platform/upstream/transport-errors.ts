/** Node, undici and AbortSignal.timeout spellings of "the other side did not answer in time". */
const TIMEOUT_CODES: ReadonlySet<string> = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);

export interface ErrorLink {
  name?: string;
  code?: string;
  message?: string;
}

/** An error and its `cause`s, outermost first (at most five deep): fetch wraps the real failure. */
export function errorChain(error: unknown): ErrorLink[] {
  const chain: ErrorLink[] = [];
  let current: unknown = error;
  while (current && typeof current === "object" && chain.length < 5) {
    chain.push(current as ErrorLink);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** True when the failure anywhere in its chain is a timeout (a `TimeoutError` or a timeout code). */
export function isTimeout(error: unknown): boolean {
  return errorChain(error).some((e) => e.name === "TimeoutError" || (typeof e.code === "string" && TIMEOUT_CODES.has(e.code)));
}
