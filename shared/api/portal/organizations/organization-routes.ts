import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ApiError, notFound } from "../../../platform/errors/api-error";
import { auditRecord, type AuditEntry } from "../../../platform/events/audit-record";
import { issuePageToken, readPageToken } from "../../../platform/http/paging";
import { personRoute, type PersonInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { commit } from "../../../platform/store/commit";
import { outboxScope } from "../../../platform/store/outbox-scope";
import type { Uses } from "../../../domain/operation-context";
import { isActiveAccount, type AccountRecord } from "../../../model/organizations/account";
import { setPartnerApproval } from "../../../domain/gamebooks/approval-settings";
import { organizationAccount, byPerson } from "../portal-access";
import {
  accountParams,
  createOrganizationBody,
  offboardedAuditPage,
  offboardedAuditParams,
  offboardedAuditQuery,
  offboardedWorkspaceView,
  organizationList,
  organizationView,
  partnerApprovalBody,
  partnerApprovalView,
  providerParams,
  toOffboardedWorkspaceView,
  toOrganizationView,
  updateOrganizationBody,
} from "./organization-schemas";

const tag = "Portal: organizations";

/** The organizations another organization with this name would collide with: the provider's own and the ones it manages. */
async function nameTaken(ctx: Uses<"stores">, providerAccountId: string, name: string, except?: string): Promise<boolean> {
  const provider = await ctx.stores.accounts.get(providerAccountId);
  const siblings = [...(provider ? [provider] : []), ...(await ctx.stores.accounts.listManagedBy(providerAccountId))];
  const wanted = name.toLowerCase();
  return siblings.some((a) => a.id !== except && a.name.toLowerCase() === wanted);
}

/** The audit event of a change to an account, in the account's trail, committed in its scope. */
function accountAudit(input: PersonInput<unknown, unknown, unknown>, account: AccountRecord, entry: Omit<AuditEntry, "targetResourceType" | "targetResourceId" | "targetResourceName" | "accountId">) {
  return auditRecord(
    input.actor,
    { ...entry, targetResourceType: "Organization", targetResourceId: account.id, targetResourceName: account.name, accountId: account.id },
    outboxScope.account(account.id),
    input.now(),
  );
}

/** After a change to an account, every cached caller whose organization includes it is read again here. */
function evictOrganization(input: Uses<"auth" | "people">, accountId: string): void {
  input.auth.evictOrganization(accountId);
  input.people.evictOrganization(accountId);
}

const cursorSchema = z.strictObject({ after: z.number().int().min(0) });

/**
 * The service provider's customer organizations, as the provider's people manage them in the portal:
 * list and read them, create one, rename, deactivate and reactivate it, and the provider's partner
 * approval setting. Every write is audited in the same commit, with the person as the actor, in the
 * changed organization's trail. An organization outside the person's own (their account and the
 * accounts it manages) does not exist for them: 404.
 */
export const organizationRoutes: RouteGroup = {
  name: "portal-organizations",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/organizations",
      summary: "Your organization: your account and the customer organizations it manages",
      description: "Your own account first, then the organizations it manages by name.",
      tag,
      roles: "any",
      response: organizationList,
      async handler(input) {
        const own = await input.stores.accounts.get(input.person.accountId);
        const managed = (await input.stores.accounts.listManagedBy(input.person.accountId)).sort(
          (a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1),
        );
        return { data: [...(own ? [own] : []), ...managed].map(toOrganizationView) };
      },
    }),
    personRoute({
      method: "POST",
      path: "/portal/organizations",
      idempotencyKey: true,
      responseHeaders: ["Location", "ETag"],
      summary: "Create a customer organization managed by your service provider",
      description:
        "Only a service provider's people create organizations; the new one is a `Customer` managed by their account. " +
        "Its name must be unique among the provider's organizations (409 `CONFLICT` otherwise).",
      tag,
      roles: ["WorkspaceAdmin"],
      body: createOrganizationBody,
      response: organizationView,
      successStatus: 201,
      problems: ["FORBIDDEN", "CONFLICT"],
      async handler(input) {
        const { person, body } = input;
        const provider = await input.stores.accounts.get(person.accountId);
        if (!provider || provider.kind !== "ServiceProvider") {
          throw new ApiError("FORBIDDEN", "Only a service provider's people create customer organizations.", { target: "accountId" });
        }
        if (!isActiveAccount(provider)) throw new ApiError("FORBIDDEN", "Your organization is deactivated.", { target: "accountId" });
        if (await nameTaken(input, provider.id, body.name)) {
          throw new ApiError("CONFLICT", `Your organization already has one named "${body.name}".`, { target: "name" });
        }
        const stamp = input.now().toISOString();
        const account: AccountRecord = {
          id: randomUUID(),
          name: body.name,
          kind: "Customer",
          managedByAccountId: provider.id,
          isActive: true,
          createdAt: stamp,
          lastModifiedAt: stamp,
        };
        const created = await commit({
          deadline: input.deadline,
          read: async () => ({ value: account, etag: null }),
          change: (draft) => [accountAudit(input, draft, { activityType: "OrganizationCreated", activityAction: "Create", metadata: { name: draft.name, managedByAccountId: provider.id } })],
          write: (draft, _etag, outbox) => input.stores.accounts.create(draft, outbox),
          outbox: input.events.outbox,
          // A new id can collide only with itself.
          maxAttempts: 1,
        });
        evictOrganization(input, provider.id);
        return {
          status: 201,
          data: toOrganizationView(created.value),
          headers: { Location: `${input.origin}/api/v2/portal/organizations/${account.id}`, ETag: created.etag },
        };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/organizations/{accountId}",
      responseHeaders: ["ETag"],
      summary: "One organization of yours",
      tag,
      roles: "any",
      params: accountParams,
      response: organizationView,
      async handler(input) {
        const found = await organizationAccount(input, input.person, input.params.accountId);
        return { data: toOrganizationView(found.value), headers: { ETag: found.etag } };
      },
    }),
    personRoute({
      method: "PATCH",
      path: "/portal/organizations/{accountId}",
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Rename an organization, or deactivate or reactivate one your organization manages",
      description:
        "Fields not sent keep their values. `isActive: false` deactivates an organization your own manages: its service accounts (401) and people " +
        "(403 `USER_NOT_REGISTERED`) are refused from then on, and no workspace can be onboarded into it; its workspaces and their data stay, and your " +
        "organization still sees and manages it. Nobody deactivates the organization they act from (403). Optional `If-Match` with the `ETag` of a read: " +
        "a mismatch is 409 `CONFLICT`; without it a concurrent change is applied on a fresh read, never lost.",
      tag,
      roles: ["WorkspaceAdmin"],
      params: accountParams,
      body: updateOrganizationBody,
      response: organizationView,
      problems: ["FORBIDDEN", "CONFLICT"],
      async handler(input) {
        const { person, body } = input;
        const accountId = input.params.accountId.toLowerCase();
        const stamp = input.now().toISOString();
        const result = await commit({
          deadline: input.deadline,
          async read() {
            const found = await organizationAccount(input, person, accountId);
            if (body.isActive !== undefined && body.isActive !== isActiveAccount(found.value) && found.value.managedByAccountId !== person.accountId) {
              throw new ApiError("FORBIDDEN", "Only the service provider managing an organization deactivates or reactivates it; nobody deactivates their own.", {
                target: "isActive",
              });
            }
            const provider = found.value.managedByAccountId ?? found.value.id;
            if (body.name !== undefined && body.name.toLowerCase() !== found.value.name.toLowerCase() && (await nameTaken(input, provider, body.name, found.value.id))) {
              throw new ApiError("CONFLICT", `The organization's provider already has one named "${body.name}".`, { target: "name" });
            }
            return found;
          },
          ifMatch: input.header("if-match"),
          change(draft) {
            const before = { name: draft.name, isActive: isActiveAccount(draft) };
            if (body.name !== undefined) draft.name = body.name;
            if (body.isActive !== undefined && body.isActive !== before.isActive) {
              draft.isActive = body.isActive;
              if (body.isActive) delete draft.deactivated;
              else draft.deactivated = byPerson(person, stamp);
            }
            const after = { name: draft.name, isActive: isActiveAccount(draft) };
            if (after.name === before.name && after.isActive === before.isActive) return null;
            draft.lastModifiedAt = stamp;
            const activityType = after.isActive !== before.isActive ? (after.isActive ? "OrganizationReactivated" : "OrganizationDeactivated") : "OrganizationUpdated";
            return [accountAudit(input, draft, { activityType, activityAction: "Update", metadata: { before, after } })];
          },
          write: (draft, etag, outbox) => input.stores.accounts.replace(draft, etag!, outbox),
          outbox: input.events.outbox,
        });
        evictOrganization(input, accountId);
        // Nothing changed: answer the organization as it is.
        const current = result ?? (await organizationAccount(input, person, accountId));
        return { data: toOrganizationView(current.value), headers: { ETag: current.etag } };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/organizations/{accountId}/partner-approval",
      responseHeaders: ["ETag"],
      summary: "A service provider's approval setting for gamebook runs in the organizations it manages",
      description: "An organization that is not a service provider has none: `NoApproval`.",
      tag,
      roles: ["WorkspaceAdmin"],
      params: providerParams,
      response: partnerApprovalView,
      async handler(input) {
        const found = await organizationAccount(input, input.person, input.params.accountId);
        return { data: found.value.partnerApproval ?? { mode: "NoApproval", accountIds: [] }, headers: { ETag: found.etag } };
      },
    }),
    personRoute({
      method: "PUT",
      path: "/portal/organizations/{accountId}/partner-approval",
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Set a service provider's approval setting; accountIds empty means every organization it manages",
      description:
        "Runs in the organizations it covers need approval as `mode` says, whatever their own workspace policy. Only a service provider has one " +
        "(400 otherwise), naming only organizations it manages. Optional `If-Match` with the `ETag` of the read.",
      tag,
      roles: ["WorkspaceAdmin"],
      params: providerParams,
      body: partnerApprovalBody,
      response: partnerApprovalView,
      problems: ["CONFLICT"],
      async handler(input) {
        const { person, body } = input;
        const result = await setPartnerApproval(input, input.params.accountId, body, {
          ifMatch: input.header("if-match"),
          read: () => organizationAccount(input, person, input.params.accountId),
        });
        return { data: result.value.partnerApproval ?? { mode: "NoApproval", accountIds: [] }, headers: { ETag: result.etag } };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/organizations/{accountId}/offboarded-workspaces",
      summary: "The offboarded workspaces of an organization of yours, whose audit trails stay exportable",
      tag,
      roles: [],
      params: accountParams,
      response: z.array(offboardedWorkspaceView).meta({ examples: [offboardedWorkspaceView.meta()?.examples ?? []] }),
      async handler(input) {
        const found = await organizationAccount(input, input.person, input.params.accountId);
        return { data: (await input.stores.workspaces.listOffboarded([found.value.id])).map(toOffboardedWorkspaceView) };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/organizations/{accountId}/offboarded-workspaces/{offboardedWorkspaceId}/audit",
      summary: "Export an offboarded workspace's audit trail, in recorded order, resumable",
      description:
        "What the contract's audit export gave while the workspace was onboarded, for its organization's Admins once it is gone from every other route. " +
        "`pagination.continuationToken` is always there: where to go on; a page shorter than `pageSize` means you are caught up.",
      tag,
      roles: [],
      params: offboardedAuditParams,
      query: offboardedAuditQuery,
      response: offboardedAuditPage,
      paginated: true,
      async handler(input) {
        const { person, query } = input;
        const account = await organizationAccount(input, person, input.params.accountId);
        const workspaceId = input.params.offboardedWorkspaceId.toLowerCase();
        const workspace = (await input.stores.workspaces.read(workspaceId))?.value;
        // Only an offboarded workspace of this very organization has its trail here.
        if (!workspace?.offboarded || workspace.accountId !== account.value.id) throw notFound("The offboarded workspace", "offboardedWorkspaceId");
        const listing = `offboarded-audit:${workspace.id}`;
        const after = query.continuationToken ? readPageToken(input, query.continuationToken, listing, cursorSchema, "continuationToken").after : 0;
        const page = await input.stores.audit.listWorkspaceTrail(workspace.id, after, query.pageSize);
        const last = page.at(-1)?.sequence ?? after;
        const data = page.map(({ event }) => {
          const { accountId: _account, ...contractFields } = event;
          return { ...contractFields, workspaceId: event.workspaceId ?? workspace.id };
        });
        return { data, pagination: { hasMore: page.length === query.pageSize, continuationToken: issuePageToken(input, listing, { after: last }) } };
      },
    }),
  ],
};
