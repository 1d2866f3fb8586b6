import { createHash } from "node:crypto";
import type { CryptoKey, JWK, JWTPayload } from "jose" with { "resolution-mode": "import" };
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createOidcClient, type OidcClientDeps } from "../../shared/platform/auth/oidc/oidc-client";
import { tokenExchangeAudience } from "../../shared/platform/auth/oidc/managed-identity-assertion";
import { SIGN_IN_MAX_DURATION_MS, signInTransactionSchema, type OidcSettings } from "../../shared/platform/auth/sign-in";
import { apiErrorOf } from "../support/api-error-of";

/*
 * The relying party against a provider faked at the fetch boundary (discovery, token endpoint, JWKS),
 * minting its ID tokens with jose: the checks an ID token must pass, Entra's multi-tenant issuer, MFA
 * from amr or an authentication context, client authentication, and which failure becomes which code.
 * test/integration/local-identity-provider.test.ts drives the same client through a real provider.
 */

const NOW = new Date("2026-03-02T09:00:00Z");
const NOW_S = NOW.getTime() / 1000;
const TENANT = "2a8cc883-0968-8486-8b92-4569ed8ff8c8";
const OTHER_TENANT = "1a56243a-540f-8dc1-9b49-88d09b1389be";
const OID = "67ff43b5-98aa-8eab-8ef8-ac664bac3ae2";
const CLIENT_ID = "0e2b7c64-8f2c-4a3e-9d55-6a1f3c2b9e01";
const REDIRECT_URI = "https://secops.example/api/v2/portal/auth/callback";
const CODE = "code-that-must-never-be-echoed";

let jose: typeof import("jose", { with: { "resolution-mode": "import" } });
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  jose = await import("jose");
  const pair = await jose.generateKeyPair("RS256");
  signingKey = pair.privateKey;
  publicJwk = { ...(await jose.exportJWK(pair.publicKey)), kid: "key-1", alg: "RS256", use: "sig" };
  strangerKey = (await jose.generateKeyPair("RS256")).privateKey;
});

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

interface FakeProvider {
  fetch: typeof fetch;
  /** The bodies posted to the token endpoint. */
  tokenRequests: URLSearchParams[];
  discoveryReads: number;
  /** What the token endpoint answers; by default an ID token of `claims` (see mint). */
  answer: (request: URLSearchParams) => Promise<Response> | Response;
  /** Fail every discovery read, or every JWKS read. */
  discoveryDown: boolean;
  jwksDown: boolean;
}

/** A provider at `authority`, whose discovery document names `issuer` (which may hold Entra's `{tenantid}`). */
function fakeProvider(authority: string, issuer: string, extra: Record<string, unknown> = {}): FakeProvider {
  const base = authority.replace(/\/v2\.0$/, "");
  const provider: FakeProvider = {
    tokenRequests: [],
    discoveryReads: 0,
    discoveryDown: false,
    jwksDown: false,
    answer: () => json({ error: "server_error" }, 500),
    fetch: async (input, init) => {
      const url = String(input);
      if (url === `${authority}/.well-known/openid-configuration`) {
        provider.discoveryReads++;
        if (provider.discoveryDown) return json({ error: "unavailable" }, 503);
        return json({
          issuer,
          authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
          token_endpoint: `${base}/oauth2/v2.0/token`,
          jwks_uri: `${base}/discovery/v2.0/keys`,
          ...extra,
        });
      }
      if (url === `${base}/discovery/v2.0/keys`) return provider.jwksDown ? json({}, 500) : json({ keys: [publicJwk] });
      if (url === `${base}/oauth2/v2.0/token`) {
        const body = new URLSearchParams(String(init?.body));
        provider.tokenRequests.push(body);
        return provider.answer(body);
      }
      return json({ error: "not_found" }, 404);
    },
  };
  return provider;
}

