import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "../../shared/platform/errors/api-error";
import { createOidcClient } from "../../shared/platform/auth/oidc/oidc-client";
import type { OidcClient, SignInTransaction, VerifiedIdentity } from "../../shared/platform/auth/sign-in";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { DEMO_PEOPLE, DEMO_TENANT_ID, NORTHWIND_TENANT_ID, demoPerson } from "../../shared/hosts/local/identity-provider/demo-people";
import { PORTAL_CALLBACK_PATH, startLocalIdentityProvider, type LocalIdentityProvider } from "../../shared/hosts/local/identity-provider/local-identity-provider";
import { CookieJar, signInHeadless } from "../support/oidc-sign-in";

/*
 * The local identity provider and the relying party together: a small test app (sign-in route and
 * callback, as the portal has them) signs people in through the real provider, driven without a
 * browser.
 */

const CLIENT_ID = "secops-portal-local";
const SIGN_IN_PATH = "/api/v2/portal/auth/sign-in";

/** A minimal relying party: keeps transactions server-side by a cookie, records who signed in. */
class TestApp {
  readonly identities: VerifiedIdentity[] = [];
  readonly transactions = new Map<string, SignInTransaction>();
  /** Changes a transaction before the callback uses it. */
  tamper: ((transaction: SignInTransaction) => SignInTransaction) | undefined;
  private server!: Server;
  origin = "";

  constructor(private readonly client: OidcClient) {}

  get redirectUri() {
    return `${this.origin}${PORTAL_CALLBACK_PATH}`;
  }

