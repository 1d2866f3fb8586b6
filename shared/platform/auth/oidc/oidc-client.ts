import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { JWTPayload } from "jose" with { "resolution-mode": "import" };
import { z } from "zod";
import { ApiError, isApiError } from "../../errors/api-error";
import {
  SIGN_IN_MAX_DURATION_MS,
  type OidcClient,
  type OidcSettings,
  type SignInCallback,
  type SignInTransaction,
  type VerifiedIdentity,
} from "../sign-in";
import { managedIdentityAssertion, tokenExchangeAudience } from "./managed-identity-assertion";

/**
 * The portal's OpenID Connect relying party: the authorization code flow with PKCE (S256), state and
 * nonce, against Microsoft Entra ID in Azure and the local identity provider beside the local host.
 * Every token check is jose's; nothing here parses a signature by hand.
 */

export interface OidcClientDeps {
  fetch?: typeof fetch;
  now: () => Date;
  /** A client assertion source in place of the managed identity's (tests). */
  clientAssertion?: () => Promise<string>;
}

/** What every sign-in asks for: `profile` brings Entra's `oid` and `name`, `email` the address. */
const SCOPES = "openid profile email";
/** Provider calls (discovery, token endpoint, signing keys) give up after this. */
const PROVIDER_TIMEOUT_MS = 10_000;
/** Seconds of clock difference with the provider that `exp`, `nbf` and `iat` forgive. */
const CLOCK_TOLERANCE_S = 60;
/** An ID token is redeemed as soon as it is issued; one older than this is a replay. */
const MAX_ID_TOKEN_AGE_S = 10 * 60;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Entra's multi-tenant discovery documents name the issuer with this placeholder for the token's tenant. */
const TENANT_PLACEHOLDER = "{tenantid}";

const endpoint = z.url({ protocol: /^https?$/ });
const discoverySchema = z.object({
  issuer: z.string().min(1),
  authorization_endpoint: endpoint,
  token_endpoint: endpoint,
  jwks_uri: endpoint,
  end_session_endpoint: endpoint.optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});
type Discovery = z.infer<typeof discoverySchema>;

type Jose = typeof import("jose", { with: { "resolution-mode": "import" } });
let josePromise: Promise<Jose> | undefined;
/** jose is ESM-only: a real dynamic import, made on the first sign-in rather than at cold start. */
const loadJose = () => (josePromise ??= import("jose"));

