import { z } from "zod";
import { auditRecord } from "../../platform/events/audit-record";
import { outboxScope } from "../../platform/store/outbox-scope";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { pageQueryFields, pageRequest, pagination } from "../../platform/http/paging";
import { commit } from "../../platform/store/commit";
import { organizationRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import type { OrganizationalRole } from "../../model/organizations/roles";
import type { UserRecord } from "../../model/organizations/user";
import { EXAMPLE_LEAVING_USER, EXAMPLE_USER } from "../../platform/http/examples";
import { upsertUserExample, userExample } from "../examples/identity-examples";
import { organizationalRoleSchema } from "../schemas/service-account-schemas";

const tag = "Users";

export const userView = z.object({
  id: z.guid(),
  displayName: z.string(),
  email: z.string(),
  organizationalRole: organizationalRoleSchema,
  isActive: z.boolean(),
}).meta({ examples: [userExample] });

const listUsersQuery = z
  .object({
    email: z.string().trim().min(1).max(320).optional().describe("Exact e-mail address, case-insensitive."),
    role: organizationalRoleSchema.optional().describe("Only users with this organizational role."),
    ...pageQueryFields,
  })
  .strict();

const upsertUserBody = z
  .object({
    userId: z.guid().describe("The user's directory object id."),
    displayName: z.string().trim().min(1).max(256),
    email: z.email().max(320),
    tenantId: z.guid().optional().describe("The directory tenant the user signs in from. Required for a new user; left out, a known user keeps theirs."),
    isOwner: z
      .boolean()
      .optional()
      .describe("Owners hold the Admin role; changing it needs org:users:roles. Left out, the role stays as it is (a new user is a Member)."),
  })
  .strict()
  .meta({ examples: [upsertUserExample] });

const userId = z.guid().describe("The user's directory object id.");
const userIdParams = z.object({ userId: userId.meta({ examples: [EXAMPLE_USER.id] }) });
/** The delete example has a target of its own: the analyst who is leaving (the upsert example brings them back). */
const deleteUserParams = z.object({ userId: userId.meta({ examples: [EXAMPLE_LEAVING_USER.id] }) });

export const userRoutes: RouteGroup = {
  name: "users",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/users",
      summary: "List the users of your organization",
      tag,
      auth: "org:users:read",
      query: listUsersQuery,
      response: z.array(userView).meta({ examples: [[userExample]] }),
      paginated: true,
      async handler(input) {
        const { email, role } = input.query;
        // The token is bound to the filters: a token from one filtered listing is invalid for another.
        const binding = `users:${email?.toLowerCase() ?? ""}:${role ?? ""}`;
        const page = await input.stores.users.list(
          input.principal.organizationAccountIds,
          { email, role },
          pageRequest(input, input.query, binding),
        );
        return { data: page.items.map(toUserView), pagination: pagination(input, page, binding) };
      },
    }),
    organizationRoute({
      method: "GET",
      path: "/users/{userId}",
      summary: "Get one user",
      tag,
      auth: "org:users:read",
      params: userIdParams,
      response: userView,
      async handler(input) {
        const found = await input.stores.users.find(input.principal.organizationAccountIds, input.params.userId.toLowerCase());
        if (!found) throw notFound("The user", "userId");
        return { data: toUserView(found.value) };
      },
    }),
    organizationRoute({
      method: "PUT",
      path: "/users",
      summary: "Create or update a user",
      tag,
      auth: "org:users:manage",
      problems: ["CONFLICT"],
      body: upsertUserBody,
      response: z.literal(true).meta({ examples: [true] }),
      successStatus: [200, 201],
      responseHeaders: [{ name: "Location", status: 201 }],
      async handler(input) {
        const { body, principal } = input;
        const users = input.stores.users;
        const userId = body.userId.toLowerCase();
        const stamp = input.now().toISOString();
        let existed = false;
        await commit({
          deadline: input.deadline,
          async read() {
            const existing = await users.find(principal.organizationAccountIds, userId);
            existed = existing !== undefined;
            // A new user joins the caller's own account; a known one stays in the account it is in.
            if (!existing && body.tenantId === undefined) {
              throw new ApiError("VALIDATION_ERROR", "A new user needs tenantId.", { target: "tenantId", errors: { tenantId: ["Required for a new user."] } });
            }
            const current = existing ?? { value: newUser(userId, principal.accountId, stamp), etag: null };
            const sameEmail = await users.findByEmail(current.value.accountId, body.email);
            if (sameEmail && sameEmail.id !== userId) {
              throw new ApiError("CONFLICT", "Another user of the account has this e-mail address.", { target: "email" });
            }
            return current;
          },
          change(user) {
            // Left out, isOwner changes nothing: an omission never demotes (nor promotes) anyone.
            const role = body.isOwner === undefined ? user.organizationalRole : nextRole(user.organizationalRole, body.isOwner);
            if (role !== user.organizationalRole && !principal.scopes.has("org:users:roles")) {
              throw new ApiError("INSUFFICIENT_SCOPE", "Changing a user's role (isOwner) needs the scope org:users:roles.", {
                target: "org:users:roles",
              });
            }
            Object.assign(user, { displayName: body.displayName, email: body.email, tenantId: (body.tenantId ?? user.tenantId).toLowerCase(), organizationalRole: role, lastModifiedAt: stamp });
            return [
              auditRecord(
                input.actor,
                {
                  activityType: existed ? "UserUpdated" : "UserCreated",
                  activityAction: existed ? "Update" : "Create",
                  targetResourceType: "User",
                  targetResourceId: userId,
                  targetResourceName: user.displayName,
                  metadata: { email: user.email, organizationalRole: role, tenantId: user.tenantId },
                  accountId: user.accountId,
                },
                outboxScope.users(user.accountId),
                input.now(),
              ),
            ];
          },
          write: (user, etag, outbox) => (etag === null ? users.create(user, outbox) : users.replace(user, etag, outbox)),
          outbox: input.events.outbox,
        });
        // A new user is at its own address, which the answer names.
        return existed ? { data: true } : { data: true, status: 201, headers: { Location: `${input.origin}/api/v2/users/${userId}` } };
      },
    }),
    organizationRoute({
      method: "DELETE",
      path: "/users/{userId}",
      summary: "Delete a user",
      tag,
      auth: "org:users:manage",
      problems: ["CONFLICT"],
      params: deleteUserParams,
      response: z.literal(true).meta({ examples: [true] }),
      async handler(input) {
        const { principal } = input;
        await commit({
          deadline: input.deadline,
          async read() {
            const found = await input.stores.users.find(principal.organizationAccountIds, input.params.userId.toLowerCase());
            if (!found) throw notFound("The user", "userId");
            return found;
          },
          change: (user) => [
            auditRecord(
              input.actor,
              {
                activityType: "UserDeleted",
                activityAction: "Delete",
                targetResourceType: "User",
                targetResourceId: user.id,
                targetResourceName: user.displayName,
                metadata: { email: user.email },
                accountId: user.accountId,
              },
              outboxScope.users(user.accountId),
              input.now(),
            ),
          ],
          write: (user, etag, outbox) => input.stores.users.delete(user.accountId, user.id, etag!, outbox),
          outbox: input.events.outbox,
        });
        return { data: true };
      },
    }),
  ],
};

/** A user the service has not seen: a Member, active, until the upsert sets what it sets. */
function newUser(id: string, accountId: string, stamp: string): UserRecord {
  return { id, accountId, displayName: "", email: "", tenantId: "", organizationalRole: "Member", isActive: true, createdAt: stamp, lastModifiedAt: stamp };
}

/** `isOwner` maps to the Admin role; clearing it demotes an Admin to Member and leaves other roles alone. */
function nextRole(current: OrganizationalRole, isOwner: boolean): OrganizationalRole {
  if (isOwner) return "Admin";
  if (current === "Admin") return "Member";
  return current;
}

function toUserView(u: UserRecord): z.infer<typeof userView> {
  return { id: u.id, displayName: u.displayName, email: u.email, organizationalRole: u.organizationalRole, isActive: u.isActive };
}
