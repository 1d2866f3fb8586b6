import { ApiError, notFound } from "../../../platform/errors/api-error";
import { auditRecord } from "../../../platform/events/audit-record";
import { pageRequest, pagination } from "../../../platform/http/paging";
import { personRoute, type PersonInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { endSessions } from "../../../domain/organizations/person-sessions";
import { commit } from "../../../platform/store/commit";
import { outboxScope } from "../../../platform/store/outbox-scope";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import type { Versioned } from "../../../platform/store/ports";
import { organizationAccountIds } from "../../../platform/auth/organization-scope";
import type { UserRecord } from "../../../model/organizations/user";
import { fieldProblem } from "../portal-access";
import {
  listPeopleQuery,
  peopleList,
  personQuery,
  personView,
  putPersonBody,
  signedOutView,
  signOutParams,
  toPersonView,
  userIdParams,
} from "./people-schemas";

const tag = "Portal: people";
/** People and their roles are a UserAdmin's (and an Admin's) to read and change. */
const roles = ["UserAdmin"] as const;

/** The person's registration in one organization of the caller's: the one named, else the first of theirs. */
async function registrationOf(ctx: Uses<"stores">, caller: Person, userId: string, accountId?: string): Promise<Versioned<UserRecord> | undefined> {
  const accounts = accountId === undefined ? caller.organizationAccountIds : caller.organizationAccountIds.filter((id) => id === accountId.toLowerCase());
  return accounts.length === 0 ? undefined : ctx.stores.users.find(accounts, userId.toLowerCase());
}

/** The audit event of a change to a person's registration: in their organization's trail, committed in its users' scope. */
function personAudit(input: PersonInput<unknown, unknown, unknown>, user: UserRecord, activityType: string, activityAction: "Create" | "Update", metadata: Record<string, unknown>) {
  return auditRecord(
    input.actor,
    { activityType, activityAction, targetResourceType: "User", targetResourceId: user.id, targetResourceName: user.displayName, metadata, accountId: user.accountId },
    outboxScope.users(user.accountId),
    input.now(),
  );
}

/** What of a registration the audit trail records (never a session). */
const auditedFields = (u: UserRecord) => ({
  displayName: u.displayName,
  email: u.email,
  tenantId: u.tenantId,
  organizationalRole: u.organizationalRole,
  workspaceRoles: u.workspaceAssignments ?? [],
  isActive: u.isActive,
});

/**
 * People in the portal, for the organization's `UserAdmin`s and `Admin`s: list and read them,
 * register or change one (organizational role, workspace roles, active or not), and end every
 * session of one. Only an `Admin` grants or takes away `Admin`; nobody changes their own
 * organizational role or deactivates themselves. A change applies at once on this instance (the
 * person's cached registration is dropped) and on the others within the cache period; deactivation
 * and signing out end sessions everywhere at once, through the registration's `sessionsValidFrom`.
 * The contract's `/users` endpoints (service accounts managing users) are unchanged beside these.
 */
export const peopleRoutes: RouteGroup = {
  name: "portal-people",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/people",
      summary: "The people of your organization, with their roles",
      description: "By user id; filters `accountId`, `email` (exact, case-insensitive) and `role`. Paged with `continuationToken`.",
      tag,
      roles,
      query: listPeopleQuery,
      response: peopleList,
      paginated: true,
      async handler(input) {
        const { person, query } = input;
        const accountIds = query.accountId ? person.organizationAccountIds.filter((id) => id === query.accountId!.toLowerCase()) : person.organizationAccountIds;
        // The token is bound to the filters: a token from one filtered listing is invalid for another.
        const listing = `portal-people:${query.accountId?.toLowerCase() ?? ""}:${query.email?.toLowerCase() ?? ""}:${query.role ?? ""}`;
        const page = await input.stores.users.list(accountIds, { email: query.email, role: query.role }, pageRequest(input, query, listing));
        return { data: page.items.map(toPersonView), pagination: pagination(input, page, listing) };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/people/{userId}",
      responseHeaders: ["ETag"],
      summary: "One person of your organization",
      tag,
      roles,
      params: userIdParams,
      query: personQuery,
      response: personView,
      async handler(input) {
        const found = await registrationOf(input, input.person, input.params.userId, input.query.accountId);
        if (!found) throw notFound("The person", "userId");
        return { data: toPersonView(found.value), headers: { ETag: found.etag } };
      },
    }),
    personRoute({
      method: "PUT",
      path: "/portal/people/{userId}",
      responseHeaders: ["ETag", { name: "Location", status: 201 }],
      ifMatch: true,
      summary: "Register a person in an organization of yours, or change their registration",
      description:
        "201 when it registered them (with `Location`), 200 when it changed their registration. The body is the whole registration: workspace roles replace what they " +
        "had; `isActive` left out keeps the registration's state (a new one is active). Only an `Admin` grants or takes away `Admin` (403); nobody changes their own organizational role or deactivates themselves (403). " +
        "Deactivating ends the person's sessions at once. Optional `If-Match` with the `ETag` of a read; a mismatch is 409.",
      tag,
      roles,
      params: userIdParams,
      body: putPersonBody,
      response: personView,
      successStatus: [200, 201],
      problems: ["FORBIDDEN", "CONFLICT"],
      async handler(input) {
        const { person, body } = input;
        const userId = input.params.userId.toLowerCase();
        const accountId = body.accountId.toLowerCase();
        if (!person.organizationAccountIds.includes(accountId)) throw fieldProblem("accountId", "No organization of yours has this id.");
        await checkWorkspaceRoles(input, accountId, body.workspaceRoles);
        const self = userId === person.userId;
        const stamp = input.now().toISOString();
        let existed = false;
        let previousTenant: string | undefined;
        const saved = await commit({
          deadline: input.deadline,
          async read() {
            const existing = await input.stores.users.find([accountId], userId);
            existed = existing !== undefined;
            previousTenant = existing?.value.tenantId;
            const sameEmail = await input.stores.users.findByEmail(accountId, body.email);
            if (sameEmail && sameEmail.id !== userId) throw new ApiError("CONFLICT", "Another person of the organization has this e-mail address.", { target: "email" });
            return existing ?? { value: newRegistration(userId, accountId, stamp), etag: null };
          },
          ifMatch: input.header("if-match"),
          change(user) {
            const before = auditedFields(user);
            const workspaceRoles = body.workspaceRoles.map((r) => ({ workspaceId: r.workspaceId.toLowerCase(), role: r.role }));
            const roleChanges = existed ? user.organizationalRole !== body.organizationalRole : body.organizationalRole !== "Member";
            if (roleChanges && (user.organizationalRole === "Admin" || body.organizationalRole === "Admin") && person.organizationalRole !== "Admin") {
              throw new ApiError("FORBIDDEN", "Only an Admin grants or takes away the Admin role.", { target: "organizationalRole" });
            }
            if (self && (existed ? user.organizationalRole !== body.organizationalRole : body.organizationalRole !== "Member")) {
              throw new ApiError("FORBIDDEN", "Nobody changes their own organizational role: ask another Admin.", { target: "organizationalRole" });
            }
            // Nor their own workspace roles, here or in an organization they manage: a role is granted by someone else.
            if (self && !sameWorkspaceRoles(existed ? user.workspaceAssignments ?? [] : [], workspaceRoles)) {
              throw new ApiError("FORBIDDEN", "Nobody changes their own workspace roles: ask another administrator.", { target: "workspaceRoles" });
            }
            // Owner decides containment (approves runs): granted by an Admin only.
            const ownerGranted = workspaceRoles.some(
              (r) => r.role === "Owner" && !(existed ? user.workspaceAssignments ?? [] : []).some((a) => a.workspaceId === r.workspaceId && a.role === "Owner"),
            );
            if (ownerGranted && person.organizationalRole !== "Admin") {
              throw new ApiError("FORBIDDEN", "Only an Admin grants the Owner role on a workspace.", { target: "workspaceRoles" });
            }
            // A registration moved to another directory is another person's sign-in: what began under the old one ends.
            const identityMoved = existed && user.tenantId !== body.tenantId.toLowerCase();
            // Left out, it is what it was (a new registration is active): an omission never reactivates anyone.
            const isActive = body.isActive ?? user.isActive;
            if (self && !isActive) throw new ApiError("FORBIDDEN", "Nobody deactivates themselves.", { target: "isActive" });
            const deactivating = user.isActive && !isActive && existed;
            // Deactivating an Admin takes the role's powers away as surely as demoting them.
            if (deactivating && user.organizationalRole === "Admin" && person.organizationalRole !== "Admin") {
              throw new ApiError("FORBIDDEN", "Only an Admin deactivates an Admin.", { target: "isActive" });
            }
            // Only an Admin changes an Admin's registration, in any field: a UserAdmin who could change an
            // Admin's directory, address or workspace roles could lock them out as surely as demote them.
            if (existed && user.organizationalRole === "Admin" && person.organizationalRole !== "Admin" && changesRegistration(user, body, workspaceRoles)) {
              throw new ApiError("FORBIDDEN", "Only an Admin changes an Admin's registration.", { target: "userId" });
            }
            Object.assign(user, {
              displayName: body.displayName,
              email: body.email,
              tenantId: body.tenantId.toLowerCase(),
              organizationalRole: body.organizationalRole,
              workspaceAssignments: workspaceRoles,
              isActive,
              lastModifiedAt: stamp,
            });
            // Deactivation ends every session of the registration at once, on every instance; so does a move
            // to another directory, so that moving it back does not revive them.
            if (deactivating || identityMoved) user.sessionsValidFrom = stamp;
            const after = auditedFields(user);
            return [
              personAudit(input, user, existed ? "PersonUpdated" : "PersonRegistered", existed ? "Update" : "Create", {
                ...(existed ? { before } : {}),
                after,
                ...(deactivating || identityMoved ? { sessionsEnded: true } : {}),
              }),
            ];
          },
          write: (user, etag, outbox) => (etag === null ? input.stores.users.create(user, outbox) : input.stores.users.replace(user, etag, outbox)),
          outbox: input.events.outbox,
        });
        input.people.evict(saved.value.tenantId, userId);
        if (previousTenant !== undefined && previousTenant !== saved.value.tenantId) input.people.evict(previousTenant, userId);
        const headers: Record<string, string> = { ETag: saved.etag };
        if (existed) return { data: toPersonView(saved.value), headers };
        headers.Location = `${input.origin}/api/v2/portal/people/${userId}?accountId=${accountId}`;
        return { data: toPersonView(saved.value), status: 201, headers };
      },
    }),
    personRoute({
      method: "POST",
      path: "/portal/people/{userId}/sign-out-everywhere",
      summary: "End every portal session of a person",
      description:
        "Sessions live in browsers, so ending them is recorded on each of the person's registrations (`sessionsValidFrom`, now): every session begun " +
        "before is refused from then on, on every instance. Audited on each registration, in its organization's trail. " +
        "Only an Admin ends an Admin's sessions (403 `FORBIDDEN`).",
      tag,
      roles,
      problems: ["FORBIDDEN"],
      params: signOutParams,
      query: personQuery,
      response: signedOutView,
      async handler(input) {
        const found = await registrationOf(input, input.person, input.params.userId, input.query.accountId);
        if (!found) throw notFound("The person", "userId");
        // As with every other change to an Admin: a UserAdmin who could end an Admin's sessions at will
        // could keep them signed out (Entra ID's User Administrator cannot revoke a Global Administrator's either).
        if (found.value.organizationalRole === "Admin" && input.person.organizationalRole !== "Admin") {
          throw new ApiError("FORBIDDEN", "Only an Admin ends an Admin's sessions.", { target: "userId" });
        }
        const { id, tenantId } = found.value;
        const { at, registrations } = await endSessions(
          input,
          tenantId,
          id,
          (user, when) => [personAudit(input, user, "PersonSignedOutEverywhere", "Update", { sessionsValidFrom: when })],
          input.person.organizationAccountIds,
        );
        return { data: { userId: id, sessionsValidFrom: at, registrations } };
      },
    }),
  ],
};