export function createOidcClient(settings: OidcSettings, deps: OidcClientDeps): OidcClient {
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  const authority = settings.authority.replace(/\/+$/, "");
  const auth = settings.clientAuthentication;
  const clientAssertion =
    auth.method !== "managed_identity"
      ? undefined
      : (deps.clientAssertion ?? managedIdentityAssertion(auth.managedIdentityClientId, tokenExchangeAudience(authority)));

  let discovery: Promise<Discovery> | undefined;
  let jwks: Promise<ReturnType<Jose["createRemoteJWKSet"]>> | undefined;

  async function call(what: string, url: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetchImpl(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
    } catch (error) {
      if (error instanceof Error && error.name === "TimeoutError") throw new ApiError("TIMEOUT", `The identity provider did not answer in time while ${what}.`);
      throw new ApiError("UPSTREAM_ERROR", `The identity provider could not be reached while ${what}.`, { cause: error });
    }
  }

  /** The provider's metadata, read once per process; a failed read is tried again on the next sign-in. */
  function discover(): Promise<Discovery> {
    discovery ??= (async () => {
      const what = "reading its OpenID configuration";
      const response = await call(what, `${authority}/.well-known/openid-configuration`, { headers: { accept: "application/json" } });
      if (response.status !== 200) throw new ApiError("UPSTREAM_ERROR", `The identity provider answered ${response.status} while ${what}.`);
      const parsed = discoverySchema.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) throw new ApiError("UPSTREAM_ERROR", `The identity provider's OpenID configuration is not valid.`, { cause: parsed.error });
      const metadata = parsed.data;
      for (const url of [metadata.authorization_endpoint, metadata.token_endpoint, metadata.jwks_uri, metadata.end_session_endpoint]) {
        // Codes and tokens travel to these: plain HTTP only on this machine (the local identity provider).
        if (url !== undefined && !secureOrLoopback(url)) throw new ApiError("UPSTREAM_ERROR", "The identity provider's OpenID configuration names an endpoint without TLS.");
      }
      if (metadata.code_challenge_methods_supported && !metadata.code_challenge_methods_supported.includes("S256")) {
        throw new ApiError("UPSTREAM_ERROR", "The identity provider does not support PKCE with S256.");
      }
      return metadata;
    })();
    discovery.catch(() => (discovery = undefined));
    return discovery;
  }

  /** The issuer's signing keys (jose fetches them again when a token names a key it does not hold). */
  function signingKeys(metadata: Discovery) {
    jwks ??= loadJose().then((jose) =>
      jose.createRemoteJWKSet(new URL(metadata.jwks_uri), {
        timeoutDuration: PROVIDER_TIMEOUT_MS,
        [jose.customFetch]: async (url: string, init: RequestInit) => {
          let response: Response;
          try {
            response = await fetchImpl(url, init);
          } catch (error) {
            if (error instanceof Error && error.name === "TimeoutError") throw error; // jose reports it as JWKSTimeout
            throw new SigningKeysUnavailable("unreachable", { cause: error });
          }
          if (response.status !== 200) throw new SigningKeysUnavailable(`answered ${response.status}`);
          return response;
        },
      }),
    );
    return jwks;
  }

  async function redeemCode(metadata: Discovery, code: string, codeVerifier: string, redirectUri: string): Promise<string> {
    const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: settings.clientId, code_verifier: codeVerifier });
    if (auth.method === "client_secret_post") form.set("client_secret", auth.clientSecret);
    if (clientAssertion) {
      form.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
      form.set("client_assertion", await clientAssertion());
    }
    const what = "redeeming the sign-in code";
    const response = await call(what, metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form,
    });
    const body = (await response.json().catch(() => undefined)) as { id_token?: unknown; error?: unknown } | undefined;
    if (response.status === 400 && body?.error === "invalid_grant") {
      // The code expired, was used already or was issued for another redirect: the person starts again.
      throw new ApiError("UNAUTHORIZED", "The identity provider refused the sign-in code; sign in again.");
    }
    if (response.status !== 200) {
      // Only the OAuth error code is kept: the description may echo request details.
      const reason = typeof body?.error === "string" ? ` (${body.error.slice(0, 64)})` : "";
      throw new ApiError("UPSTREAM_ERROR", `The identity provider answered ${response.status}${reason} while ${what}.`);
    }
    if (typeof body?.id_token !== "string") throw new ApiError("UPSTREAM_ERROR", "The identity provider's token response holds no ID token.");
    return body.id_token;
  }

  async function verifyIdToken(metadata: Discovery, idToken: string, nonce: string): Promise<JWTPayload> {
    const jose = await loadJose();
    let issuer = metadata.issuer;
    if (issuer.includes(TENANT_PLACEHOLDER)) {
      // A multi-tenant authority (organizations, common): the issuer is the person's own tenant's,
      // named by the token's tid, which the signature check below then binds to the token.
      let tid: unknown;
      try {
        tid = jose.decodeJwt(idToken).tid;
      } catch (error) {
        throw invalidToken(error);
      }
      if (typeof tid !== "string" || !GUID.test(tid)) throw invalidToken(new Error("tid is not a GUID"));
      issuer = issuer.replace(TENANT_PLACEHOLDER, tid);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(idToken, await signingKeys(metadata), {
        issuer,
        audience: settings.clientId,
        algorithms: ["RS256"],
        clockTolerance: CLOCK_TOLERANCE_S,
        maxTokenAge: MAX_ID_TOKEN_AGE_S,
        currentDate: deps.now(),
        requiredClaims: ["exp", "iat", "nonce"],
      }));
    } catch (error) {
      throw verificationError(error);
    }
    if (typeof payload.nonce !== "string" || !sameText(payload.nonce, nonce)) throw invalidToken(new Error("nonce does not match the sign-in"));
    // With more than one audience, the token must have been issued to this client (OpenID Connect Core 3.1.3.7).
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== settings.clientId) throw invalidToken(new Error("azp is not this client"));
    return payload;
  }

  function identityOf(claims: JWTPayload): VerifiedIdentity {
    const text = (name: string) => (typeof claims[name] === "string" && (claims[name] as string).trim() !== "" ? (claims[name] as string) : undefined);
    const tenantId = text("tid");
    const objectId = text("oid");
    // People are registered by tenant and object id: a provider that does not give both is misconfigured.
    if (tenantId === undefined || !GUID.test(tenantId)) throw new ApiError("UPSTREAM_ERROR", "The identity provider's ID token has no tenant id (a GUID tid claim).");
    if (objectId === undefined || !GUID.test(objectId)) throw new ApiError("UPSTREAM_ERROR", "The identity provider's ID token has no object id (a GUID oid claim).");
    const username = text("preferred_username");
    const email = text("email") ?? (username?.includes("@") ? username : undefined);
    const amr = claims.amr;
    const acrs = claims.acrs;
    const mfa =
      (Array.isArray(amr) && amr.includes("mfa")) ||
      (settings.mfaAuthContext !== undefined && (Array.isArray(acrs) ? acrs.includes(settings.mfaAuthContext) : acrs === settings.mfaAuthContext));
    return {
      tenantId: tenantId.toLowerCase(),
      objectId: objectId.toLowerCase(),
      name: text("name") ?? username ?? email ?? objectId,
      email: email ?? null,
      mfa,
      issuedAt: (claims.iat ?? 0) * 1000,
    };
  }

  return {
    async beginSignIn(redirectUri, returnTo) {
      if (!isLocalPath(returnTo)) {
        throw new ApiError("VALIDATION_ERROR", "returnTo must be a path on this service.", { target: "returnTo", errors: { returnTo: ["must be a path on this service"] } });
      }
      const metadata = await discover();
      const transaction: SignInTransaction = {
        state: randomToken(),
        nonce: randomToken(),
        codeVerifier: randomToken(),
        returnTo,
        createdAt: deps.now().getTime(),
      };
      const url = new URL(metadata.authorization_endpoint);
      const params: Record<string, string> = {
        client_id: settings.clientId,
        response_type: "code",
        response_mode: "query",
        redirect_uri: redirectUri,
        scope: SCOPES,
        state: transaction.state,
        nonce: transaction.nonce,
        code_challenge: createHash("sha256").update(transaction.codeVerifier).digest("base64url"),
        code_challenge_method: "S256",
      };
      if (settings.mfaAuthContext !== undefined) {
        // Entra issues the authentication context in the ID token's acrs claim only when its Conditional
        // Access policy (MFA) was satisfied, when asked for it with the claims request parameter:
        // https://learn.microsoft.com/entra/identity-platform/developer-guide-conditional-access-authentication-context
        // https://learn.microsoft.com/entra/identity-platform/claims-challenge
        params.claims = JSON.stringify({ id_token: { acrs: { essential: true, value: settings.mfaAuthContext } } });
      }
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { url: url.href, transaction };
    },

    async completeSignIn(callback: SignInCallback, transaction: SignInTransaction, redirectUri: string) {
      if (callback.state === undefined || !sameText(callback.state, transaction.state)) {
        throw new ApiError("UNAUTHORIZED", "The sign-in response does not belong to this browser's sign-in; sign in again.");
      }
      const age = deps.now().getTime() - transaction.createdAt;
      if (age > SIGN_IN_MAX_DURATION_MS || age < -CLOCK_TOLERANCE_S * 1000) throw new ApiError("UNAUTHORIZED", "The sign-in took too long; sign in again.");
      if (callback.error !== undefined) {
        // The OAuth error code is a short token (access_denied, interaction_required, …); anything else is not echoed.
        const code = /^[\w.-]{1,64}$/.test(callback.error) ? ` (${callback.error})` : "";
        throw new ApiError("UNAUTHORIZED", `The identity provider did not sign the person in${code}.`);
      }
      if (!callback.code) throw new ApiError("UNAUTHORIZED", "The sign-in response holds no authorization code; sign in again.");
      const metadata = await discover();
      checkResponseIssuer(metadata, callback.iss);
      const idToken = await redeemCode(metadata, callback.code, transaction.codeVerifier, redirectUri);
      return identityOf(await verifyIdToken(metadata, idToken, transaction.nonce));
    },

    async signOutUrl(postLogoutRedirectUri) {
      let metadata: Discovery;
      try {
        metadata = await discover();
      } catch {
        return undefined;
      }
      if (!metadata.end_session_endpoint) return undefined;
      const url = new URL(metadata.end_session_endpoint);
      url.searchParams.set("client_id", settings.clientId);
      url.searchParams.set("post_logout_redirect_uri", postLogoutRedirectUri);
      return url.href;
    },
  };
}

