import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Route } from "../../shared/platform/http/route";
import { allRoutes } from "../../shared/api/route-groups";
import { organizationalRoles, type OrganizationalRole } from "../../shared/model/organizations/roles";
import { ORGANIZATION_WIDE_ROLES } from "../../shared/platform/auth/person";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";

/**
 * Every portal operation of the route table against every way a caller can be refused: service
 * accounts, no or a broken session, a sign-in without MFA, a person the service does not know, a
 * change without its CSRF token, and a role matrix. Generated from `allRoutes()`: a new portal route
 * is covered without a new case.
 */
const HOUR_MS = 3_600_000;
let clock = Date.now();
let host: TestHost;
let workspaceId: string;
const portalRoutes = allRoutes().filter((r) => r.auth === "session");
const label = (r: Route) => `${r.method} ${r.path}`;
const isChange = (r: Route) => r.method !== "GET";

let owner: TestPerson;
let withoutMfa: TestPerson;
let unregistered: TestPerson;
let deactivated: TestPerson;
let expired: TestPerson;
const byRole = new Map<OrganizationalRole, TestPerson>();
const analystByRole = new Map<OrganizationalRole, TestPerson>();
const withoutWorkspaceRole = new Map<OrganizationalRole, TestPerson>();

beforeAll(async () => {
  host = await startTestHost({ now: () => new Date(clock) });
  workspaceId = host.demo.workspaces[0]!.id;
  const owns = [{ workspaceId, role: "Owner" as const }];
  owner = await host.person({ organizationalRole: "Admin", workspaceAssignments: owns });
  withoutMfa = await host.person({ organizationalRole: "Admin", workspaceAssignments: owns, mfa: false });
  unregistered = await host.person({ registered: false });
  deactivated = await host.person({ organizationalRole: "Admin", workspaceAssignments: owns, isActive: false });
  for (const role of organizationalRoles) {
    byRole.set(role, await host.person({ organizationalRole: role, workspaceAssignments: owns }));
    analystByRole.set(role, await host.person({ organizationalRole: role, workspaceAssignments: [{ workspaceId, role: "Analyst" }] }));
    withoutWorkspaceRole.set(role, await host.person({ organizationalRole: role }));
  }
  // Sessions last 8 hours by default: this one began 9 hours before the rest of the suite.
  clock -= 9 * HOUR_MS;
  expired = await host.person({ organizationalRole: "Admin", workspaceAssignments: owns });
  clock += 9 * HOUR_MS;
});
afterAll(() => host?.close());

async function reinstateWorkspace(): Promise<void> {
  const found = (await host.services.stores.workspaces.read(workspaceId))!;
  const { offboarded: _offboarded, ...onboarded } = found.value;
  await host.services.stores.workspaces.replace(onboarded, found.etag);
}

function pathOf(route: Route): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "workspaceId" ? workspaceId : "00000000-0000-4000-8000-000000000001"));
}

async function send(route: Route, person: TestPerson | null, headers: Record<string, string> = {}): Promise<{ status: number; code?: string; target?: string; headers: Headers }> {
  const res = await host.portal(person, route.method, pathOf(route), { body: isChange(route) ? {} : undefined, headers });
  // A person allowed to offboard the suite's workspace does: it is onboarded again, or every later
  // request would find no workspace (404) before its role there is judged.
  if (res.ok && route.method === "DELETE" && route.path === "/portal/workspaces/{workspaceId}") await reinstateWorkspace();
  const text = await res.text();
  const problem = res.headers.get("content-type")?.startsWith("application/problem+json") ? (JSON.parse(text) as { code: string; target?: string }) : undefined;
  return { status: res.status, code: problem?.code, target: problem?.target, headers: res.headers };
}

