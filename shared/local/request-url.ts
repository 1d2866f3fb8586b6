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
