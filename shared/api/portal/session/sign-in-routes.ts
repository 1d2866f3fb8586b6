import { z } from "zod";
import { ApiError } from "../../../platform/errors/api-error";
import { publicRoute, type PublicInput } from "../../route-kinds";
import { API_PREFIX } from "../../../platform/http/router";
import { signInTransactionSchema, type OidcClient } from "../../../platform/auth/sign-in";
import { clearCookie, SESSION_COOKIE, SIGN_IN_COOKIE } from "../../../platform/auth/portal-session";
import { endSessions } from "../../../domain/organizations/person-sessions";

const tag = "Portal: sign-in";
const CALLBACK_PATH = "/portal/auth/callback";
/** Where a person lands after signing in or out when nothing else is asked for: the portal's page. */
const PORTAL_HOME = "/portal/";

/**
 * Only a path on this service: an absolute URL, a scheme-relative `//host` or a backslash (which
 * browsers read as a slash) would turn the sign-in into an open redirect.
 */
const returnTo = z
  .string()
  .max(2048)
  .regex(/^\/(?![/\\])[^\\\s]*$/, "A path on this service, beginning with a single /.")
  .default(PORTAL_HOME)
  .describe("Where to go once signed in: a path on this service. Default: the portal's page.")
  .meta({ examples: ["/portal/approvals"] });

function signInClient(signIn: OidcClient | undefined): OidcClient {
  if (!signIn) {
    throw new ApiError("EXTENSION_NOT_ENABLED", "Sign-in is not configured for this deployment: set PORTAL_CLIENT_ID (docs/operating.md, Operate it).");
  }
  return signIn;
}

/**
 * A caller that asks for JSON (`Accept: application/json`: a page's script, a command-line client)
 * gets where to go in the body, with the same cookies, instead of a redirect it would have to follow.
 */
function wantsJson(header: (name: string) => string | undefined): boolean {
  return /\bapplication\/json\b/i.test(header("accept") ?? "");
}

const signInStarted = z
  .object({ authorizationUrl: z.url().describe("Where the browser goes to sign in: the identity provider's authorization endpoint.") })
  .meta({ examples: [{ authorizationUrl: "https://login.microsoftonline.com/2a8cc883-0968-8486-8b92-4569ed8ff8c8/oauth2/v2.0/authorize?client_id=6f1c2a9e-4b7d-4e3a-9c8f-2d5b1a7e3c40&response_type=code&redirect_uri=https%3A%2F%2Fsecops.contoso.example%2Fapi%2Fv2%2Fportal%2Fauth%2Fcallback&scope=openid%20profile%20email&state=Zk3q9Vx2&nonce=Qm7t4Lp8&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256" }] });
const signedIn = z
  .object({
    returnTo: z.string().describe("Where the sign-in was to return to."),
    sessionExpiresAt: z.iso.datetime(),
    mfa: z.boolean().describe("The sign-in passed MFA; without it every portal call answers 403 MFA_REQUIRED."),
  })
  .meta({ examples: [{ returnTo: "/portal/approvals", sessionExpiresAt: "2026-11-25T18:00:00.000Z", mfa: true }] });
const signedOut = z
  .object({ signOutUrl: z.string().describe("Where the browser goes next: the identity provider's sign-out, or the portal's page.") })
  .meta({ examples: [{ signOutUrl: "https://login.microsoftonline.com/2a8cc883-0968-8486-8b92-4569ed8ff8c8/oauth2/v2.0/logout?post_logout_redirect_uri=https%3A%2F%2Fsecops.contoso.example%2Fportal%2F" }] });

function redirectUri(input: Pick<PublicInput<unknown, unknown, unknown>, "config" | "origin">): string {
  return input.config.portalSignIn?.redirectUri ?? `${input.origin}${API_PREFIX}${CALLBACK_PATH}`;
}

/**
 * The browser's side of signing in, OpenID Connect's authorization code flow with PKCE: the sign-in
 * redirects to the identity provider (Entra ID; locally the local identity provider), whose answer
 * comes back to the callback, which starts the session. Whether the person passed MFA and is a user
 * of the service is checked on every portal call, so that the portal can say which it is.
 */
