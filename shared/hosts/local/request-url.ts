/**
 * The URL of a request the local host received. The `Host` header is the client's to write: a value
 * that is not exactly a host and optional port (empty, a port past 65535, a space, an unclosed `[`,
 * user info, a path) is replaced by the address the host listens on, so no header can make the URL
 * unparseable. Only the path and query are taken from the request target, also in absolute form.
 *
 * @example
 * requestUrl("/api/v2/users?role=Admin", "localhost:99999", "127.0.0.1:7071").href
 * // "http://127.0.0.1:7071/api/v2/users?role=Admin"
 */
export function requestUrl(target: string | undefined, hostHeader: string | undefined, fallbackHost: string): URL {
  const url = new URL(`http://${validHost(hostHeader) ?? fallbackHost}`);
  let pathAndQuery = target ?? "/";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pathAndQuery)) {
    try {
      const absolute = new URL(pathAndQuery);
      pathAndQuery = absolute.pathname + absolute.search;
    } catch {
      pathAndQuery = "/";
    }
  }
  const q = pathAndQuery.indexOf("?");
  // Assigned rather than resolved against a base, so `//name/...` stays a path and never becomes a host.
  url.pathname = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  if (q >= 0) url.search = pathAndQuery.slice(q);
  return url;
}

function validHost(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // User info, a path, a query or a fragment would be reinterpreted by the URL parser: not a plain host.
  if (/[/\\@?#\s]/.test(header)) return undefined;
  try {
    return new URL(`http://${header}`).host;
  } catch {
    return undefined;
  }
}

/**
 * Characters the URL parser leaves as they are in a path and a query (no percent-encoding, no
 * backslash or dot-segment rewriting of their own): a target made only of them, with no dot
 * segment, is its own path and query.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/%]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*)?$/;
/** A `.` or `..` segment, also percent-encoded, which the URL parser resolves. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * The path and query of a request target, exactly as `requestUrl(target, …)` gives them, without
 * building a URL for the usual target that the URL parser would leave unchanged.
 */
export function requestTarget(target: string | undefined): { path: string; search: string } {
  if (target !== undefined && PLAIN_TARGET.test(target)) {
    const q = target.indexOf("?");
    const path = q < 0 ? target : target.slice(0, q);
    if (!DOT_SEGMENT.test(path)) return { path, search: q < 0 || q === target.length - 1 ? "" : target.slice(q) };
  }
  const url = requestUrl(target, undefined, "localhost");
  return { path: url.pathname, search: url.search };
}

/** `scheme://host` of a request, as `requestUrl(…, hostHeader, fallbackHost).origin` gives it. */
export function requestOrigin(hostHeader: string | undefined, fallbackHost: string): string {
  return new URL(`http://${validHost(hostHeader) ?? fallbackHost}`).origin;
}
