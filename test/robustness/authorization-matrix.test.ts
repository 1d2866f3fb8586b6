import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopes, type Scope } from "../../shared/platform/auth/scopes";
import type { Route } from "../../shared/platform/http/route";
import { allRoutes } from "../../shared/api/route-groups";
import { workspaceRoles } from "../../shared/model/organizations/roles";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";

/**
 * Every authenticated operation of the route table against every way a caller can be refused, and
 * against the least-privileged credential that must not be. Generated from `allRoutes()`: a new route
 * is covered without a new case.
 */
type Credential = { clientId: string; clientSecret: string };

const HOUR_MS = 3_600_000;
let clock = Date.now();
let host: TestHost;
let workspaceId: string;
/** The service accounts' routes; the people's (portal) routes have their own matrix, portal-authorization.test.ts. */
const authenticated = allRoutes().filter((r) => r.kind === "organization" || r.kind === "workspace") as (Route & { auth: Scope })[];
const requiredScopes = [...new Set(authenticated.map((r) => r.auth))];

/** Refusals that must be 401 UNAUTHORIZED, each as the Authorization header it sends (undefined: none). */
const unauthorized = new Map<string, string | undefined>();
const allButOne = new Map<Scope, Credential>();
const withoutRole = new Map<Scope, Credential>();
const leastPrivileged = new Map<string, Credential>();

beforeAll(async () => {
  host = await startTestHost({ now: () => new Date(clock) });
  workspaceId = host.demo.workspaces[0]!.id;
  const everyWorkspace = host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: workspaceRoles[0] }));
  const account = (scopeList: readonly Scope[], assignments: { workspaceId: string; role: string }[] = everyWorkspace) =>
    createServiceAccount(host, { scopes: scopeList, workspaceAssignments: assignments });
  const header = (c: Credential) => host.basic(c.clientId, c.clientSecret);

  unauthorized.set("no Authorization header", undefined);
  for (const malformed of ["Basic", "Basic !!!", "Bearer abc.def", `Basic ${Buffer.from("no-colon").toString("base64")}`, `Basic ${Buffer.from(`${host.admin.clientId}:`).toString("base64")}`, "Digest username=x"]) {
    unauthorized.set(`malformed header ${JSON.stringify(malformed)}`, malformed);
  }
  unauthorized.set("wrong secret", host.basic(host.admin.clientId, host.admin.clientSecret.slice(0, -4) + "AAAA"));
  unauthorized.set("unknown client id", host.basic(randomUUID(), host.admin.clientSecret));

  const revoked = await account(scopes);
  const spare = await host.call("POST", `/service-accounts/${revoked.clientId}/credentials`, { body: { scopes } });
  expect(spare.status).toBe(201);
  const firstCredential = (revoked.data.credentials as { id: string }[])[0]!.id;
  expect((await host.call("DELETE", `/service-accounts/${revoked.clientId}/credentials/${firstCredential}`)).status).toBe(204);
  unauthorized.set("revoked credential", header(revoked));

  const expiring = await createServiceAccount(host, { scopes, workspaceAssignments: everyWorkspace, expirationDate: new Date(clock + HOUR_MS).toISOString() });
  unauthorized.set("expired credential", header(expiring));

  const disabled = await account(scopes);
  expect((await host.call("PUT", `/service-accounts/${disabled.clientId}`, { body: { isActive: false } })).status).toBeLessThan(300);
  unauthorized.set("disabled account", header(disabled));

  const deleted = await account(scopes);
  expect((await host.call("DELETE", `/service-accounts/${deleted.clientId}`)).status).toBe(204);
  unauthorized.set("deleted account", header(deleted));

  for (const scope of requiredScopes) {
    allButOne.set(scope, await account(scopes.filter((s) => s !== scope)));
    withoutRole.set(scope, await account([scope], []));
    for (const role of workspaceRoles) leastPrivileged.set(`${scope} ${role}`, await account([scope], [{ workspaceId, role }]));
  }
  // Past the expiring credential's end; every other credential lasts a year.
  clock += 2 * HOUR_MS;
});
afterAll(() => host?.close());

/** The route's path with its parameters filled: the workspace the test accounts hold roles on, any GUID elsewhere. */
function pathOf(route: Route): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "workspaceId" ? workspaceId : "00000000-0000-4000-8000-000000000001"));
}

async function send(route: Route, authorization: string | undefined, extra: Record<string, string> = {}): Promise<{ status: number; code?: string; target?: string; headers: Headers }> {
  const hasBody = route.method !== "GET" && route.method !== "DELETE";
  const res = await host.call(route.method, pathOf(route), {
    auth: null,
    headers: authorization === undefined ? { ...extra } : { ...extra, authorization },
    body: hasBody ? {} : undefined,
  });
  const text = await res.text();
  const problem = res.headers.get("content-type")?.startsWith("application/problem+json") ? (JSON.parse(text) as { code: string; target?: string }) : undefined;
  return { status: res.status, code: problem?.code, target: problem?.target, headers: res.headers };
}

