import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Adapter, AdapterPayload, Configuration, KoaContextWithOIDC } from "oidc-provider" with { "resolution-mode": "import" };
import { DEMO_PEOPLE, type DemoPerson } from "./demo-people";
import { errorPage, signedOutPage, signInPage, signOutPage } from "./pages";

/**
 * A real OpenID provider (the `oidc-provider` package) standing for Microsoft Entra ID beside the
 * local host and in tests: discovery, JWKS, the authorization code flow with PKCE, and RP-initiated
 * logout, on its own listener on 127.0.0.1. Its ID tokens carry what Entra's do and the service reads
 * (`tid`, `oid`, `name`, `email`), plus `amr`, which says whether the person used MFA.
 *
 * The package is a devDependency: the deployment package leaves `shared/hosts/local` out.
 */

/** The portal's callback. Any port of localhost or 127.0.0.1 is accepted with it (loopback redirects, RFC 8252 section 7.3). */
export const PORTAL_CALLBACK_PATH = "/api/v2/portal/auth/callback";

/** The client id the local host registers the portal under (PORTAL_CLIENT_ID beside it). */
export const LOCAL_PORTAL_CLIENT_ID = "secops-portal-local";

export interface LocalIdentityProviderOptions {
  /** The one client: a public client (no secret), PKCE required. */
  clientId: string;
  /** The port on 127.0.0.1; 0 (the default) takes a free one. A fixed port keeps the issuer the same across restarts. */
  port?: number;
  people?: readonly DemoPerson[];
  /** Default: the portal's callback on localhost and 127.0.0.1, any port. */
  redirectUris?: readonly string[];
  /** Where the provider may send the browser after signing out. Default: `/` and `/portal/` on localhost and 127.0.0.1, any port. */
  postLogoutRedirectUris?: readonly string[];
}

export interface LocalIdentityProvider {
  /** `http://127.0.0.1:<port>`: the authority to configure (PORTAL_OIDC_AUTHORITY). */
  issuer: string;
  clientId: string;
  close(): Promise<void>;
}

type Policies = typeof import("oidc-provider", { with: { "resolution-mode": "import" } }).interactionPolicy;

const LOOPBACK_ORIGINS = ["http://localhost", "http://127.0.0.1"];
/** The sign-in form's body is one small field. */
const MAX_FORM_BYTES = 4096;

export async function startLocalIdentityProvider(options: LocalIdentityProviderOptions): Promise<LocalIdentityProvider> {
  const people = options.people ?? DEMO_PEOPLE;
  const { default: Provider, interactionPolicy } = await import("oidc-provider");

  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let provider: InstanceType<typeof Provider>;
  try {
    provider = new Provider(issuer, configuration(options, people, interactionPolicy));
  } catch (error) {
    server.close();
    throw error;
  }
  const callback = provider.callback();

  handle = (req, res) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    const interaction = /^\/interaction\/([\w-]+)(?:\/(login|abort))?$/.exec(path);
    if (!interaction) return void callback(req, res);
    interact(req, res, interaction[1]!, interaction[2]).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const message = error instanceof Error ? error.message : String(error);
      res.writeHead(400, { "content-type": "text/html; charset=utf-8" }).end(errorPage({ error: "interaction_failed", error_description: message }));
    });
  };

  /** The sign-in page (GET), a person chosen (POST …/login), or the sign-in cancelled (POST …/abort). */
  async function interact(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error("This sign-in page belongs to another sign-in; start again.");
    if (action === undefined && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" });
      res.end(signInPage({ clientId: String(details.params.client_id ?? ""), action: `/interaction/${uid}/login`, cancelAction: `/interaction/${uid}/abort`, people }));
      return;
    }
    if (req.method !== "POST") return void res.writeHead(405, { allow: action ? "POST" : "GET" }).end();
    if (action === "abort") {
      await provider.interactionFinished(req, res, { error: "access_denied", error_description: "The person cancelled the sign-in." }, { mergeWithLastSubmission: false });
      return;
    }
    const chosen = new URLSearchParams(await readForm(req)).get("person");
    const person = people.find((p) => p.oid === chosen);
    if (!person) throw new Error("Choose one of the people on the sign-in page.");
    await provider.interactionFinished(req, res, { login: { accountId: person.oid, amr: amrOf(person) } }, { mergeWithLastSubmission: false });
  }

  return {
    issuer,
    clientId: options.clientId,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function amrOf(person: DemoPerson): string[] {
  return person.mfa ? ["pwd", "mfa"] : ["pwd"];
}

function configuration(
  options: LocalIdentityProviderOptions,
  people: readonly DemoPerson[],
  policies: Policies,
): Configuration {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    adapter: memoryAdapter(),
    // A fresh signing key and cookie key per start: nothing the provider issued outlives the process.
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: randomBytes(8).toString("hex"), use: "sig", alg: "RS256" }] },
    cookies: {
      keys: [randomBytes(32).toString("base64url")],
      // Cookies are per host, not per port: names of their own keep them apart from the service's.
      names: { session: "local_idp_session", interaction: "local_idp_interaction", resume: "local_idp_resume" },
    },
    clients: [
      {
        client_id: options.clientId,
        client_name: "Security Operations portal (local)",
        // Native: a loopback redirect URI matches on any port, so the local host's port is not configuration here.
        application_type: "native",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: [...(options.redirectUris ?? LOOPBACK_ORIGINS.map((o) => `${o}${PORTAL_CALLBACK_PATH}`))],
        post_logout_redirect_uris: [...(options.postLogoutRedirectUris ?? LOOPBACK_ORIGINS.flatMap((o) => [`${o}/`, `${o}/portal/`]))],
      },
    ],
    responseTypes: ["code"],
    pkce: { required: () => true },
    // What Entra puts in its ID tokens for these scopes, and amr: conformIdTokenClaims off lets scope
    // claims into the ID token, as Entra does, rather than only into userinfo.
    claims: { openid: ["sub", "tid", "amr"], profile: ["oid", "name", "preferred_username"], email: ["email"] },
    conformIdTokenClaims: false,
    async findAccount(_ctx, id) {
      const person = people.find((p) => p.oid === id);
      if (!person) return undefined;
      return {
        accountId: person.oid,
        claims: () => ({ sub: person.oid, tid: person.tid, oid: person.oid, name: person.name, email: person.email, preferred_username: person.email }),
      };
    },
    interactions: { policy: interactionPolicyOf(policies), url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    loadExistingGrant,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => void ((ctx.type = "html"), (ctx.body = signOutPage(form))),
        postLogoutSuccessSource: (ctx) => void ((ctx.type = "html"), (ctx.body = signedOutPage())),
      },
    },
    renderError: (ctx, out) => void ((ctx.type = "html"), (ctx.body = errorPage({ ...out }))),
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 8 * 3600, Grant: 8 * 3600 },
  };
}