describe("portal authorization matrix", () => {
  it("the route table has portal routes, each declaring who may call it", () => {
    expect(portalRoutes.length).toBeGreaterThan(0);
    for (const route of portalRoutes) {
      expect(route.path.startsWith("/portal/"), label(route)).toBe(true);
      expect(["person", "personWorkspace"]).toContain(route.kind);
    }
  });

  it("refuses a service account's credentials, whatever their scopes, with 403 FORBIDDEN", async () => {
    for (const route of portalRoutes) {
      const basic = host.basic(host.admin.clientId, host.admin.clientSecret);
      for (const [why, person] of [["alone", null], ["beside a valid session", owner]] as const) {
        const { status, code } = await send(route, person, { authorization: basic });
        expect({ route: label(route), why, status, code }).toEqual({ route: label(route), why, status: 403, code: "FORBIDDEN" });
      }
    }
  });

  it("refuses a request without a usable session with 401 UNAUTHORIZED and names where to sign in", async () => {
    const tampered = { ...owner, headers: { ...owner.headers, cookie: owner.headers.cookie.slice(0, -3) + (owner.headers.cookie.endsWith("AAA") ? "BBB" : "AAA") } };
    for (const route of portalRoutes) {
      for (const [why, person] of [["no session", null], ["tampered cookie", tampered], ["expired session", expired]] as const) {
        const { status, code, headers } = await send(route, person);
        expect({ route: label(route), why, status, code }).toEqual({ route: label(route), why, status: 401, code: "UNAUTHORIZED" });
        expect(headers.get("www-authenticate")).toMatch(/^Cookie realm="portal", form-action="\/api\/v2\/portal\/auth\/sign-in"/);
      }
    }
  });

  it("refuses a sign-in without MFA with 403 MFA_REQUIRED", async () => {
    for (const route of portalRoutes) {
      const { status, code } = await send(route, withoutMfa);
      expect({ route: label(route), status, code }).toEqual({ route: label(route), status: 403, code: "MFA_REQUIRED" });
    }
  });

  it("refuses a person who is not a registered, active user with 403 USER_NOT_REGISTERED", async () => {
    for (const route of portalRoutes) {
      for (const [why, person] of [["unregistered", unregistered], ["deactivated", deactivated]] as const) {
        const { status, code } = await send(route, person);
        expect({ route: label(route), why, status, code }).toEqual({ route: label(route), why, status: 403, code: "USER_NOT_REGISTERED" });
      }
    }
  });

  it("refuses a change without the session's CSRF token, or from another site, with 403 FORBIDDEN", async () => {
    for (const route of portalRoutes.filter(isChange)) {
      const noToken = { ...owner, headers: { cookie: owner.headers.cookie } } as TestPerson;
      const otherSession = (await host.person({ organizationalRole: "Admin" })).headers["x-csrf-token"];
      for (const [why, person, headers] of [
        ["no token", noToken, {}],
        ["another session's token", owner, { "x-csrf-token": otherSession }],
        ["cross-site", owner, { "sec-fetch-site": "cross-site" }],
      ] as const) {
        const { status, code } = await send(route, person, headers);
        expect({ route: label(route), why, status, code }).toEqual({ route: label(route), why, status: 403, code: "FORBIDDEN" });
      }
    }
  });

  it("lets each organizational role call exactly the routes that name it (Admin every one), 403 FORBIDDEN otherwise", async () => {
    for (const route of portalRoutes) {
      for (const role of organizationalRoles) {
        const { status, code, target } = await send(route, byRole.get(role)!);
        const allowed = !route.roles || route.roles.includes(role);
        if (allowed) {
          expect(code === "FORBIDDEN" && target === "organizationalRole", `${label(route)} as ${role}: ${status} ${code}`).toBe(false);
          expect(["UNAUTHORIZED", "MFA_REQUIRED", "USER_NOT_REGISTERED", "INSUFFICIENT_WORKSPACE_ROLE"], `${label(route)} as ${role}`).not.toContain(code);
          expect(status, `${label(route)} as ${role}`).toBeLessThan(500);
        } else {
          expect({ route: label(route), role, status, code, target }).toEqual({ route: label(route), role, status: 403, code: "FORBIDDEN", target: "organizationalRole" });
        }
      }
    }
  });

  it("on a workspace route, refuses a person without a role there (unless organization-wide) or without the role the route needs", async () => {
    for (const route of portalRoutes.filter((r) => r.kind === "personWorkspace")) {
      for (const role of organizationalRoles.filter((r) => !route.roles || route.roles.includes(r))) {
        // Deciding approvals: the organization's Admin decides without the workspace role.
        const asAdmin = route.adminWithoutWorkspaceRole === true && role === "Admin";
        const none = await send(route, withoutWorkspaceRole.get(role)!);
        const refusedWithout = !asAdmin && (route.workspaceRole !== undefined || !ORGANIZATION_WIDE_ROLES.includes(role));
        expect(none.code === "INSUFFICIENT_WORKSPACE_ROLE", `${label(route)} as ${role} without a workspace role: ${none.status} ${none.code}`).toBe(refusedWithout);
        const analyst = await send(route, analystByRole.get(role)!);
        expect(analyst.code === "INSUFFICIENT_WORKSPACE_ROLE", `${label(route)} as ${role} and Analyst: ${analyst.status} ${analyst.code}`).toBe(route.workspaceRole === "Owner" && !asAdmin);
      }
    }
  });

  it("a workspace outside the person's organization does not exist for them (404), even for an Admin", async () => {
    const customer = host.demo.customers[0]!;
    const foreignAdmin = await host.person({ organizationalRole: "Admin", accountId: customer.id });
    const providerWorkspace = host.demo.workspaces.find((w) => w.accountId === host.demo.provider.id)!;
    for (const route of portalRoutes.filter((r) => r.kind === "personWorkspace")) {
      const res = await host.portal(foreignAdmin, route.method, route.path.replace(/\{(\w+)\}/g, (_, n: string) => (n === "workspaceId" ? providerWorkspace.id : "00000000-0000-4000-8000-000000000001")), {
        body: isChange(route) ? {} : undefined,
      });
      const problem = (await res.json()) as { code: string; target?: string };
      expect({ route: label(route), status: res.status, code: problem.code, target: problem.target }).toMatchObject({ route: label(route), status: 404, code: "NOT_FOUND", target: "workspaceId" });
    }
  });

  it("judges an Idempotency-Key only once the caller may call: a refused person is refused as before, a malformed key of an allowed one is 400 naming the header", async () => {
    const keyed = portalRoutes.filter((r) => r.idempotencyKey);
    expect(keyed.length).toBeGreaterThan(0);
    for (const route of keyed) {
      const refused = await send(route, null, { "idempotency-key": "" });
      expect({ route: label(route), status: refused.status, code: refused.code }).toEqual({ route: label(route), status: 401, code: "UNAUTHORIZED" });
      const forbidden = await send(route, owner, { "idempotency-key": "", "sec-fetch-site": "cross-site" });
      expect({ route: label(route), status: forbidden.status, code: forbidden.code }).toEqual({ route: label(route), status: 403, code: "FORBIDDEN" });
      const malformed = await send(route, owner, { "idempotency-key": "k".repeat(256) });
      expect({ route: label(route), status: malformed.status, code: malformed.code, target: malformed.target }).toEqual({ route: label(route), status: 400, code: "VALIDATION_ERROR", target: "Idempotency-Key" });
    }
  });

  it("ends every session of a person signed out, and of one deactivated since", async () => {
    const me = portalRoutes.find((r) => r.path === "/portal/me")!;
    const person = await host.person({ organizationalRole: "Member" });
    expect((await send(me, person)).status).toBe(200);
    const user = (await host.services.stores.users.findByDirectoryIdentity(person.tenantId, person.userId))[0]!;
    const found = await host.services.stores.users.find([user.accountId], user.id);
    clock += 1000;
    await host.services.stores.users.replace({ ...user, sessionsValidFrom: new Date(clock).toISOString() }, found!.etag);
    host.services.people.evict(person.tenantId, person.userId);
    expect(await send(me, person)).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
  });
});