const label = (r: Route) => `${r.method} ${r.path}`;

describe("authorization matrix", () => {
  it("every route names a scope of the contract, or is declared public, or is a person's (portal) route", () => {
    for (const route of allRoutes()) {
      const kindOfCaller = route.auth === "public" || route.auth === "session" ? route.auth : "scope";
      expect(kindOfCaller === "scope" ? (scopes as readonly string[]).includes(route.auth) : true, label(route)).toBe(true);
      expect(route.auth === "session", label(route)).toBe(route.kind === "person" || route.kind === "personWorkspace");
    }
    expect(authenticated.length).toBeGreaterThan(0);
  });

  it("public routes answer without credentials", async () => {
    for (const route of allRoutes().filter((r) => r.auth === "public" && !r.path.includes("{"))) {
      const { status } = await send(route, undefined);
      expect(status, label(route)).not.toBe(401);
    }
  });

  it("every authenticated operation refuses every unusable credential with 401 UNAUTHORIZED and a Basic challenge", async () => {
    for (const route of authenticated) {
      for (const [why, authorization] of unauthorized) {
        const { status, code, headers } = await send(route, authorization);
        expect({ route: label(route), why, status, code }).toEqual({ route: label(route), why, status: 401, code: "UNAUTHORIZED" });
        expect(headers.get("www-authenticate")).toMatch(/^Basic /);
      }
    }
  });

  it("every authenticated operation refuses a credential holding every scope but its own with 403 INSUFFICIENT_SCOPE", async () => {
    for (const route of authenticated) {
      const { status, code } = await send(route, host.basic(allButOne.get(route.auth)!.clientId, allButOne.get(route.auth)!.clientSecret));
      expect({ route: label(route), status, code }).toEqual({ route: label(route), status: 403, code: "INSUFFICIENT_SCOPE" });
    }
  });

  it("every workspace operation refuses the right scope without a role on the workspace with 403 INSUFFICIENT_WORKSPACE_ROLE", async () => {
    for (const route of authenticated.filter((r) => r.path.includes("{workspaceId}"))) {
      const credential = withoutRole.get(route.auth)!;
      const { status, code } = await send(route, host.basic(credential.clientId, credential.clientSecret));
      expect({ route: label(route), status, code }).toEqual({ route: label(route), status: 403, code: "INSUFFICIENT_WORKSPACE_ROLE" });
    }
  });

  it("judges an Idempotency-Key only once the caller may call: refused credentials are refused as before, a malformed key of an allowed one is 400 naming the header", async () => {
    const keyed = authenticated.filter((r) => r.idempotencyKey);
    expect(keyed.length).toBeGreaterThan(0);
    const malformedKey = { "idempotency-key": "k".repeat(256) };
    for (const route of keyed) {
      const unknown = await send(route, unauthorized.get("unknown client id"), malformedKey);
      expect({ route: label(route), status: unknown.status, code: unknown.code }).toEqual({ route: label(route), status: 401, code: "UNAUTHORIZED" });
      const scopeless = allButOne.get(route.auth)!;
      const withoutScope = await send(route, host.basic(scopeless.clientId, scopeless.clientSecret), malformedKey);
      expect({ route: label(route), status: withoutScope.status, code: withoutScope.code }).toEqual({ route: label(route), status: 403, code: "INSUFFICIENT_SCOPE" });
      for (const role of workspaceRoles) {
        const credential = leastPrivileged.get(`${route.auth} ${role}`)!;
        const malformed = await send(route, host.basic(credential.clientId, credential.clientSecret), malformedKey);
        expect({ route: label(route), role, status: malformed.status, code: malformed.code, target: malformed.target }).toEqual({ route: label(route), role, status: 400, code: "VALIDATION_ERROR", target: "Idempotency-Key" });
      }
    }
  });

  it("a least-privileged credential (exactly the scope, any one workspace role) is not refused by authentication or authorization", async () => {
    for (const route of authenticated) {
      for (const role of workspaceRoles) {
        const credential = leastPrivileged.get(`${route.auth} ${role}`)!;
        const { status, code } = await send(route, host.basic(credential.clientId, credential.clientSecret));
        expect(status, `${label(route)} as ${role}`).not.toBe(401);
        expect(["INSUFFICIENT_SCOPE", "INSUFFICIENT_WORKSPACE_ROLE"], `${label(route)} as ${role}: ${status} ${code}`).not.toContain(code);
        expect(status, label(route)).toBeLessThan(500);
      }
    }
  });
});