/** An ID token: RS256 by the provider's key unless told otherwise, issued now for CLIENT_ID, valid an hour. */
async function mint(claims: JWTPayload, options: { key?: CryptoKey; kid?: string; alg?: string } = {}): Promise<string> {
  return new jose.SignJWT({ iat: NOW_S, exp: NOW_S + 3600, aud: CLIENT_ID, ...claims })
    .setProtectedHeader({ alg: options.alg ?? "RS256", kid: options.kid ?? "key-1", typ: "JWT" })
    .sign(options.key ?? signingKey);
}

const entraSettings = (overrides: Partial<OidcSettings> = {}): OidcSettings => ({
  authority: `https://login.microsoftonline.com/${TENANT}/v2.0`,
  clientId: CLIENT_ID,
  clientAuthentication: { method: "client_secret_post", clientSecret: "s3cret" },
  ...overrides,
});

const entraIssuer = (tenant: string) => `https://login.microsoftonline.com/${tenant}/v2.0`;

/** Entra's claims for the person, with the given nonce. */
const person = (nonce: string, extra: JWTPayload = {}): JWTPayload => ({
  iss: entraIssuer(TENANT),
  sub: "pairwise-subject-for-this-app",
  tid: TENANT,
  oid: OID,
  name: "Amira Haddad",
  preferred_username: "amira.haddad@contoso-mssp.example",
  nonce,
  ...extra,
});

/** Begins a sign-in, has the fake provider answer with the token `claimsOf(nonce)` gives, and completes it. */
async function signIn(
  settings: OidcSettings,
  provider: FakeProvider,
  claimsOf: (nonce: string) => JWTPayload | Promise<string>,
  deps: Partial<OidcClientDeps> = {},
) {
  const client = createOidcClient(settings, { fetch: provider.fetch, now: () => NOW, ...deps });
  const { url, transaction } = await client.beginSignIn(REDIRECT_URI, "/portal/");
  provider.answer = async () => {
    const claims = claimsOf(transaction.nonce);
    return json({ token_type: "Bearer", id_token: claims instanceof Promise ? await claims : await mint(claims), access_token: "at" });
  };
  return { client, url: new URL(url), transaction, complete: () => client.completeSignIn({ code: CODE, state: transaction.state }, transaction, REDIRECT_URI) };
}