/**
 * The sign-in page on every sign-in, so that people can be switched, and no consent page: this is the
 * organization's own app (as in Entra with admin consent), and a native client would otherwise always
 * ask.
 */
function interactionPolicyOf(policies: Policies) {
  const policy = policies.base();
  policy
    .get("login")!
    .checks.add(
      new policies.Check("choose_person", "the local identity provider asks who signs in every time", (ctx) =>
        ctx.oidc.result?.login ? policies.Check.NO_NEED_TO_PROMPT : policies.Check.REQUEST_PROMPT,
      ),
    );
  policy.get("consent")!.checks.remove("native_client_prompt");
  return policy;
}

/** Grants what the client asks for, so no consent prompt is ever needed. */
async function loadExistingGrant(ctx: KoaContextWithOIDC) {
  const { oidc } = ctx;
  if (!oidc.client || !oidc.session?.accountId) return undefined;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
  const grant =
    (grantId ? await oidc.provider.Grant.find(grantId) : undefined) ?? new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
  grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(" "));
  grant.addOIDCClaims([...oidc.requestParamClaims]);
  await grant.save();
  return grant;
}

/** What a grant's revocation removes. */
const GRANTED = new Set(["AccessToken", "AuthorizationCode", "RefreshToken", "DeviceCode", "BackchannelAuthenticationRequest", "PreAuthorizedCode"]);

/** The provider's state (interactions, sessions, codes, grants) in this process, expiring with each entry's TTL. */
function memoryAdapter(): (model: string) => Adapter {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry : undefined;
  };
  const sweep = () => {
    for (const key of entries.keys()) live(key);
  };
  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    const findBy = (field: "uid" | "userCode", value: string) => {
      for (const [k, entry] of entries) if (k.startsWith(`${model}:`) && entry.payload[field] === value && live(k)) return entry.payload;
      return undefined;
    };
    return {
      async upsert(id, payload, expiresIn) {
        sweep();
        entries.set(key(id), { payload, expiresAt: expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000 });
      },
      async find(id) {
        return live(key(id))?.payload;
      },
      async findByUid(uid) {
        return findBy("uid", uid);
      },
      async findByUserCode(userCode) {
        return findBy("userCode", userCode);
      },
      async consume(id) {
        const entry = live(key(id));
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        // The tokens and codes issued under the grant; an interaction or session naming it stays.
        for (const [k, entry] of entries) if (GRANTED.has(k.slice(0, k.indexOf(":"))) && entry.payload.grantId === grantId) entries.delete(k);
      },
    };
  };
}

async function readForm(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new Error("The sign-in form is too large.");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
