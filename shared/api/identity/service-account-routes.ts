import { randomUUID } from "node:crypto";
import { z } from "zod";
import { generateSecret, hashSecret } from "../../platform/auth/secrets";
import type { Scope } from "../../platform/auth/scopes";
import { auditRecord, type AuditEntry } from "../../platform/events/audit-record";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { commit } from "../../platform/store/commit";
import { pageRequest, pagination } from "../../platform/http/paging";
import { organizationRoute, type RequestContext, type RouteGroup } from "../../platform/http/route";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { Versioned } from "../../platform/store/ports";
import type { CredentialRecord, ServiceAccountRecord } from "../../domain/organizations/service-account";
import type { OutboxRecord } from "../../platform/events/outbox-record";
import type { WorkspaceRecord } from "../../domain/organizations/workspace";
import { assertGrantable, credentialExpiry, resolveAssignments } from "../../domain/organizations/grants";
import {
  createCredentialBody,
  createdCredentialView,
  createdServiceAccountView,
  createServiceAccountBody,
  credentialParams,
  deleteServiceAccountParams,
  listServiceAccountsQuery,
  serviceAccountIdParams,
  serviceAccountView,
  updateServiceAccountBody,
} from "./service-account-schemas";
import { serviceAccountExample } from "./identity-examples";
import { toCredentialView, toServiceAccountView } from "./service-account-view";

/** Active credentials one service account may hold, so that rotation never needs more. */
export const MAX_ACTIVE_CREDENTIALS = 5;


const tag = "Service accounts";
const LIST_BINDING = "service-accounts";

