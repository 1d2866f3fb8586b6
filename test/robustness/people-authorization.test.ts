import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organizationalRoles, type OrganizationalRole, type WorkspaceRole } from "../../shared/model/organizations/roles";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";

/**
 * Every (actor's organizational role x target's organizational role and workspace roles x field
 * changed) of a person's registration, each actor changing their own, and each actor ending every
 * session of each target, against the rules the role table of docs/portal.md states: only an Admin or
 * a UserAdmin changes registrations and ends sessions; only an Admin touches an Admin's registration
 * (in any field: deactivating and reactivating them included), grants or takes away Admin, or grants
 * workspace Owner (taking it away is a UserAdmin's too); nobody changes their own roles of any kind or
 * deactivates themselves. Ending sessions writes no field of the registration, so a UserAdmin ends an
 * Admin's as anyone's (the table's "end their sessions"). Generated: a new role or field is covered
 * without a new case. The rules are written here independently of the service's code, from the table.
 */

type Json = Record<string, unknown>;
type WorkspaceRoles = { workspaceId: string; role: WorkspaceRole }[];
/** A change: `apply` makes it from the registration; `from` sets up the registration it starts from (e.g. inactive, to reactivate). */
type Change = { name: string; from?(body: Json): Json; apply(body: Json): Json };

let host: TestHost;
let admin: TestPerson;
/** Every target holds Analyst on the first; those holding Owner too hold it on the second. */
let workspaceId: string;
let ownedWorkspaceId: string;

beforeAll(async () => {
  host = await startTestHost();
  admin = await host.person({ organizationalRole: "Admin" });
  workspaceId = host.demo.workspaces.find((w) => w.accountId === host.demo.provider.id)!.id;
  // A customer's: the provider's organization holds its customers' workspaces too.
  ownedWorkspaceId = host.demo.workspaces.find((w) => w.accountId !== host.demo.provider.id)!.id;
}, 120_000);
afterAll(() => host?.close());

/** What a target holds on the workspaces: Analyst, or Analyst and (elsewhere) Owner. */
const holdings: { name: string; roles(): WorkspaceRoles }[] = [
  { name: "Analyst", roles: () => [{ workspaceId, role: "Analyst" }] },
  {
    name: "Analyst and Owner",
    roles: () => [
      { workspaceId, role: "Analyst" },
      { workspaceId: ownedWorkspaceId, role: "Owner" },
    ],
  },
];

/** The changes a registration can undergo, each alone. */
const changes: Change[] = [
  { name: "displayName", apply: (b) => ({ ...b, displayName: `${b.displayName as string} (renamed)` }) },
  { name: "email", apply: (b) => ({ ...b, email: `moved.${randomUUID().slice(0, 8)}@contoso-mssp.example` }) },
  { name: "tenantId", apply: (b) => ({ ...b, tenantId: randomUUID() }) },
  { name: "isActive false", apply: (b) => ({ ...b, isActive: false }) },
  { name: "isActive true (reactivation)", from: (b) => ({ ...b, isActive: false }), apply: (b) => ({ ...b, isActive: true }) },
  ...organizationalRoles.map((role) => ({ name: `organizationalRole ${role}`, apply: (b: Json) => ({ ...b, organizationalRole: role }) })),
  { name: "workspace Analyst only", apply: (b) => ({ ...b, workspaceRoles: [{ workspaceId, role: "Analyst" }] }) },
  { name: "workspace Owner", apply: (b) => ({ ...b, workspaceRoles: [{ workspaceId, role: "Owner" }] }) },
  { name: "workspace Owner on the second only", apply: (b) => ({ ...b, workspaceRoles: [{ workspaceId: ownedWorkspaceId, role: "Owner" }] }) },
  { name: "workspace roles taken away", apply: (b) => ({ ...b, workspaceRoles: [] }) },
];

/** Whether `actor` may make `change` to a registration of role `target` (of someone else, or their own). */
function allowed(actor: OrganizationalRole, target: OrganizationalRole, before: Json, after: Json, self: boolean): boolean {
  if (actor !== "Admin" && actor !== "UserAdmin") return false;
  const roleChanged = before.organizationalRole !== after.organizationalRole;
  const workspaceRolesChanged = JSON.stringify(before.workspaceRoles) !== JSON.stringify(after.workspaceRoles);
  if (self && (roleChanged || workspaceRolesChanged || after.isActive === false)) return false;
  if (actor !== "Admin") {
    if (target === "Admin" || after.organizationalRole === "Admin") return false;
    // Granting is holding Owner on a workspace where one did not: taking Owner away is not.
    const owned = (roles: unknown) => new Set((roles as WorkspaceRoles).filter((r) => r.role === "Owner").map((r) => r.workspaceId));
    const ownedBefore = owned(before.workspaceRoles);
    if ([...owned(after.workspaceRoles)].some((ws) => !ownedBefore.has(ws))) return false;
  }
  return true;
}