/**
 * RFC 9207: the authorization response names who sent it, so that a response from another provider
 * (a mix-up) is not redeemed here. A provider that says it names itself must; a name given must be
 * this provider's (for a multi-tenant authority, its issuer with some tenant's id).
 */
function checkResponseIssuer(metadata: Discovery, iss: string | undefined): void {
  if (iss === undefined) {
    if (metadata.authorization_response_iss_parameter_supported) {
      throw new ApiError("UNAUTHORIZED", "The sign-in response does not name the identity provider that sent it; sign in again.");
    }
    return;
  }
  const [before, after] = metadata.issuer.split(TENANT_PLACEHOLDER);
  const matches =
    after === undefined
      ? iss === metadata.issuer
      : iss.startsWith(before!) && iss.endsWith(after) && GUID.test(iss.slice(before!.length, iss.length - after.length));
  if (!matches) throw new ApiError("UNAUTHORIZED", "The sign-in response comes from another identity provider than this sign-in's; sign in again.");
}

/** The signing keys could not be fetched: the provider's failure, not the token's. */
class SigningKeysUnavailable extends Error {
  override name = "SigningKeysUnavailable";
}

function verificationError(error: unknown): ApiError | unknown {
  if (isApiError(error)) return error;
  if (error instanceof SigningKeysUnavailable) return new ApiError("UPSTREAM_ERROR", "The identity provider's signing keys could not be read.", { cause: error });
  const code = typeof error === "object" && error !== null && "code" in error ? (error as { code: unknown }).code : undefined;
  if (code === "ERR_JWKS_TIMEOUT") return new ApiError("TIMEOUT", "The identity provider did not answer in time while reading its signing keys.");
  if (code === "ERR_JWKS_INVALID" || code === "ERR_JOSE_GENERIC") return new ApiError("UPSTREAM_ERROR", "The identity provider's signing keys could not be read.");
  if (typeof code === "string" && code.startsWith("ERR_J")) return invalidToken(error);
  return error;
}

/**
 * UNAUTHORIZED for an ID token that does not validate. The cause keeps jose's code and message (which
 * name the claim, never its value) and not jose's error, which holds the token's claims.
 */
function invalidToken(error: unknown): ApiError {
  const code = typeof error === "object" && error !== null && "code" in error ? `${String((error as { code: unknown }).code)}: ` : "";
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError("UNAUTHORIZED", "The identity provider's ID token did not validate; sign in again.", { cause: new Error(`${code}${message}`) });
}

/** 32 random bytes, base64url: 43 characters, as PKCE asks of a verifier. */
function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A path on this service: not another origin (`//host`, `/\host`), no scheme, no control characters. */
function isLocalPath(value: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  return value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") && !/[\u0000-\u001f\u007f]/.test(value) && value.length <= 2048;
}

function secureOrLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(hostname);
}