describe("beginSignIn", () => {
  it("sends the person to the authorization endpoint with PKCE (S256), state and nonce, keeping the verifier in the transaction", async () => {
    const provider = fakeProvider(entraSettings().authority, entraIssuer(TENANT));
    const { url, transaction } = await signIn(entraSettings(), provider, (nonce) => person(nonce));
    expect(url.origin + url.pathname).toBe(`https://login.microsoftonline.com/${TENANT}/oauth2/v2.0/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: CLIENT_ID,
      response_type: "code",
      response_mode: "query",
      redirect_uri: REDIRECT_URI,
      scope: "openid profile email",
      state: transaction.state,
      nonce: transaction.nonce,
      code_challenge: createHash("sha256").update(transaction.codeVerifier).digest("base64url"),
      code_challenge_method: "S256",
    });
    expect(signInTransactionSchema.parse(transaction)).toEqual({ ...transaction, returnTo: "/portal/", createdAt: NOW.getTime() });
    expect(new Set([transaction.state, transaction.nonce, transaction.codeVerifier]).size).toBe(3);
  });

  it("asks Entra for the MFA authentication context with the claims parameter when one is configured", async () => {
    const settings = entraSettings({ mfaAuthContext: "c1" });
    const { url } = await signIn(settings, fakeProvider(settings.authority, entraIssuer(TENANT)), (nonce) => person(nonce));
    expect(url.searchParams.get("claims")).toBe('{"id_token":{"acrs":{"essential":true,"value":"c1"}}}');
  });

  it("takes a returnTo only when it is a path on this service", async () => {
    const client = createOidcClient(entraSettings(), { fetch: fakeProvider(entraSettings().authority, entraIssuer(TENANT)).fetch, now: () => NOW });
    for (const returnTo of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "portal", "/portal\n"]) {
      const error = await apiErrorOf(client.beginSignIn(REDIRECT_URI, returnTo));
      expect(error, returnTo).toMatchObject({ code: "VALIDATION_ERROR", target: "returnTo" });
    }
  });

  it("reads the provider's OpenID configuration once per client, and again after a failed read", async () => {
    const provider = fakeProvider(entraSettings().authority, entraIssuer(TENANT));
    const client = createOidcClient(entraSettings(), { fetch: provider.fetch, now: () => NOW });
    provider.discoveryDown = true;
    expect(await apiErrorOf(client.beginSignIn(REDIRECT_URI, "/"))).toMatchObject({ code: "UPSTREAM_ERROR" });
    provider.discoveryDown = false;
    await client.beginSignIn(REDIRECT_URI, "/");
    await client.beginSignIn(REDIRECT_URI, "/");
    expect(provider.discoveryReads).toBe(2);
  });

  it("refuses a provider whose endpoints are plain HTTP away from this machine, or that lacks PKCE S256", async () => {
    const plain = fakeProvider("https://idp.example", "https://idp.example", { token_endpoint: "http://idp.example/token" });
    const client = createOidcClient(entraSettings({ authority: "https://idp.example" }), { fetch: plain.fetch, now: () => NOW });
    expect(await apiErrorOf(client.beginSignIn(REDIRECT_URI, "/"))).toMatchObject({ code: "UPSTREAM_ERROR", message: expect.stringMatching(/without TLS/) });
    const noS256 = fakeProvider("https://idp.example", "https://idp.example", { code_challenge_methods_supported: ["plain"] });
    const other = createOidcClient(entraSettings({ authority: "https://idp.example" }), { fetch: noS256.fetch, now: () => NOW });
    expect(await apiErrorOf(other.beginSignIn(REDIRECT_URI, "/"))).toMatchObject({ code: "UPSTREAM_ERROR", message: expect.stringMatching(/S256/) });
  });
});

describe("completeSignIn", () => {
  const settings = entraSettings();
  const provider = () => fakeProvider(settings.authority, entraIssuer(TENANT));

  it("redeems the code with the PKCE verifier and the client secret, and returns who signed in", async () => {
    const fake = provider();
    const { complete, transaction } = await signIn(settings, fake, (nonce) => person(nonce, { amr: ["pwd", "mfa"] }));
    expect(await complete()).toEqual({
      tenantId: TENANT,
      objectId: OID,
      name: "Amira Haddad",
      email: "amira.haddad@contoso-mssp.example",
      mfa: true,
      issuedAt: NOW.getTime(),
    });
    expect(Object.fromEntries(fake.tokenRequests[0]!)).toEqual({
      grant_type: "authorization_code",
      code: CODE,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      code_verifier: transaction.codeVerifier,
      client_secret: "s3cret",
    });
  });

  it("authenticates a public client by PKCE alone, and with a managed identity by a client assertion", async () => {
    const publicFake = provider();
    await (await signIn(entraSettings({ clientAuthentication: { method: "none" } }), publicFake, (nonce) => person(nonce))).complete();
    expect([...publicFake.tokenRequests[0]!.keys()].sort()).toEqual(["client_id", "code", "code_verifier", "grant_type", "redirect_uri"]);

    const assertionFake = provider();
    const managed = entraSettings({ clientAuthentication: { method: "managed_identity", managedIdentityClientId: "5d3c1b2a-0000-4000-8000-000000000001" } });
    await (await signIn(managed, assertionFake, (nonce) => person(nonce), { clientAssertion: async () => "managed-identity-token" })).complete();
    expect(assertionFake.tokenRequests[0]!.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    expect(assertionFake.tokenRequests[0]!.get("client_assertion")).toBe("managed-identity-token");
    expect(assertionFake.tokenRequests[0]!.has("client_secret")).toBe(false);
  });

  it("names the token-exchange audience of the authority's cloud", () => {
    expect(tokenExchangeAudience("https://login.microsoftonline.com/organizations/v2.0")).toBe("api://AzureADTokenExchange");
    expect(tokenExchangeAudience("https://login.microsoftonline.us/x/v2.0")).toBe("api://AzureADTokenExchangeUSGov");
    expect(tokenExchangeAudience("https://login.chinacloudapi.cn/x/v2.0")).toBe("api://AzureADTokenExchangeChina");
  });

  it("sees MFA in amr (mfa) or in acrs (the configured authentication context), and nowhere else", async () => {
    const withContext = entraSettings({ mfaAuthContext: "c1" });
    const cases: [OidcSettings, JWTPayload, boolean][] = [
      [settings, { amr: ["pwd", "mfa"] }, true],
      [settings, { amr: ["pwd"] }, false],
      [settings, {}, false],
      [settings, { acrs: ["c1"] }, false],
      [withContext, { acrs: ["c1"] }, true],
      [withContext, { acrs: "c1" }, true],
      [withContext, { acrs: ["c2", "c3"] }, false],
      [withContext, { acr: "c1" }, false],
      [withContext, { amr: ["mfa"] }, true],
    ];
    for (const [s, extra, mfa] of cases) {
      const { complete } = await signIn(s, fakeProvider(s.authority, entraIssuer(TENANT)), (nonce) => person(nonce, extra));
      expect((await complete()).mfa, `${JSON.stringify(extra)} with ${s.mfaAuthContext ?? "no context"}`).toBe(mfa);
    }
  });

  it("takes the email from email, else from an address-like preferred_username, and the name from name", async () => {
    const withEmail = await (await signIn(settings, provider(), (nonce) => person(nonce, { email: "a.h@contoso.example" }))).complete();
    expect(withEmail.email).toBe("a.h@contoso.example");
    const phone = await (await signIn(settings, provider(), (nonce) => person(nonce, { preferred_username: "+4912345", name: undefined }))).complete();
    expect(phone).toMatchObject({ email: null, name: "+4912345" });
  });

  describe("refuses, as UNAUTHORIZED, before or without accepting an ID token", () => {
    const refused = async (claimsOf: (nonce: string) => JWTPayload | Promise<string>, s: OidcSettings = settings, issuer = entraIssuer(TENANT)) => {
      const error = await apiErrorOf((await signIn(s, fakeProvider(s.authority, issuer), claimsOf)).complete());
      expect(error.code).toBe("UNAUTHORIZED");
      // Nothing of the code or token is echoed, in the detail or its cause.
      expect(`${error.message} ${String(error.cause)}`).not.toMatch(/code-that-must|eyJ/);
      return error;
    };

    it("a token signed by a key the provider's JWKS does not hold", async () => {
      await refused((nonce) => mint(person(nonce), { key: strangerKey }));
      await refused((nonce) => mint(person(nonce), { key: strangerKey, kid: "key-2" }));
    });

    it("a token whose payload was changed after signing", async () => {
      await refused(async (nonce) => {
        const [header, , signature] = (await mint(person(nonce))).split(".");
        const forged = Buffer.from(JSON.stringify({ ...person(nonce), oid: "5f45b11a-761f-8667-8672-36677aaf80c3", aud: CLIENT_ID, iat: NOW_S, exp: NOW_S + 3600 })).toString("base64url");
        return `${header}.${forged}.${signature}`;
      });
    });

    it("a token not signed with RS256 (HS256 with a shared secret, or unsigned)", async () => {
      await refused((nonce) => mint(person(nonce), { alg: "HS256", key: new TextEncoder().encode("x".repeat(32)) as unknown as CryptoKey }));
      await refused(async (nonce) => {
        const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
        const payload = Buffer.from(JSON.stringify({ ...person(nonce), aud: CLIENT_ID, iat: NOW_S, exp: NOW_S + 3600 })).toString("base64url");
        return `${header}.${payload}.`;
      });
    });

    it("a token with another nonce, or none", async () => {
      await refused(() => person("n".repeat(43)));
      await refused((nonce) => ({ ...person(nonce), nonce: undefined }));
    });

    it("a token for another audience, or for several without this client as azp", async () => {
      await refused((nonce) => person(nonce, { aud: "another-client" }));
      await refused((nonce) => person(nonce, { aud: [CLIENT_ID, "another-client"], azp: "another-client" }));
      const shared = await (await signIn(settings, provider(), (nonce) => person(nonce, { aud: [CLIENT_ID, "another-client"], azp: CLIENT_ID }))).complete();
      expect(shared.objectId).toBe(OID);
    });

    it("a token of another issuer (another tenant, for a single-tenant authority)", async () => {
      await refused((nonce) => person(nonce, { iss: entraIssuer(OTHER_TENANT), tid: OTHER_TENANT }));
    });

    it("an expired token, one not yet valid, and one issued long ago; a minute of clock difference is forgiven", async () => {
      await refused((nonce) => person(nonce, { iat: NOW_S - 7200, exp: NOW_S - 3600 }));
      await refused((nonce) => person(nonce, { nbf: NOW_S + 300 }));
      await refused((nonce) => person(nonce, { iat: NOW_S - 3600, exp: NOW_S + 3600 }));
      const skewed = await (await signIn(settings, provider(), (nonce) => person(nonce, { iat: NOW_S + 30, nbf: NOW_S + 30, exp: NOW_S - 30 + 3600 }))).complete();
      expect(skewed.objectId).toBe(OID);
    });

    it("a callback whose state is not the transaction's, without redeeming its code", async () => {
      const fake = provider();
      const { client, transaction } = await signIn(settings, fake, (nonce) => person(nonce));
      for (const state of [undefined, "x".repeat(43), `${transaction.state}x`]) {
        const error = await apiErrorOf(client.completeSignIn({ code: CODE, state }, transaction, REDIRECT_URI));
        expect(error).toMatchObject({ code: "UNAUTHORIZED", message: expect.stringMatching(/does not belong to this browser's sign-in/) });
      }
      expect(fake.tokenRequests).toEqual([]);
    });

    it("a response another provider sent (RFC 9207 iss), or one without iss from a provider that names itself, without redeeming its code", async () => {
      const fake = provider();
      const { client, transaction } = await signIn(settings, fake, (nonce) => person(nonce));
      const mixedUp = await apiErrorOf(client.completeSignIn({ code: CODE, state: transaction.state, iss: "https://idp.attacker.example" }, transaction, REDIRECT_URI));
      expect(mixedUp).toMatchObject({ code: "UNAUTHORIZED", message: expect.stringMatching(/another identity provider/) });
      const naming = fakeProvider(settings.authority, entraIssuer(TENANT), { authorization_response_iss_parameter_supported: true });
      const second = await signIn(settings, naming, (nonce) => person(nonce));
      const unnamed = await apiErrorOf(second.client.completeSignIn({ code: CODE, state: second.transaction.state }, second.transaction, REDIRECT_URI));
      expect(unnamed).toMatchObject({ code: "UNAUTHORIZED", message: expect.stringMatching(/does not name the identity provider/) });
      expect([...fake.tokenRequests, ...naming.tokenRequests]).toEqual([]);
      // Its own name is accepted.
      const third = await signIn(settings, naming, (nonce) => person(nonce));
      expect((await third.client.completeSignIn({ code: CODE, state: third.transaction.state, iss: entraIssuer(TENANT) }, third.transaction, REDIRECT_URI)).objectId).toBe(OID);
    });

    it("the provider's error, naming its code only", async () => {
      const { client, transaction } = await signIn(settings, provider(), (nonce) => person(nonce));
      const error = await apiErrorOf(client.completeSignIn({ state: transaction.state, error: "access_denied" }, transaction, REDIRECT_URI));
      expect(error).toMatchObject({ code: "UNAUTHORIZED", message: "The identity provider did not sign the person in (access_denied)." });
      const odd = await apiErrorOf(client.completeSignIn({ state: transaction.state, error: "<script>" }, transaction, REDIRECT_URI));
      expect(odd.message).toBe("The identity provider did not sign the person in.");
      const missing = await apiErrorOf(client.completeSignIn({ state: transaction.state }, transaction, REDIRECT_URI));
      expect(missing.message).toMatch(/no authorization code/);
    });

    it("a transaction older than the sign-in may take", async () => {
      const { client, transaction } = await signIn(settings, provider(), (nonce) => person(nonce));
      const later = createOidcClient(settings, { fetch: provider().fetch, now: () => new Date(NOW.getTime() + SIGN_IN_MAX_DURATION_MS + 1) });
      expect(await apiErrorOf(later.completeSignIn({ code: CODE, state: transaction.state }, transaction, REDIRECT_URI))).toMatchObject({ code: "UNAUTHORIZED", message: expect.stringMatching(/too long/) });
      void client;
    });

    it("a code the token endpoint refuses (expired, used, or for another redirect)", async () => {
      const fake = provider();
      const { complete } = await signIn(settings, fake, (nonce) => person(nonce));
      fake.answer = () => json({ error: "invalid_grant", error_description: "AADSTS70008: The provided authorization code has expired. Trace ID: 1" }, 400);
      expect(await apiErrorOf(complete())).toMatchObject({ code: "UNAUTHORIZED", message: "The identity provider refused the sign-in code; sign in again." });
    });
  });

  describe("the provider failing is UPSTREAM_ERROR (or TIMEOUT), not the person's fault", () => {
    it("the token endpoint failing, refusing the client, or answering without an ID token", async () => {
      for (const [answer, message] of [
        [() => json({ error: "server_error" }, 500), /answered 500 \(server_error\)/],
        [() => json({ error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret" }, 401), /answered 401 \(invalid_client\)/],
        [() => new Response("<html>", { status: 502 }), /answered 502 while/],
        [() => json({ access_token: "at" }), /holds no ID token/],
        [
          () => {
            throw new TypeError("fetch failed");
          },
          /could not be reached/,
        ],
      ] as const) {
        const fake = provider();
        const { complete } = await signIn(settings, fake, (nonce) => person(nonce));
        fake.answer = answer;
        const error = await apiErrorOf(complete());
        expect(error).toMatchObject({ code: "UPSTREAM_ERROR", message: expect.stringMatching(message) });
        expect(error.message).not.toMatch(/AADSTS|secret/);
      }
    });

    it("a token endpoint that does not answer in time", async () => {
      const fake = provider();
      const { complete } = await signIn(settings, fake, (nonce) => person(nonce));
      fake.answer = () => {
        throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
      };
      expect(await apiErrorOf(complete())).toMatchObject({ code: "TIMEOUT" });
    });

    it("signing keys that cannot be read", async () => {
      const fake = provider();
      const { complete } = await signIn(settings, fake, (nonce) => person(nonce));
      fake.jwksDown = true;
      expect(await apiErrorOf(complete())).toMatchObject({ code: "UPSTREAM_ERROR", message: expect.stringMatching(/signing keys/) });
    });

    it("an ID token without a GUID tid or oid: people are registered by both", async () => {
      for (const missing of [{ tid: undefined }, { oid: undefined }, { oid: "not-a-guid" }]) {
        const generic = { ...entraSettings({ authority: "https://idp.example" }) };
        const fake = fakeProvider("https://idp.example", "https://idp.example");
        const { complete } = await signIn(generic, fake, (nonce) => person(nonce, { iss: "https://idp.example", ...missing }));
        expect(await apiErrorOf(complete()), JSON.stringify(missing)).toMatchObject({ code: "UPSTREAM_ERROR", message: expect.stringMatching(/(tid|oid) claim/) });
      }
    });
  });
});

describe("Entra multi-tenant authority (organizations, common)", () => {
  const settings = entraSettings({ authority: "https://login.microsoftonline.com/organizations/v2.0" });
  const provider = () => fakeProvider(settings.authority, "https://login.microsoftonline.com/{tenantid}/v2.0");

  it("expects the issuer of the tenant named by the token's tid", async () => {
    for (const tenant of [TENANT, OTHER_TENANT]) {
      const { complete } = await signIn(settings, provider(), (nonce) => person(nonce, { iss: entraIssuer(tenant), tid: tenant }));
      expect(await complete()).toMatchObject({ tenantId: tenant, objectId: OID });
    }
  });

  it("refuses a token whose issuer is not its tid's tenant, or whose tid is not a GUID", async () => {
    for (const claims of [
      { iss: entraIssuer(OTHER_TENANT), tid: TENANT },
      { iss: entraIssuer("common"), tid: "common" },
      { iss: "https://login.microsoftonline.com/{tenantid}/v2.0", tid: TENANT },
      { iss: entraIssuer(TENANT), tid: undefined },
    ]) {
      const { complete } = await signIn(settings, provider(), (nonce) => person(nonce, claims));
      expect(await apiErrorOf(complete()), JSON.stringify(claims)).toMatchObject({ code: "UNAUTHORIZED" });
    }
  });

  it("takes a response naming some tenant's issuer (RFC 9207), not another provider's", async () => {
    const ok = await signIn(settings, provider(), (nonce) => person(nonce, { iss: entraIssuer(TENANT), tid: TENANT }));
    expect((await ok.client.completeSignIn({ code: CODE, state: ok.transaction.state, iss: entraIssuer(TENANT) }, ok.transaction, REDIRECT_URI)).tenantId).toBe(TENANT);
    for (const iss of ["https://login.microsoftonline.com/{tenantid}/v2.0", entraIssuer("common"), "https://login.microsoftonline.com.attacker.example/x/v2.0"]) {
      const { client, transaction } = await signIn(settings, provider(), (nonce) => person(nonce, { iss: entraIssuer(TENANT), tid: TENANT }));
      expect(await apiErrorOf(client.completeSignIn({ code: CODE, state: transaction.state, iss }, transaction, REDIRECT_URI)), iss).toMatchObject({ code: "UNAUTHORIZED" });
    }
  });
});

describe("signOutUrl", () => {
  it("is the provider's end-session endpoint with the client and where to come back to", async () => {
    const fake = fakeProvider("https://idp.example", "https://idp.example", { end_session_endpoint: "https://idp.example/logout?tenant=a" });
    const client = createOidcClient(entraSettings({ authority: "https://idp.example" }), { fetch: fake.fetch, now: () => NOW });
    expect(await client.signOutUrl("https://secops.example/portal/")).toBe(
      `https://idp.example/logout?tenant=a&client_id=${CLIENT_ID}&post_logout_redirect_uri=${encodeURIComponent("https://secops.example/portal/")}`,
    );
  });

  it("is undefined for a provider without one, and when the provider cannot be read", async () => {
    const fake = fakeProvider("https://idp.example", "https://idp.example");
    const client = createOidcClient(entraSettings({ authority: "https://idp.example" }), { fetch: fake.fetch, now: () => NOW });
    expect(await client.signOutUrl("https://secops.example/")).toBeUndefined();
    fake.discoveryDown = true;
    const down = createOidcClient(entraSettings({ authority: "https://idp.example" }), { fetch: fake.fetch, now: () => NOW });
    expect(await down.signOutUrl("https://secops.example/")).toBeUndefined();
  });
});

it("a failure is always an ApiError", async () => {
  const fake = fakeProvider(entraSettings().authority, entraIssuer(TENANT));
  const { complete } = await signIn(entraSettings(), fake, async () => "not.a.jwt");
  expect(await complete().catch((e: unknown) => e)).toBeInstanceOf(ApiError);
});