function changed(before: Json, after: Json): boolean {
  return JSON.stringify(before) !== JSON.stringify(after);
}

/** A registration of `role` holding `workspaceRoles`, made by the Admin (as `from` sets it up): answers its id and body. */
async function registered(role: OrganizationalRole, workspaceRoles: WorkspaceRoles, from: (body: Json) => Json = (b) => b): Promise<{ userId: string; body: Json }> {
  const userId = randomUUID();
  const body = from({
    displayName: `Target ${role}`,
    email: `t.${randomUUID().slice(0, 8)}@contoso-mssp.example`,
    tenantId: admin.tenantId,
    accountId: host.demo.provider.id,
    organizationalRole: role,
    workspaceRoles,
    isActive: true,
  });
  const res = await host.portal(admin, "PUT", `/portal/people/${userId}`, { body });
  expect(res.status).toBe(201);
  return { userId, body };
}

async function registrationOf(userId: string): Promise<Json> {
  const { data } = (await (await host.portal(admin, "GET", `/portal/people/${userId}`)).json()) as { data: Json };
  const { displayName, email, tenantId, accountId, organizationalRole, workspaceRoles, isActive } = data;
  return { displayName, email, tenantId, accountId, organizationalRole, workspaceRoles, isActive };
}

describe("people's registrations: actor role x target role x field", () => {
  for (const actorRole of organizationalRoles) {
    it(`${actorRole} changing others' registrations`, async () => {
      const actor = await host.person({ organizationalRole: actorRole });
      const wrong: string[] = [];
      for (const targetRole of organizationalRoles) {
        for (const holding of holdings) {
          for (const change of changes) {
            const { userId, body } = await registered(targetRole, holding.roles(), change.from);
            const after = change.apply(body);
            if (!changed(body, after)) continue;
            const res = await host.portal(actor, "PUT", `/portal/people/${userId}`, { body: after });
            const expected = allowed(actorRole, targetRole, body, after, false);
            const stored = await registrationOf(userId);
            // Allowed: 200 and stored as sent. Refused: 403, and nothing of it stored.
            const outcome = res.status === 200 && !changed(stored, after) ? "allowed" : res.status === 403 && !changed(stored, body) ? "refused" : `status ${res.status}`;
            if (outcome !== (expected ? "allowed" : "refused")) wrong.push(`${targetRole} holding ${holding.name}, ${change.name}: ${outcome}, expected ${expected ? "allowed" : "refused"}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });

    it(`${actorRole} changing their own registration`, async () => {
      const wrong: string[] = [];
      for (const holding of holdings) {
        for (const change of changes) {
          const actor = await host.person({ organizationalRole: actorRole, workspaceAssignments: holding.roles() });
          const before = await registrationOf(actor.userId);
          // A person signed in is active: reactivating oneself is no change, skipped below.
          const after = change.apply(before);
          if (!changed(before, after)) continue;
          const res = await host.portal(actor, "PUT", `/portal/people/${actor.userId}`, { body: after });
          const expected = allowed(actorRole, actorRole, before, after, true);
          const stored = await registrationOf(actor.userId);
          const outcome = res.status === 200 && !changed(stored, after) ? "allowed" : res.status === 403 && !changed(stored, before) ? "refused" : `status ${res.status}`;
          if (outcome !== (expected ? "allowed" : "refused")) wrong.push(`holding ${holding.name}, ${change.name}: ${outcome}, expected ${expected ? "allowed" : "refused"}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it(`${actorRole} ending every session of each role, their own included`, async () => {
      const actor = await host.person({ organizationalRole: actorRole });
      const wrong: string[] = [];
      const targets = [...organizationalRoles.map((role) => ({ name: role, role })), { name: "themselves", role: actorRole }];
      for (const target of targets) {
        // People administrators end sessions, and only an Admin ends an Admin's (as with any change to an Admin).
        const mayEnd = (actorRole === "Admin" || actorRole === "UserAdmin") && (target.role !== "Admin" || actorRole === "Admin");
        const expected = mayEnd ? "allowed" : "refused";
        const targetId = target.name === "themselves" ? actor.userId : (await host.person({ organizationalRole: target.role })).userId;
        const res = await host.portal(actor, "POST", `/portal/people/${targetId}/sign-out-everywhere`);
        const { data } = (await (await host.portal(admin, "GET", `/portal/people/${targetId}`)).json()) as { data: Json };
        // Allowed: 200 and the registration's sessions end from then. Refused: 403, and they go on.
        const outcome = res.status === 200 && data.sessionsValidFrom !== null ? "allowed" : res.status === 403 && data.sessionsValidFrom === null ? "refused" : `status ${res.status}, sessionsValidFrom ${String(data.sessionsValidFrom)}`;
        if (outcome !== expected) wrong.push(`${target.name}: ${outcome}, expected ${expected}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});