function sameWorkspaceRoles(a: readonly { workspaceId: string; role: string }[], b: readonly { workspaceId: string; role: string }[]): boolean {
  const key = (roles: readonly { workspaceId: string; role: string }[]) =>
    roles
      .map((r) => `${r.workspaceId}:${r.role}`)
      .sort()
      .join(",");
  return key(a) === key(b);
}

/** Whether a PUT changes anything of a registration (besides its timestamps). */
function changesRegistration(user: UserRecord, body: { displayName: string; email: string; tenantId: string; organizationalRole: string; isActive?: boolean }, workspaceRoles: readonly { workspaceId: string; role: string }[]): boolean {
  return (
    user.displayName !== body.displayName ||
    user.email !== body.email ||
    user.tenantId !== body.tenantId.toLowerCase() ||
    user.organizationalRole !== body.organizationalRole ||
    (body.isActive !== undefined && body.isActive !== user.isActive) ||
    !sameWorkspaceRoles(user.workspaceAssignments ?? [], workspaceRoles)
  );
}

/** A registration the service has not seen: the PUT then sets every field. */
function newRegistration(id: string, accountId: string, stamp: string): UserRecord {
  return { id, accountId, displayName: "", email: "", tenantId: "", organizationalRole: "Member", isActive: true, workspaceAssignments: [], createdAt: stamp, lastModifiedAt: stamp };
}

/**
 * Workspace roles name workspaces of the registration's organization (its own account's and, for a
 * provider's person, its customers'), each once; anything else is 400 at the entry.
 */
async function checkWorkspaceRoles(ctx: Uses<"stores">, accountId: string, entries: readonly { workspaceId: string }[]): Promise<void> {
  if (entries.length === 0) return;
  const organization = await organizationAccountIds(ctx.stores.accounts, accountId);
  const known = new Set((await ctx.stores.workspaces.listByAccounts(organization)).map((w) => w.id));
  const errors: Record<string, string[]> = Object.create(null);
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const id = entry.workspaceId.toLowerCase();
    if (!known.has(id)) errors[`workspaceRoles[${i}].workspaceId`] = ["No workspace of this organization has this id."];
    else if (seen.has(id)) errors[`workspaceRoles[${i}].workspaceId`] = ["Named twice: one role per workspace."];
    seen.add(id);
  });
  const fields = Object.keys(errors);
  if (fields.length > 0) throw new ApiError("VALIDATION_ERROR", errors[fields[0]!]![0]!, { target: fields[0], errors });
}
