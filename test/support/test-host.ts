import { randomBytes, randomUUID } from "node:crypto";
import { loadConfig } from "../../shared/platform/config/config";
import type { HostResolver } from "../../shared/platform/delivery/address-policy";
import type { Route } from "../../shared/platform/http/route";
import { seedDemoData, type DemoData } from "../../shared/hosts/local/demo-data";
import { seedDemoGamebooks } from "../../shared/hosts/local/demo-gamebooks";
import { API_PREFIX, Router } from "../../shared/platform/http/router";
import { OpenApiResponseCheck } from "./openapi-check";
import { startLocalServer } from "../../shared/hosts/local/local-server";
import { startLocalSignIn } from "../../shared/hosts/local/local-sign-in";
import type { LocalIdentityProvider } from "../../shared/hosts/local/identity-provider/local-identity-provider";
import { localControlRoutes } from "../../shared/hosts/local/local-controls";
import type { Logger } from "../../shared/platform/logger";
import type { OrganizationalRole, WorkspaceRole } from "../../shared/model/organizations/roles";
import { allRoutes } from "../../shared/api/route-groups";
import { createLocalServices, type SimulatedSystems } from "../../shared/hosts/local/local-services";
import type { Services } from "../../shared/domain/services";
import { createCosmosClient } from "../../shared/platform/store/cosmos/cosmos-client";
import { ensureContainers } from "../../shared/platform/store/cosmos/containers";
import { createCosmosStores } from "../../shared/platform/store/cosmos/cosmos-stores";
import type { Stores } from "../../shared/platform/store/ports";
import { workspaceAuditTrail } from "../../shared/platform/store/audit-trail";
import type { LogAnalytics } from "../../shared/systems/log-analytics/port";
import { startCosmosServer } from "./cosmos-server";

export type StoreKind = "memory" | "cosmos";

/** Which adapter the API suite runs on: the vitest project sets TEST_STORE. */
export const storeKind: StoreKind = process.env.TEST_STORE === "cosmos" ? "cosmos" : "memory";

export interface TestHostOptions {
  env?: Record<string, string>;
  now?: () => Date;
  /** Name → addresses for webhook URL checks; default: the fake public DNS below. */
  resolveHost?: HostResolver;
  /** Extra CA the webhook sender trusts: the test receiver's self-signed certificate. */
  webhookCa?: string;
  /** Routes added beside the real ones, to drive pipeline paths no real endpoint reaches yet. */
  extraRoutes?: Route[];
  /** Start the local identity provider and point the sign-in at it (people sign in for real). */
  signIn?: boolean;
  /** Start from an empty database: no demo organization, no demo admin (what a new deployment holds). */
  empty?: boolean;
  /** In place of the simulated log analytics (one that fails for chosen workspaces); the composition still puts it behind the breakers. */
  logAnalytics?: LogAnalytics;
}

export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

