import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organizationalRoles, type OrganizationalRole } from "../../shared/model/organizations/roles";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";

/**
 * Every (actor's organizational role x target's organizational role x field changed) of a person's
 * registration, and each actor changing their own, against the rules the role table of docs/portal.md states:
 * only an Admin or a UserAdmin changes registrations; only an Admin touches an Admin's registration
 * (in any field), grants or takes away Admin, or grants workspace Owner; nobody changes their own
 * roles of any kind or deactivates themselves. Generated: a new role or field is covered without a
 * new case. The rules are written here independently of the service's code, from the table.
 */

type Json = Record<string, unknown>;
type Change = { name: string; apply(body: Json, workspaceId: string): Json };

let host: TestHost;
let admin: TestPerson;
let workspaceId: string;

beforeAll(async () => {
  host = await startTestHost();
  admin = await host.person({ organizationalRole: "Admin" });
  workspaceId = host.demo.workspaces.find((w) => w.accountId === host.demo.provider.id)!.id;
}, 120_000);
afterAll(() => host?.close());

/** The changes a registration can undergo, each alone. */
const changes: Change[] = [
  { name: "displayName", apply: (b) => ({ ...b, displayName: `${b.displayName as string} (renamed)` }) },
  { name: "tenantId", apply: (b) => ({ ...b, tenantId: randomUUID() }) },
  { name: "isActive false", apply: (b) => ({ ...b, isActive: false }) },
  ...organizationalRoles.map((role) => ({ name: `organizationalRole ${role}`, apply: (b: Json) => ({ ...b, organizationalRole: role }) })),
  { name: "workspace Analyst", apply: (b, ws) => ({ ...b, workspaceRoles: [{ workspaceId: ws, role: "Analyst" }] }) },
  { name: "workspace Owner", apply: (b, ws) => ({ ...b, workspaceRoles: [{ workspaceId: ws, role: "Owner" }] }) },
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
    const grantsOwner = (after.workspaceRoles as { role: string }[]).some((r) => r.role === "Owner") && !(before.workspaceRoles as { role: string }[]).some((r) => r.role === "Owner");
    if (grantsOwner) return false;
  }
  return true;
}

function changed(before: Json, after: Json): boolean {
  return JSON.stringify(before) !== JSON.stringify(after);
}

/** A registration of `role` made by the Admin, holding Analyst on the workspace: answers its id and body. */
async function registered(role: OrganizationalRole): Promise<{ userId: string; body: Json }> {
  const userId = randomUUID();
  const body = {
    displayName: `Target ${role}`,
    email: `t.${randomUUID().slice(0, 8)}@contoso-mssp.example`,
    tenantId: admin.tenantId,
    accountId: host.demo.provider.id,
    organizationalRole: role,
    workspaceRoles: [{ workspaceId, role: "Analyst" }],
    isActive: true,
  };
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
        for (const change of changes) {
          const { userId, body } = await registered(targetRole);
          const after = change.apply(body, workspaceId);
          if (!changed(body, after)) continue;
          const res = await host.portal(actor, "PUT", `/portal/people/${userId}`, { body: after });
          const expected = allowed(actorRole, targetRole, body, after, false);
          const stored = await registrationOf(userId);
          // Allowed: 200 and stored as sent. Refused: 403, and nothing of it stored.
          const outcome = res.status === 200 && !changed(stored, after) ? "allowed" : res.status === 403 && !changed(stored, body) ? "refused" : `status ${res.status}`;
          if (outcome !== (expected ? "allowed" : "refused")) wrong.push(`${targetRole} ${change.name}: ${outcome}, expected ${expected ? "allowed" : "refused"}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it(`${actorRole} changing their own registration`, async () => {
      const wrong: string[] = [];
      for (const change of changes) {
        const actor = await host.person({ organizationalRole: actorRole, workspaceAssignments: [{ workspaceId, role: "Analyst" }] });
        const before = await registrationOf(actor.userId);
        const after = change.apply(before, workspaceId);
        if (!changed(before, after)) continue;
        const res = await host.portal(actor, "PUT", `/portal/people/${actor.userId}`, { body: after });
        const expected = allowed(actorRole, actorRole, before, after, true);
        const stored = await registrationOf(actor.userId);
        const outcome = res.status === 200 && !changed(stored, after) ? "allowed" : res.status === 403 && !changed(stored, before) ? "refused" : `status ${res.status}`;
        if (outcome !== (expected ? "allowed" : "refused")) wrong.push(`${change.name}: ${outcome}, expected ${expected ? "allowed" : "refused"}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});
