import { z } from "zod";

/**
 * People signing in to the portal with OpenID Connect: what the sign-in routes and the composition
 * root share. The relying party itself (`oidc/oidc-client.ts`) is an adapter: the composition root
 * builds it from `OidcSettings`, and routes receive it as a service.
 */

/** How the service proves itself at the token endpoint; the PKCE verifier is sent in every case. */
export type ClientAuthentication =
  /** A public client: PKCE alone (the local identity provider). */
  | { method: "none" }
  /** A client secret, sent in the request body (`client_secret_post`). */
  | { method: "client_secret_post"; clientSecret: string }
  /**
   * A client assertion: a token of the app's user-assigned managed identity for the token-exchange
   * audience, which the app registration trusts as a federated identity credential. No secret exists
   * to leak or rotate.
   */
  | { method: "managed_identity"; managedIdentityClientId: string };

export interface OidcSettings {
  /**
   * The issuer's base URL; its discovery document is `<authority>/.well-known/openid-configuration`.
   * Entra ID: `https://login.microsoftonline.com/<tenant>/v2.0`, where `<tenant>` may be
   * `organizations` or `common` for a multi-tenant app registration.
   */
  authority: string;
  clientId: string;
  clientAuthentication: ClientAuthentication;
  /** The registered callback URL; absent, the caller derives it from the request's origin. */
  redirectUri?: string;
  /**
   * An Entra Conditional Access authentication context id (`c1` … `c25`) whose policy requires MFA.
   * Entra's v2 ID tokens carry no `amr`; asking for this context and finding it in `acrs` is how the
   * service learns that the person passed MFA.
   */
  mfaAuthContext?: string;
}

/**
 * How long a sign-in may take, from the redirect to the provider to the callback. A transaction older
 * than this is refused, so the cookie that carries it need not live longer.
 */
export const SIGN_IN_MAX_DURATION_MS = 10 * 60 * 1000;

/** What must be kept between the redirect to the provider and the callback (a short-lived signed cookie). */
export interface SignInTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A path on this service to go to once signed in. */
  returnTo: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/** Checks a transaction read back from a cookie: every field present and of its shape. */
export const signInTransactionSchema = z.object({
  state: z.string().regex(/^[\w-]{43}$/),
  nonce: z.string().regex(/^[\w-]{43}$/),
  codeVerifier: z.string().regex(/^[\w-]{43}$/),
  returnTo: z.string().min(1).max(2048),
  createdAt: z.number().int().nonnegative(),
}) satisfies z.ZodType<SignInTransaction>;

/** The query of the provider's redirect to the callback. */
export interface SignInCallback {
  code?: string;
  state?: string;
  /** The provider refused or could not complete the sign-in (`access_denied`, `interaction_required`, …). */
  error?: string;
  /** The provider that sent the response (RFC 9207), when it names itself. */
  iss?: string;
}

/** Who signed in, from a validated ID token. */
export interface VerifiedIdentity {
  /** The person's directory (`tid`). */
  tenantId: string;
  /** The person's object id in that directory (`oid`), stable across apps, unlike Entra's pairwise `sub`. */
  objectId: string;
  name: string;
  email: string | null;
  /** The person passed multi-factor authentication in this sign-in. */
  mfa: boolean;
  /** When the ID token was issued, in milliseconds since the epoch. */
  issuedAt: number;
}

export interface OidcClient {
  /** The authorization request URL, and what must be kept (in a short-lived signed cookie) until the callback. */
  beginSignIn(redirectUri: string, returnTo: string): Promise<{ url: string; transaction: SignInTransaction }>;
  /**
   * Redeems the code (with the PKCE verifier) at the token endpoint and validates the ID token:
   * signature against the issuer's JWKS, `iss`, `aud`, `exp`/`nbf` with a small clock tolerance,
   * `nonce`. Failures are ApiErrors: UNAUTHORIZED for anything about this sign-in (state, provider
   * error, refused code, invalid token), UPSTREAM_ERROR or TIMEOUT when the provider fails.
   */
  completeSignIn(callback: SignInCallback, transaction: SignInTransaction, redirectUri: string): Promise<VerifiedIdentity>;
  /**
   * The provider's end_session_endpoint with post_logout_redirect_uri, when it has one. Undefined too
   * when the provider cannot be reached: signing out of the service never waits on it.
   */
  signOutUrl(postLogoutRedirectUri: string): Promise<string | undefined>;
}