export interface TestHost {
  base: string;
  services: Services;
  /** The simulated external systems' consoles (act "in the vendor console"). */
  simulated: SimulatedSystems;
  demo: DemoData;
  admin: { clientId: string; clientSecret: string };
  logs: LogLine[];
  /** Basic header for a client id and secret. */
  basic(clientId: string, clientSecret: string): string;
  /**
   * fetch against /api/v2 as the admin unless `auth` says otherwise (null: no header). The answer is
   * checked against the served OpenAPI document (see `checked`).
   */
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** A plain fetch whose answer is checked against the served OpenAPI document, for requests `call` cannot make. */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
  /**
   * Fails when an answer is not as the served OpenAPI document says: its status undocumented for the
   * operation, its body not matching the schema (problem documents included), a header documented
   * as always sent missing, or one sent that is not documented for it. Returns the response.
   */
  checked(method: string, url: string | URL, response: Response): Promise<Response>;
  /** The local identity provider, when the host was started with `signIn`. */
  identityProvider?: LocalIdentityProvider;
  /**
   * Returns once the workspace's audit trail has been sequenced past every event stored now: the
   * export then shows them, as it does a reader after the trail's lag (the relay asks for sequencing
   * without waiting for it; in memory it is immediate).
   */
  auditSequenced(workspaceId: string): Promise<void>;
  /** A local control under /_local (no authentication). */
  local(method: string, path: string, body?: unknown): Promise<Response>;
  /**
   * A person with a portal session, made directly (registered in the store unless `registered` is
   * false, the session sealed with the host's key): for suites that need many people. The real
   * sign-in, through the local OpenID provider, has its own tests.
   */
  person(options?: PersonOptions): Promise<TestPerson>;
  /** fetch against /api/v2 as a person (their cookie, and their CSRF token on a change), checked against the OpenAPI document. */
  portal(person: TestPerson | null, method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export interface PersonOptions {
  organizationalRole?: OrganizationalRole;
  workspaceAssignments?: { workspaceId: string; role: WorkspaceRole }[];
  /** The sign-in used MFA; default true. */
  mfa?: boolean;
  /** The person is a user of the service; default true. */
  registered?: boolean;
  /** The account they are registered in; default the demo provider's. */
  accountId?: string;
  isActive?: boolean;
}

export interface TestPerson {
  userId: string;
  tenantId: string;
  name: string;
  /** The Cookie and X-CSRF-Token headers of their session. */
  headers: { cookie: string; "x-csrf-token": string };
}

export interface CallOptions {
  auth?: { clientId: string; clientSecret: string } | null;
  body?: unknown;
  headers?: Record<string, string>;
}

let cosmosServer: Promise<Awaited<ReturnType<typeof startCosmosServer>>> | undefined;

/** One Cosmos-protocol server per test file (worker), shared by its hosts, each with its own database. */
async function cosmosStores(): Promise<{ stores: Stores; env: Record<string, string> }> {
  cosmosServer ??= startCosmosServer();
  const server = await cosmosServer;
  const cosmos = { endpoint: server.endpoint, key: server.key, database: `test-${randomUUID()}`, trustSelfSigned: true };
  const client = createCosmosClient(cosmos);
  await ensureContainers(client, cosmos.database);
  return {
    // One process on a server without replicas: readers need not wait for the trail's mark to settle.
    stores: createCosmosStores(client.database(cosmos.database), { audit: { settleMs: 0 } }),
    env: { STORE: "cosmos", COSMOS_ENDPOINT: server.endpoint, COSMOS_KEY: server.key, COSMOS_DATABASE: cosmos.database, COSMOS_TRUST_SELF_SIGNED: "true" },
  };
}

export async function startTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const logs: LogLine[] = [];
  const logger: Logger = Object.fromEntries(
    (["debug", "info", "warn", "error"] as const).map((level) => [
      level,
      (message: string, fields: Record<string, unknown> = {}) => logs.push({ level, message, fields }),
    ]),
  ) as unknown as Logger;

  const cosmos = storeKind === "cosmos" ? await cosmosStores() : undefined;
  const signIn = options.signIn ? await startLocalSignIn({}, 0) : undefined;
  const config = loadConfig({
    RATE_LIMIT_BURST: "100000",
    RATE_LIMIT_PER_SECOND: "100000",
    SECRET_HASH_KEY: randomBytes(32).toString("base64"),
    PAGE_TOKEN_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
    LOCAL_ADMIN_CLIENT_SECRET: "soms_" + randomBytes(32).toString("base64url"),
    ...cosmos?.env,
    ...signIn?.env,
    ...options.env,
  });
  const { services, simulated } = createLocalServices(config, {
    logger,
    now: options.now,
    stores: cosmos?.stores,
    resolveHost: options.resolveHost ?? fakeDns,
    webhookCa: options.webhookCa,
    logAnalytics: options.logAnalytics,
  });
  const { admin, data } = options.empty ? emptyDeployment() : await seedDemoData(services);
  if (!options.empty) await seedDemoGamebooks(services, data);
  const server = await startLocalServer(services, [...allRoutes(), ...(options.extraRoutes ?? [])], 0, "127.0.0.1", localControlRoutes(simulated));
  const base = `${server.url}/api/v2`;
  const origin = server.url;
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
  // Routes added by a test are not in the served document; their answers are the test's own business.
  const extraRouter = new Router(options.extraRoutes ?? []);
  let contract: Promise<OpenApiResponseCheck> | undefined;
  const checked = async (method: string, url: string | URL, response: Response): Promise<Response> => {
    const target = new URL(url, origin);
    if (!target.pathname.startsWith(API_PREFIX + "/") || extraRouter.match(method.toUpperCase(), target.pathname.slice(API_PREFIX.length)).kind === "found") {
      return response;
    }
    contract ??= servedDocument(origin).then((doc) => new OpenApiResponseCheck(doc));
    const mismatches = (await contract).check({
      method,
      url: target.pathname + target.search,
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: method.toUpperCase() === "HEAD" ? "" : await response.clone().text(),
      headers: response.headers,
    });
    if (mismatches.length > 0) throw new Error(`The answer is not as the OpenAPI document says:\n  ${mismatches.join("\n  ")}`);
    return response;
  };

  return {
    base,
    services,
    simulated,
    demo: data,
    admin: { clientId: admin.clientId, clientSecret: admin.clientSecret },
    logs,
    basic,
    auditSequenced: (workspaceId) => services.stores.audit.sequence([workspaceAuditTrail(workspaceId)]),
    local(method, path, body) {
      return fetch(`${origin}/_local${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
    async call(method, path, callOptions = {}) {
      const auth = callOptions.auth === undefined ? admin : callOptions.auth;
      const headers: Record<string, string> = { ...callOptions.headers };
      if (auth) headers.authorization ??= basic(auth.clientId, auth.clientSecret);
      let body: string | undefined;
      if (callOptions.body !== undefined) {
        body = typeof callOptions.body === "string" ? callOptions.body : JSON.stringify(callOptions.body);
        headers["content-type"] ??= "application/json";
      }
      // The service's own answer is what is checked: a redirect (a sign-in step) is not followed.
      return checked(method, base + path, await fetch(base + path, { method, headers, body, redirect: "manual" }));
    },
    async fetch(url, init = {}) {
      return checked(init.method ?? "GET", url, await fetch(url, init));
    },
    checked,
    async person(personOptions = {}) {
      const userId = randomUUID();
      const accountId = personOptions.accountId ?? data.provider.id;
      // The directory tenant of the account's own people.
      const tenantId = (data.users.find((u) => u.accountId === accountId) ?? data.users[0]!).tenantId;
      const name = `Person ${userId.slice(0, 8)}`;
      if (personOptions.registered !== false) {
        const at = services.now().toISOString();
        await services.stores.users.create({
          id: userId,
          accountId,
          displayName: name,
          email: `${userId.slice(0, 8)}@contoso.example`,
          tenantId,
          organizationalRole: personOptions.organizationalRole ?? "Admin",
          isActive: personOptions.isActive ?? true,
          workspaceAssignments: personOptions.workspaceAssignments ?? [],
          createdAt: at,
          lastModifiedAt: at,
        });
      }
      const { session, setCookie } = services.sessions.start(
        { tenantId, objectId: userId, name, email: null, mfa: personOptions.mfa ?? true },
        services.now(),
      );
      const cookie = setCookie.split(";")[0]!;
      return { userId, tenantId, name, headers: { cookie, "x-csrf-token": services.sessions.csrfToken(session) } };
    },
    async portal(person, method, path, portalOptions = {}) {
      const headers: Record<string, string> = { ...(person?.headers ?? {}), ...portalOptions.headers };
      let body: string | undefined;
      if (portalOptions.body !== undefined) {
        body = typeof portalOptions.body === "string" ? portalOptions.body : JSON.stringify(portalOptions.body);
        headers["content-type"] ??= "application/json";
      }
      return checked(method, base + path, await fetch(base + path, { method, headers, body, redirect: "manual" }));
    },
    identityProvider: signIn?.provider,
    close: async () => {
      await server.close();
      await signIn?.provider.close();
    },
  };
}

/** No organization and no admin: the demo data's shape, empty, and an admin that cannot sign in. */
function emptyDeployment(): { admin: { clientId: string; clientSecret: string }; data: DemoData } {
  const provider = { id: "", name: "", kind: "ServiceProvider" as const, managedByAccountId: null };
  return { admin: { clientId: randomUUID(), clientSecret: "none" }, data: { provider, customers: [], workspaces: [], users: [] } };
}

/**
 * The document `GET /api/v2/openapi.json` serves, taken from its route's handler rather than over
 * HTTP, so that checking answers spends no rate-limit budget of the test's own.
 */
async function servedDocument(origin: string): Promise<ConstructorParameters<typeof OpenApiResponseCheck>[0]> {
  const route = allRoutes().find((r) => r.method === "GET" && r.path === "/openapi.json");
  if (!route) throw new Error("no /openapi.json route");
  const result = await route.handler({ origin } as Parameters<Route["handler"]>[0]);
  if (!("raw" in result)) throw new Error("/openapi.json did not answer a document");
  return JSON.parse(result.raw.toString());
}

/**
 * Tests never ask the real DNS: `*.example.com` names are public (one of example.com's addresses),
 * `*.internal.test` names resolve to a private address, anything else does not resolve.
 */
export const fakeDns: HostResolver = async (host) => {
  if (host.endsWith(".internal.test")) return ["10.1.2.3"];
  if (host === "example.com" || host.endsWith(".example.com")) return ["93.184.215.14"];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
};

/** Creates a service account through the API and returns its credential. */
export async function createServiceAccount(
  host: TestHost,
  body: Record<string, unknown>,
  as?: { clientId: string; clientSecret: string },
): Promise<{ clientId: string; clientSecret: string; data: Record<string, unknown> }> {
  const res = await host.call("POST", "/service-accounts", {
    auth: as,
    body: { name: "test account", organizationalRole: "Member", ...body },
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(json)}`);
  return { clientId: json.data.clientId as string, clientSecret: json.data.clientSecret as string, data: json.data };
}