export const serviceAccountRoutes: RouteGroup = {
  name: "service-accounts",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/service-accounts",
      summary: "List the service accounts of your organization",
      tag,
      auth: "org:service-accounts:read",
      query: listServiceAccountsQuery,
      response: z.array(serviceAccountView).meta({ examples: [[serviceAccountExample]] }),
      paginated: true,
      async handler(input) {
        const { stores, now } = input;
        const page = await stores.serviceAccounts.list(
          input.principal.organizationAccountIds,
          pageRequest(input, input.query, LIST_BINDING),
        );
        const workspaces = await assignedWorkspaces(input, page.items);
        return {
          data: page.items.map((sa) => toServiceAccountView(sa, workspaces, now())),
          pagination: pagination(input, page, LIST_BINDING),
        };
      },
    }),
    organizationRoute({
      method: "GET",
      path: "/service-accounts/{id}",
      summary: "Get one service account",
      tag,
      auth: "org:service-accounts:read",
      params: serviceAccountIdParams,
      response: serviceAccountView,
      async handler(input) {
        const found = await visibleServiceAccount(input, input.params.id);
        return { data: await view(input, found.value), headers: { ETag: found.etag } };
      },
    }),
    organizationRoute({
      method: "POST",
      path: "/service-accounts",
      summary: "Create a service account and its first credential",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN"],
      body: createServiceAccountBody,
      response: createdServiceAccountView,
      successStatus: 201,
      async handler(input) {
        const { body, principal } = input;
        const scopes = unique(body.scopes);
        assertGrantable(principal, scopes, body.organizationalRole);
        await resolveAssignments(input.stores.workspaces, principal, body.workspaceAssignments);
        const now = input.now();
        const stamp = now.toISOString();
        const { credential, secret } = newCredential(input, scopes, credentialExpiry(body.expirationDate, now));
        const record: ServiceAccountRecord = {
          id: randomUUID(),
          accountId: principal.accountId,
          name: body.name,
          description: body.description,
          isActive: true,
          isPlatformManaged: false,
          organizationalRole: body.organizationalRole,
          workspaceAssignments: body.workspaceAssignments.map((a) => ({ workspaceId: a.workspaceId.toLowerCase(), role: a.role })),
          credentials: [credential],
          lastUsedAt: null,
          createdAt: stamp,
          lastModifiedAt: stamp,
        };
        const created = await commit({
          read: async () => ({ value: record, etag: null }),
          change: (sa) => [
            auditOf(input, sa, {
              activityType: "ServiceAccountCreated",
              activityAction: "Create",
              targetResourceType: "ServiceAccount",
              targetResourceId: sa.id,
              targetResourceName: sa.name,
              metadata: { organizationalRole: sa.organizationalRole, scopes, workspaceAssignments: sa.workspaceAssignments },
            }),
          ],
          write: (sa, _etag, outbox) => input.stores.serviceAccounts.create(sa, outbox),
          outbox: input.events.outbox,
          // A new account's id is its own: a create conflicts only with itself.
          maxAttempts: 1,
        });
        return {
          status: 201,
          data: { ...(await view(input, created.value)), clientId: record.id, clientSecret: secret },
          headers: { Location: `${input.origin}/api/v2/service-accounts/${record.id}`, ETag: created.etag },
        };
      },
    }),
    organizationRoute({
      method: "PUT",
      path: "/service-accounts/{id}",
      summary: "Update a service account (omitted fields keep their values)",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN", "CONFLICT"],
      params: serviceAccountIdParams,
      body: updateServiceAccountBody,
      response: serviceAccountView,
      async handler(input) {
        const { body, principal } = input;
        if (body.workspaceAssignments) await resolveAssignments(input.stores.workspaces, principal, body.workspaceAssignments);
        const changed = Object.keys(body);
        const updated = await modifyServiceAccount(input, input.params.id, {
          activityType: "ServiceAccountUpdated",
          activityAction: "Update",
          targetResourceType: "ServiceAccount",
          metadata: { changed, ...body },
        }, (sa) => {
          assertNotPlatformManaged(sa);
          if (body.isActive === false) assertNotSelf(input, sa, "deactivate");
          if (body.organizationalRole && body.organizationalRole !== sa.organizationalRole) {
            assertGrantable(principal, [], body.organizationalRole);
          }
          sa.name = body.name ?? sa.name;
          sa.description = body.description ?? sa.description;
          sa.organizationalRole = body.organizationalRole ?? sa.organizationalRole;
          sa.isActive = body.isActive ?? sa.isActive;
          if (body.workspaceAssignments) {
            sa.workspaceAssignments = body.workspaceAssignments.map((a) => ({ workspaceId: a.workspaceId.toLowerCase(), role: a.role }));
          }
        });
        return { data: await view(input, updated.value), headers: { ETag: updated.etag } };
      },
    }),
    organizationRoute({
      method: "DELETE",
      path: "/service-accounts/{id}",
      summary: "Delete a service account; its credentials stop working at once",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN", "CONFLICT"],
      params: deleteServiceAccountParams,
      successStatus: 204,
      async handler(input) {
        const deletedId = await commit({
          read: () => visibleServiceAccount(input, input.params.id),
          ifMatch: input.header("if-match"),
          change(sa) {
            assertNotPlatformManaged(sa);
            assertNotSelf(input, sa, "delete");
            return [
              auditOf(input, sa, {
                activityType: "ServiceAccountDeleted",
                activityAction: "Delete",
                targetResourceType: "ServiceAccount",
                targetResourceId: sa.id,
                targetResourceName: sa.name,
              }),
            ];
          },
          write: async (sa, etag, outbox) => {
            await input.stores.serviceAccounts.delete(sa.id, etag!, outbox);
            return sa.id;
          },
          outbox: input.events.outbox,
        });
        input.auth.evict(deletedId);
        return { status: 204 };
      },
    }),
    organizationRoute({
      method: "POST",
      path: "/service-accounts/{id}/credentials",
      summary: "Add a credential (its secret is shown once)",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN", "CONFLICT"],
      params: serviceAccountIdParams,
      body: createCredentialBody,
      response: createdCredentialView,
      successStatus: 201,
      async handler(input) {
        const { body, principal } = input;
        const scopes = unique(body.scopes);
        assertGrantable(principal, scopes);
        const now = input.now();
        const { credential, secret } = newCredential(input, scopes, credentialExpiry(body.expirationDate, now));
        const updated = await modifyServiceAccount(input, input.params.id, {
          activityType: "ServiceAccountCredentialCreated",
          activityAction: "Create",
          targetResourceType: "ServiceAccountCredential",
          targetResourceId: credential.id,
          metadata: { scopes, expirationDate: credential.expirationDate },
        }, (sa) => {
          const active = sa.credentials.filter((c) => c.status === "Active" && Date.parse(c.expirationDate) > now.getTime());
          if (active.length >= MAX_ACTIVE_CREDENTIALS) {
            throw new ApiError(
              "CONFLICT",
              `A service account holds at most ${MAX_ACTIVE_CREDENTIALS} active credentials; revoke one first.`,
              { target: "credentials" },
            );
          }
          sa.credentials.push(credential);
        });
        return {
          status: 201,
          data: { clientId: updated.value.id, clientSecret: secret, ...toCredentialView(credential, now) },
        };
      },
    }),
    organizationRoute({
      method: "DELETE",
      path: "/service-accounts/{id}/credentials/{credentialId}",
      summary: "Revoke a credential; it stops working at once",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["CONFLICT"],
      params: credentialParams,
      successStatus: 204,
      async handler(input) {
        const credentialId = input.params.credentialId.toLowerCase();
        await modifyServiceAccount(input, input.params.id, {
          activityType: "ServiceAccountCredentialRevoked",
          activityAction: "Delete",
          targetResourceType: "ServiceAccountCredential",
          targetResourceId: credentialId,
          metadata: {},
        }, (sa) => {
          const credential = sa.credentials.find((c) => c.id === credentialId);
          if (!credential) throw notFound("The credential", "credentialId");
          if (credential.status === "Revoked") {
            throw new ApiError("CONFLICT", "The credential is already revoked.", { target: "credentialId" });
          }
          credential.status = "Revoked";
          credential.revokedAt = input.now().toISOString();
        });
        return { status: 204 };
      },
    }),
  ],
};

