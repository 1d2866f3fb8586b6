/**
 * A browser-less sign-in through the local identity provider: from the app's sign-in URL, through the
 * provider's sign-in page (choosing a person), back to the app's callback, with a cookie jar of its
 * own and every redirect followed by hand, as a browser would. Tests sign people in with it, and so
 * does `npm run sign-in` for a shell (scripts/sign-in.ts); local only, like the provider itself.
 */
import { SESSION_COOKIE } from "../../../platform/auth/portal-session";

interface StoredCookie {
  name: string;
  value: string;
  /** Cookies belong to a host, whatever the port (RFC 6265 section 8.5). */
  host: string;
  path: string;
  secure: boolean;
  expiresAt: number;
}

/** The cookies a browser would keep: by host, path and name, with expiry; Secure ones also over http to loopback hosts, as browsers allow. */
export class CookieJar {
  private readonly cookies: StoredCookie[] = [];

  /** Takes the response's Set-Cookie lines for the URL it answered. */
  store(url: string, response: Response): void {
    const { hostname, pathname } = new URL(url);
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      if (at < 1) continue;
      const cookie: StoredCookie = {
        name: pair.slice(0, at).trim(),
        value: pair.slice(at + 1).trim(),
        host: hostname,
        path: pathname.slice(0, pathname.lastIndexOf("/") + 1) || "/",
        secure: false,
        expiresAt: Infinity,
      };
      for (const attribute of attributes) {
        const [key = "", value = ""] = attribute.split("=").map((s) => s.trim());
        const name = key.toLowerCase();
        if (name === "path" && value.startsWith("/")) cookie.path = value;
        else if (name === "secure") cookie.secure = true;
        else if (name === "max-age") cookie.expiresAt = Date.now() + Number(value) * 1000;
        else if (name === "expires" && cookie.expiresAt === Infinity) cookie.expiresAt = Date.parse(value);
      }
      const existing = this.cookies.findIndex((c) => c.name === cookie.name && c.host === cookie.host && c.path === cookie.path);
      if (existing !== -1) this.cookies.splice(existing, 1);
      if (cookie.expiresAt > Date.now()) this.cookies.push(cookie);
    }
  }

  /** The Cookie header for a request to the URL; undefined when no cookie applies. */
  header(url: string): string | undefined {
    const pairs = this.matching(url).map((c) => `${c.name}=${c.value}`);
    return pairs.length ? pairs.join("; ") : undefined;
  }

  /** A cookie's value for the URL (or any URL when none is given). */
  get(name: string, url?: string): string | undefined {
    return (url === undefined ? this.cookies.filter((c) => c.expiresAt > Date.now()) : this.matching(url)).find((c) => c.name === name)?.value;
  }

  /** Every live cookie: name, value, host and path. */
  all(): { name: string; value: string; host: string; path: string }[] {
    return this.cookies.filter((c) => c.expiresAt > Date.now()).map(({ name, value, host, path }) => ({ name, value, host, path }));
  }

  private matching(url: string): StoredCookie[] {
    const { hostname, pathname, protocol } = new URL(url);
    const trusted = protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(hostname);
    return this.cookies
      .filter((c) => c.expiresAt > Date.now() && c.host === hostname && (!c.secure || trusted))
      .filter((c) => pathname === c.path || pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`))
      .sort((a, b) => b.path.length - a.path.length);
  }
}

export interface HeadlessSignInOptions {
  /** The app's sign-in URL, which redirects to the provider. */
  startUrl: string;
  /** The object id (`oid`) of the person to sign in as, one of the provider's people. */
  personId: string;
  fetch?: typeof fetch;
  /** A jar to go on with (an earlier sign-in's); a new one by default. */
  jar?: CookieJar;
  /** Cancel at the provider's sign-in page instead of choosing the person. */
  cancel?: boolean;
}

export interface HeadlessSignIn {
  /** Every cookie set along the way, the app's included. */
  cookies: CookieJar;
  /** The app's answer to the provider's redirect back (its callback), or its first answer that is not a redirect. */
  response: Response;
  /** Each request made, in order: `METHOD url`. */
  steps: string[];
}

const MAX_STEPS = 20;

export async function signInHeadless(options: HeadlessSignInOptions): Promise<HeadlessSignIn> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const cookies = options.jar ?? new CookieJar();
  const appOrigin = new URL(options.startUrl).origin;
  const steps: string[] = [];
  let request: { url: string; method: "GET" | "POST"; form?: URLSearchParams } = { url: options.startUrl, method: "GET" };
  let leftApp = false;
  while (steps.length < MAX_STEPS) {
    steps.push(`${request.method} ${request.url}`);
    const headers: Record<string, string> = {};
    const cookie = cookies.header(request.url);
    if (cookie) headers.cookie = cookie;
    if (request.form) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetchImpl(request.url, { method: request.method, headers, body: request.form, redirect: "manual" });
    cookies.store(request.url, response);
    const url = new URL(request.url);
    const location = response.headers.get("location");
    const redirect = response.status >= 301 && response.status <= 308 && location !== null;
    if (url.origin === appOrigin && (leftApp || !redirect)) return { cookies, response, steps };
    if (url.origin !== appOrigin) leftApp = true;
    if (redirect) {
      await response.body?.cancel();
      request = { url: new URL(location, request.url).href, method: "GET" };
      continue;
    }
    const signInPage = /^\/interaction\/[\w-]+$/.test(url.pathname);
    const html = await response.text();
    if (response.status === 200 && signInPage) {
      request = options.cancel
        ? { url: `${request.url}/abort`, method: "POST", form: new URLSearchParams() }
        : { url: `${request.url}/login`, method: "POST", form: new URLSearchParams({ person: options.personId }) };
      continue;
    }
    const submitted = response.status === 200 ? selfSubmittingForm(html, request.url) : undefined;
    if (submitted) {
      // What the page's script does in a browser (the provider ending another person's session first).
      request = { url: submitted.action, method: "POST", form: submitted.fields };
      continue;
    }
    throw new Error(`The sign-in stopped at ${request.method} ${request.url}: ${response.status}\n${textOf(html).slice(0, 1000)}`);
  }
  throw new Error(`The sign-in did not come back to ${appOrigin} within ${MAX_STEPS} requests:\n${steps.join("\n")}`);
}

/** A page that posts its first form as soon as it loads: the form's action and hidden fields. */
function selfSubmittingForm(html: string, base: string): { action: string; fields: URLSearchParams } | undefined {
  if (!/document\.forms\[0\]\.submit\(\)/.test(html)) return undefined;
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  const action = form ? /\baction="([^"]*)"/i.exec(form[0])?.[1] : undefined;
  if (!form || action === undefined || !/\bmethod="post"/i.test(form[0])) return undefined;
  const fields = new URLSearchParams();
  for (const input of form[1]!.matchAll(/<input\b[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/i.exec(input[0])?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(input[0])?.[1] ?? "";
    if (name !== undefined && /\btype="hidden"/i.test(input[0])) fields.append(decodeEntities(name), decodeEntities(value));
  }
  return { action: new URL(decodeEntities(action), base).href, fields };
}

function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (entity[0] !== "#") return named[entity.toLowerCase()]!;
    return String.fromCodePoint(entity[1]!.toLowerCase() === "x" ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
  });
}

/** A page's text, for an error message: no styles, scripts or tags. */
function textOf(html: string): string {
  return decodeEntities(html.replace(/<(style|script)\b[\s\S]*?<\/\1>/gi, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim());
}

/** A person's portal session on a running service, as a browser holds it after signing in. */
export interface PortalSession {
  /** The session cookie as a Cookie header carries it: `__Host-secops-session=…`. */
  cookie: string;
  /** The session's CSRF token, for `X-CSRF-Token` on every change. */
  csrfToken: string;
  /** What `GET /portal/me` answered: who the service says the person is. */
  me: Record<string, unknown>;
}

/**
 * Signs a person in on a running service (`apiBase`: its `…/api/v2`) through the identity provider it
 * redirects to, then asks `GET /portal/me` for the session's CSRF token, as the portal page does
 * first. Throws with the service's problem when the sign-in or `/portal/me` is refused (a person
 * without MFA, one the service does not know).
 */
export async function signInToPortal(apiBase: string, personId: string, fetchImpl: typeof fetch = globalThis.fetch): Promise<PortalSession> {
  const base = apiBase.replace(/\/+$/, "");
  const { cookies, response } = await signInHeadless({ startUrl: `${base}/portal/auth/sign-in`, personId, fetch: fetchImpl });
  await response.body?.cancel();
  const meUrl = `${base}/portal/me`;
  const value = cookies.get(SESSION_COOKIE, meUrl);
  if (response.status >= 400 || value === undefined) throw new Error(`The sign-in came back without a session: HTTP ${response.status} from ${base}/portal/auth/callback.`);
  const cookie = `${SESSION_COOKIE}=${value}`;
  const me = await fetchImpl(meUrl, { headers: { cookie, accept: "application/json" } });
  const body = (await me.json().catch(() => ({}))) as { data?: Record<string, unknown>; code?: string; detail?: string };
  if (me.status !== 200 || !body.data) throw new Error(`GET /portal/me refused the session: HTTP ${me.status} ${body.code ?? ""}${body.detail ? `: ${body.detail}` : ""}`);
  return { cookie, csrfToken: String(body.data.csrfToken), me: body.data };
}