export const signInRoutes = [
  publicRoute({
    method: "GET",
    path: "/portal/auth/sign-in",
    responseHeaders: ["Set-Cookie"],
    summary: "Sign in: redirects the browser to the identity provider",
    tag,
    description: "A browser is redirected (303). With `Accept: application/json` the answer is 200 with the URL to go to, and the same cookie.",
    query: z.strictObject({ returnTo }),
    response: signInStarted,
    successStatus: [200, 303],
    problems: ["EXTENSION_NOT_ENABLED", "UPSTREAM_ERROR", "TIMEOUT"],
    async handler(input) {
      const client = signInClient(input.signIn);
      const { url, transaction } = await client.beginSignIn(redirectUri(input), input.query.returnTo);
      const cookies = [input.sessions.startSignIn(transaction, input.now())];
      return wantsJson(input.header) ? { data: { authorizationUrl: url }, cookies } : { redirect: url, cookies };
    },
  }),
  publicRoute({
    method: "GET",
    path: CALLBACK_PATH,
    responseHeaders: ["Set-Cookie", { name: "Set-Cookie", status: 401, when: "the sign-in in progress expired or began in another browser: its cookie is cleared" }],
    summary: "The identity provider's answer: starts the session and returns to where the sign-in began",
    description:
      "Called by the browser on the identity provider's redirect, never by hand. The sign-in must finish within 10 minutes of its start, in the browser that started it. " +
      "A browser is redirected to where the sign-in began (303); a client asking for `application/json` gets 200 with the session's terms.",
    tag,
    query: z.object({
      code: z.string().max(4096).optional(),
      state: z.string().max(512).optional(),
      error: z.string().max(256).optional(),
      error_description: z.string().max(4096).optional(),
      session_state: z.string().max(512).optional(),
      iss: z.string().max(2048).optional(),
    }),
    response: signedIn,
    successStatus: [200, 303],
    problems: ["UNAUTHORIZED", "EXTENSION_NOT_ENABLED", "UPSTREAM_ERROR", "TIMEOUT"],
    async handler(input) {
      const client = signInClient(input.signIn);
      const transaction = input.sessions.readSignIn(input.header("cookie"), signInTransactionSchema, input.now());
      if (!transaction) {
        throw new ApiError("UNAUTHORIZED", "This sign-in took longer than 10 minutes or began in another browser: start again.", {
          headers: { "Set-Cookie": clearCookie(SIGN_IN_COOKIE) },
        });
      }
      const identity = await client.completeSignIn(input.query, transaction, redirectUri(input));
      const { session, setCookie } = input.sessions.start(identity, input.now());
      const cookies = [setCookie, clearCookie(SIGN_IN_COOKIE)];
      if (!wantsJson(input.header)) return { redirect: transaction.returnTo, cookies };
      return { data: { returnTo: transaction.returnTo, sessionExpiresAt: new Date(session.expiresAt).toISOString(), mfa: session.mfa }, cookies };
    },
  }),
  publicRoute({
    method: "POST",
    path: "/portal/auth/sign-out",
    responseHeaders: ["Set-Cookie"],
    summary: "Sign out: ends every session of the person, then signs out at the identity provider",
    description:
      "Ends every portal session of the person, in every browser (their sessions began before this instant), and clears this browser's cookie. " +
      "The browser then goes to the identity provider's sign-out when it has one, and back to the portal (303; with `Accept: application/json`, 200 and the URL). Refused from another site (Sec-Fetch-Site).",
    tag,
    response: signedOut,
    successStatus: [200, 303],
    problems: ["FORBIDDEN"],
    async handler(input) {
      // Signing someone out is a change: a page on another site may not do it for them.
      if (input.header("sec-fetch-site") === "cross-site") {
        throw new ApiError("FORBIDDEN", "A cross-site request cannot sign you out.", { target: "Sec-Fetch-Site" });
      }
      const session = input.sessions.read(input.header("cookie"), input.now());
      if (session) await endSessions(input, session.tenantId, session.objectId);
      const home = `${input.origin}${PORTAL_HOME}`;
      const providerSignOut = input.signIn ? await input.signIn.signOutUrl(home) : undefined;
      const next = providerSignOut ?? PORTAL_HOME;
      const cookies = [clearCookie(SESSION_COOKIE), clearCookie(SIGN_IN_COOKIE)];
      return wantsJson(input.header) ? { data: { signOutUrl: next }, cookies } : { redirect: next, cookies };
    },
  }),
];