/** A service account of the caller's organization; any other id is 404, never a hint that it exists. */
async function visibleServiceAccount(input: RequestContext, id: string): Promise<Versioned<ServiceAccountRecord>> {
  const found = await input.stores.serviceAccounts.get(id.toLowerCase());
  if (!found || !input.principal.organizationAccountIds.includes(found.value.accountId)) {
    throw notFound("The service account", "id");
  }
  return found;
}

type ServiceAccountAudit = Omit<AuditEntry, "targetResourceName" | "accountId" | "targetResourceId"> & { targetResourceId?: string };

/** A change to a service account (its audit event committed with it); its cached copy is dropped at once. */
async function modifyServiceAccount(
  input: RequestContext,
  id: string,
  audit: ServiceAccountAudit,
  mutate: (sa: ServiceAccountRecord) => void,
): Promise<Versioned<ServiceAccountRecord>> {
  const saved = await commit({
    read: () => visibleServiceAccount(input, id),
    ifMatch: input.header("if-match"),
    change(sa) {
      mutate(sa);
      sa.lastModifiedAt = input.now().toISOString();
      return [auditOf(input, sa, { targetResourceId: sa.id, ...audit, targetResourceName: sa.name, metadata: { serviceAccountId: sa.id, ...audit.metadata } })];
    },
    write: (sa, etag, outbox) => input.stores.serviceAccounts.replace(sa, etag!, outbox),
    outbox: input.events.outbox,
  });
  input.auth.evict(saved.value.id);
  return saved;
}

/** The audit event of a write to a service account, in the trail of the account that owns it. */
function auditOf(input: RequestContext, sa: ServiceAccountRecord, entry: Omit<AuditEntry, "accountId">): OutboxRecord {
  return auditRecord(input.actor, { ...entry, accountId: sa.accountId }, outboxScope.serviceAccount(sa.id), input.now());
}

function newCredential(input: RequestContext, scopes: Scope[], expirationDate: string): { credential: CredentialRecord; secret: string } {
  const { secret, prefix } = generateSecret();
  return {
    secret,
    credential: {
      id: randomUUID(),
      secretHash: hashSecret(input.config.secretHashKey, secret),
      clientSecretPrefix: prefix,
      status: "Active",
      expirationDate,
      lastUsedAt: null,
      createdAt: input.now().toISOString(),
      revokedAt: null,
      scopes,
    },
  };
}

function assertNotPlatformManaged(sa: ServiceAccountRecord): void {
  if (sa.isPlatformManaged) {
    throw new ApiError("FORBIDDEN", "Platform-managed service accounts cannot be changed or deleted through the API.", {
      target: "id",
    });
  }
}

function assertNotSelf(input: RequestContext, sa: ServiceAccountRecord, action: string): void {
  if (sa.id === input.principal.serviceAccountId) {
    throw new ApiError("FORBIDDEN", `A service account cannot ${action} itself.`, { target: "id" });
  }
}

/** The workspaces these service accounts are assigned to, for their names: only those are read. */
async function assignedWorkspaces(input: RequestContext, accounts: readonly ServiceAccountRecord[]) {
  const ids: string[] = [];
  for (const sa of accounts) for (const a of sa.workspaceAssignments) ids.push(a.workspaceId);
  const byId = new Map<string, WorkspaceRecord>();
  if (ids.length === 0) return byId;
  for (const w of await input.stores.workspaces.getMany(ids)) byId.set(w.id, w);
  return byId;
}

async function view(input: RequestContext, sa: ServiceAccountRecord) {
  return toServiceAccountView(sa, await assignedWorkspaces(input, [sa]), input.now());
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