  async start() {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", this.origin);
      void (async () => {
        try {
          if (url.pathname === SIGN_IN_PATH) {
            const { url: to, transaction } = await this.client.beginSignIn(this.redirectUri, url.searchParams.get("returnTo") ?? "/portal/");
            const id = randomUUID();
            this.transactions.set(id, transaction);
            res.writeHead(302, { location: to, "set-cookie": `app_sign_in=${id}; Path=/; HttpOnly; Secure; SameSite=Lax` }).end();
          } else if (url.pathname === PORTAL_CALLBACK_PATH) {
            const id = /(?:^|; )app_sign_in=([^;]+)/.exec(req.headers.cookie ?? "")?.[1];
            const stored = id === undefined ? undefined : this.transactions.get(id);
            if (!stored) return void res.writeHead(400).end("no sign-in in progress");
            const transaction = this.tamper ? this.tamper(stored) : stored;
            const query = Object.fromEntries(url.searchParams);
            const identity = await this.client.completeSignIn({ code: query.code, state: query.state, error: query.error, iss: query.iss }, transaction, this.redirectUri);
            this.identities.push(identity);
            res.writeHead(303, { location: transaction.returnTo, "set-cookie": [`app_session=${identity.objectId}; Path=/; HttpOnly; Secure; SameSite=Lax`] }).end();
          } else {
            res.writeHead(404).end();
          }
        } catch (error) {
          if (!isApiError(error)) throw error;
          res.writeHead(error.status, { "content-type": "application/json" }).end(JSON.stringify({ code: error.code, detail: error.message }));
        }
      })().catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop() {
    return new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

let provider: LocalIdentityProvider;
let client: OidcClient;
let app: TestApp;

beforeAll(async () => {
  provider = await startLocalIdentityProvider({ clientId: CLIENT_ID });
  client = createOidcClient({ authority: provider.issuer, clientId: CLIENT_ID, clientAuthentication: { method: "none" } }, { now: () => new Date() });
  app = new TestApp(client);
  await app.start();
});
afterAll(async () => {
  await app?.stop();
  await provider?.close();
});

const signIn = (key: string, options: { jar?: CookieJar; cancel?: boolean; returnTo?: string } = {}) =>
  signInHeadless({
    startUrl: `${app.origin}${SIGN_IN_PATH}${options.returnTo ? `?returnTo=${encodeURIComponent(options.returnTo)}` : ""}`,
    personId: demoPerson(key).oid,
    ...options,
  });

describe("demo people", () => {
  it("are the demo organization's users for the default seed, in the provider's tenant; one is not registered", () => {
    const data = buildDemoData("secops-demo", new Date());
    expect(DEMO_TENANT_ID).toBe(data.users.find((u) => u.accountId === data.provider.id)?.tenantId);
    for (const key of ["amira", "jonas", "li"]) {
      const user = data.users.find((u) => u.id === demoPerson(key).oid);
      expect(user, key).toMatchObject({ displayName: demoPerson(key).name, email: demoPerson(key).email, tenantId: DEMO_TENANT_ID });
    }
    expect(data.users.map((u) => u.id)).not.toContain(demoPerson("oliver").oid);
    expect(DEMO_PEOPLE.filter((p) => !p.mfa).map((p) => p.key)).toEqual(["sam"]);
    expect(new Set(DEMO_PEOPLE.map((p) => p.oid)).size).toBe(DEMO_PEOPLE.length);
    // A customer's own person, in the customer's tenant.
    const northwind = data.customers.find((c) => c.name === "Northwind Health")!;
    expect(data.users.find((u) => u.id === demoPerson("priya").oid)).toMatchObject({ accountId: northwind.id, tenantId: NORTHWIND_TENANT_ID, email: demoPerson("priya").email });
  });
});

describe("local identity provider", () => {
  it("publishes its OpenID configuration: PKCE with S256, RS256 ID tokens, the claims Entra gives, an end-session endpoint", async () => {
    const metadata = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(provider.issuer);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.id_token_signing_alg_values_supported).toContain("RS256");
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(["tid", "oid", "name", "email", "amr"]));
    expect(metadata.end_session_endpoint).toBe(`${provider.issuer}/session/end`);
    expect(metadata.response_types_supported).toEqual(["code"]);
  });

  it("signs in a person with MFA: tid, oid, name, email and mfa from a validated ID token, back at returnTo", async () => {
    const started = Date.now();
    const amira = demoPerson("amira");
    const { response, cookies, steps } = await signIn("amira", { returnTo: "/portal/incidents?view=mine" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/portal/incidents?view=mine");
    expect(cookies.get("app_session", app.origin)).toBe(amira.oid);
    expect(app.identities.at(-1)).toEqual({ tenantId: DEMO_TENANT_ID, objectId: amira.oid, name: amira.name, email: amira.email, mfa: true, issuedAt: expect.any(Number) });
    expect(app.identities.at(-1)!.issuedAt).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
    // The app's sign-in, the provider's authorization endpoint, its sign-in page and form, the resumed authorization, the app's callback.
    expect(steps.map((s) => s.replace(/[?].*$/, "").replace(new RegExp(`(${provider.issuer}/(?:interaction|auth))/[\\w-]+`), "$1/<uid>"))).toEqual([
      `GET ${app.origin}${SIGN_IN_PATH}`,
      `GET ${provider.issuer}/auth`,
      `GET ${provider.issuer}/interaction/<uid>`,
      `POST ${provider.issuer}/interaction/<uid>/login`,
      `GET ${provider.issuer}/auth/<uid>`,
      `GET ${app.origin}${PORTAL_CALLBACK_PATH}`,
    ]);
  });

  it("signs in a person without MFA with mfa false", async () => {
    const { response } = await signIn("sam");
    expect(response.status).toBe(303);
    expect(app.identities.at(-1)).toMatchObject({ objectId: demoPerson("sam").oid, tenantId: DEMO_TENANT_ID, mfa: false });
  });

  it("signs in a person the service does not know: who they are is the provider's to say, registration the service's", async () => {
    await signIn("oliver");
    expect(app.identities.at(-1)).toMatchObject({ objectId: demoPerson("oliver").oid, mfa: true });
  });

  it("asks who signs in every time, so that people can be switched in one browser", async () => {
    const first = await signIn("li");
    expect(app.identities.at(-1)?.objectId).toBe(demoPerson("li").oid);
    const second = await signIn("jonas", { jar: first.cookies });
    expect(second.steps.some((s) => s.startsWith("POST") && s.endsWith("/login"))).toBe(true);
    expect(app.identities.at(-1)?.objectId).toBe(demoPerson("jonas").oid);
  });

  it("lists every person on its sign-in page, says it is a stand-in, and refuses someone not on it", async () => {
    const jar = new CookieJar();
    const start = await fetch(`${app.origin}${SIGN_IN_PATH}`, { redirect: "manual" });
    jar.store(`${app.origin}${SIGN_IN_PATH}`, start);
    const authorize = start.headers.get("location")!;
    const toPage = await fetch(authorize, { redirect: "manual", headers: { cookie: jar.header(authorize) ?? "" } });
    jar.store(authorize, toPage);
    const pageUrl = new URL(toPage.headers.get("location")!, authorize).href;
    const page = await fetch(pageUrl, { headers: { cookie: jar.header(pageUrl) ?? "" } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("stand-in for Microsoft Entra ID");
    for (const person of DEMO_PEOPLE) expect(html).toContain(`value="${person.oid}"`);
    expect(html).toContain("no MFA");

    await expect(signInHeadless({ startUrl: `${app.origin}${SIGN_IN_PATH}`, personId: randomUUID() })).rejects.toThrow(/400[\s\S]*Choose one of the people/);
  });

  it("sends a cancelled sign-in back as error=access_denied, which the app refuses with UNAUTHORIZED", async () => {
    const { response } = await signIn("amira", { cancel: true });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: "UNAUTHORIZED", detail: "The identity provider did not sign the person in (access_denied)." });
  });

  it("refuses a callback whose state is not the sign-in's, and a code redeemed twice", async () => {
    const { steps, cookies } = await signIn("amira");
    const callback = steps.at(-1)!.replace(/^GET /, "");
    const replayed = await fetch(callback, { headers: { cookie: cookies.header(callback)! }, redirect: "manual" });
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ code: "UNAUTHORIZED", detail: expect.stringMatching(/refused the sign-in code/) });

    const forged = new URL(callback);
    forged.searchParams.set("state", "x".repeat(43));
    const mismatched = await fetch(forged, { headers: { cookie: cookies.header(callback)! }, redirect: "manual" });
    expect(mismatched.status).toBe(401);
    expect(await mismatched.json()).toMatchObject({ code: "UNAUTHORIZED", detail: expect.stringMatching(/does not belong to this browser's sign-in/) });
  });

  it("enforces PKCE: a code redeemed with another verifier is refused", async () => {
    app.tamper = (t) => ({ ...t, codeVerifier: "A".repeat(43) });
    try {
      const { response } = await signIn("amira");
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "UNAUTHORIZED" });
    } finally {
      app.tamper = undefined;
    }
  });

  it("refuses an ID token whose nonce is not the sign-in's", async () => {
    app.tamper = (t) => ({ ...t, nonce: "n".repeat(43) });
    try {
      const { response } = await signIn("li");
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ code: "UNAUTHORIZED", detail: "The identity provider's ID token did not validate; sign in again." });
    } finally {
      app.tamper = undefined;
    }
  });

  it("signs out at the provider (RP-initiated logout) without a click, back to the app", async () => {
    const { cookies } = await signIn("jonas");
    expect(cookies.get("local_idp_session", provider.issuer)).toBeDefined();
    const postLogout = `${app.origin}/portal/`;
    const signOut = await client.signOutUrl(postLogout);
    expect(signOut).toBe(`${provider.issuer}/session/end?client_id=${CLIENT_ID}&post_logout_redirect_uri=${encodeURIComponent(postLogout)}`);

    const page = await fetch(signOut!, { headers: { cookie: cookies.header(signOut!)! } });
    cookies.store(signOut!, page);
    const html = await page.text();
    expect(html).toContain("document.forms[0].submit()");
    // What the page's script does: post its form, logout=yes included.
    const action = new URL(/action="([^"]+)"/.exec(html)![1]!, signOut).href;
    const fields = new URLSearchParams([...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((m): [string, string] => [m[1]!, m[2]!]));
    expect(fields.get("logout")).toBe("yes");
    const confirmed = await fetch(action, {
      method: "POST",
      body: fields,
      headers: { cookie: cookies.header(action)!, "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
    cookies.store(action, confirmed);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe(postLogout);
    expect(cookies.get("local_idp_session", provider.issuer)).toBeUndefined();
  });
});
