import { randomUUID } from "node:crypto";
import { generateSecret, hashSecret } from "../../platform/auth/secrets";
import type { Scope } from "../../platform/auth/scopes";
import { auditRecord, type AuditEntry } from "../../platform/events/audit-record";
import type { OutboxRecord } from "../../platform/events/outbox-record";
import { ApiError, notFound } from "../../platform/errors/api-error";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { Versioned } from "../../platform/store/ports";
import { assertGrantable, credentialExpiry, resolveAssignments, type Grantor } from "./grants";
import type { OrganizationalRole, WorkspaceRole } from "../../model/organizations/roles";
import type { CredentialRecord, ServiceAccountRecord } from "../../model/organizations/service-account";

/*
 * Service accounts and their credentials, whoever manages them: a service account holding
 * `org:service-accounts:manage` on the contract's routes, or a person in the portal. A secret is
 * generated here, stored only as its hash, and handed to the caller once; every change commits with
 * its audit event, and a changed account's cached credentials are dropped at once.
 */

/** Active credentials one service account may hold, so that rotation never needs more. */
export const MAX_ACTIVE_CREDENTIALS = 5;

/** What managing service accounts runs with: the store, the clock, the secret key, the outbox and the credential cache. */
export type ServiceAccountContext = Uses<"stores" | "now" | "config" | "events" | "auth" | "actor">;

interface Assignment {
  workspaceId: string;
  role: WorkspaceRole;
}

export interface NewServiceAccount {
  name: string;
  description: string;
  organizationalRole: OrganizationalRole;
  workspaceAssignments: readonly Assignment[];
  scopes: readonly Scope[];
  expirationDate?: string;
}

export interface ServiceAccountChanges {
  name?: string;
  description?: string;
  organizationalRole?: OrganizationalRole;
  workspaceAssignments?: readonly Assignment[];
  isActive?: boolean;
}

/** A service account of the grantor's organization; any other id is 404, never a hint that it exists. */
export async function findServiceAccount(ctx: Uses<"stores">, grantor: Pick<Grantor, "organizationAccountIds">, id: string): Promise<Versioned<ServiceAccountRecord>> {
  const found = await ctx.stores.serviceAccounts.get(id.toLowerCase());
  if (!found || !grantor.organizationAccountIds.includes(found.value.accountId)) throw notFound("The service account", "id");
  return found;
}

/** Creates a service account of the grantor's own account with its first credential; the secret is returned once. */
export async function createServiceAccount(
  ctx: ServiceAccountContext,
  grantor: Grantor,
  input: NewServiceAccount,
): Promise<{ created: Versioned<ServiceAccountRecord>; secret: string }> {
  const scopes = unique(input.scopes);
  assertGrantable(grantor, scopes, input.organizationalRole);
  await resolveAssignments(ctx.stores.workspaces, grantor, input.workspaceAssignments);
  const now = ctx.now();
  const stamp = now.toISOString();
  const { credential, secret } = newCredential(ctx, scopes, credentialExpiry(input.expirationDate, now));
  const record: ServiceAccountRecord = {
    id: randomUUID(),
    accountId: grantor.accountId,
    name: input.name,
    description: input.description,
    isActive: true,
    isPlatformManaged: false,
    organizationalRole: input.organizationalRole,
    workspaceAssignments: lowerCased(input.workspaceAssignments),
    credentials: [credential],
    lastUsedAt: null,
    createdAt: stamp,
    lastModifiedAt: stamp,
  };
  const created = await commit({
    deadline: ctx.deadline,
    read: async () => ({ value: record, etag: null }),
    change: (sa) => [
      auditOf(ctx, sa, {
        activityType: "ServiceAccountCreated",
        activityAction: "Create",
        targetResourceType: "ServiceAccount",
        targetResourceId: sa.id,
        targetResourceName: sa.name,
        metadata: { organizationalRole: sa.organizationalRole, scopes, workspaceAssignments: sa.workspaceAssignments },
      }),
    ],
    write: (sa, _etag, outbox) => ctx.stores.serviceAccounts.create(sa, outbox),
    outbox: ctx.events.outbox,
    // A new account's id is its own: a create conflicts only with itself.
    maxAttempts: 1,
  });
  return { created, secret };
}

/** Changes what is given of a service account (omitted fields keep their values); deactivating stops its credentials at once. */
export async function updateServiceAccount(
  ctx: ServiceAccountContext,
  grantor: Grantor,
  id: string,
  changes: ServiceAccountChanges,
  ifMatch?: string,
): Promise<Versioned<ServiceAccountRecord>> {
  if (changes.workspaceAssignments) await resolveAssignments(ctx.stores.workspaces, grantor, changes.workspaceAssignments);
  return modify(ctx, grantor, id, ifMatch, { activityType: "ServiceAccountUpdated", activityAction: "Update", targetResourceType: "ServiceAccount", metadata: { changed: Object.keys(changes), ...changes } }, (sa) => {
    assertNotPlatformManaged(sa);
    if (changes.isActive === false) assertNotSelf(grantor, sa, "deactivate");
    if (changes.organizationalRole && changes.organizationalRole !== sa.organizationalRole) assertGrantable(grantor, [], changes.organizationalRole);
    sa.name = changes.name ?? sa.name;
    sa.description = changes.description ?? sa.description;
    sa.organizationalRole = changes.organizationalRole ?? sa.organizationalRole;
    sa.isActive = changes.isActive ?? sa.isActive;
    if (changes.workspaceAssignments) sa.workspaceAssignments = lowerCased(changes.workspaceAssignments);
  });
}

/** Deletes a service account; its credentials stop working at once. */
export async function deleteServiceAccount(ctx: ServiceAccountContext, grantor: Grantor, id: string, ifMatch?: string): Promise<void> {
  const deletedId = await commit({
    deadline: ctx.deadline,
    read: () => findServiceAccount(ctx, grantor, id),
    ifMatch,
    change(sa) {
      assertNotPlatformManaged(sa);
      assertNotSelf(grantor, sa, "delete");
      return [
        auditOf(ctx, sa, { activityType: "ServiceAccountDeleted", activityAction: "Delete", targetResourceType: "ServiceAccount", targetResourceId: sa.id, targetResourceName: sa.name }),
      ];
    },
    write: async (sa, etag, outbox) => {
      await ctx.stores.serviceAccounts.delete(sa.id, etag!, outbox);
      return sa.id;
    },
    outbox: ctx.events.outbox,
  });
  ctx.auth.evict(deletedId);
}

/** Adds a credential to a service account, at most `MAX_ACTIVE_CREDENTIALS` active at once; its secret is returned once. */
export async function addCredential(
  ctx: ServiceAccountContext,
  grantor: Grantor,
  id: string,
  input: { scopes: readonly Scope[]; expirationDate?: string },
  ifMatch?: string,
): Promise<{ saved: Versioned<ServiceAccountRecord>; credential: CredentialRecord; secret: string }> {
  const scopes = unique(input.scopes);
  assertGrantable(grantor, scopes);
  const now = ctx.now();
  const { credential, secret } = newCredential(ctx, scopes, credentialExpiry(input.expirationDate, now));
  const saved = await modify(
    ctx,
    grantor,
    id,
    ifMatch,
    {
      activityType: "ServiceAccountCredentialCreated",
      activityAction: "Create",
      targetResourceType: "ServiceAccountCredential",
      targetResourceId: credential.id,
      metadata: { scopes, expirationDate: credential.expirationDate },
    },
    (sa) => {
      const active = sa.credentials.filter((c) => c.status === "Active" && Date.parse(c.expirationDate) > now.getTime());
      if (active.length >= MAX_ACTIVE_CREDENTIALS) {
        throw new ApiError("CONFLICT", `A service account holds at most ${MAX_ACTIVE_CREDENTIALS} active credentials; revoke one first.`, { target: "credentials" });
      }
      sa.credentials.push(credential);
    },
  );
  return { saved, credential, secret };
}

/** Revokes a credential: it stops working at once, and stays listed as `Revoked`. 409 when it is revoked already. */
export async function revokeCredential(ctx: ServiceAccountContext, grantor: Grantor, id: string, credentialId: string, ifMatch?: string): Promise<Versioned<ServiceAccountRecord>> {
  const wanted = credentialId.toLowerCase();
  return modify(ctx, grantor, id, ifMatch, { activityType: "ServiceAccountCredentialRevoked", activityAction: "Delete", targetResourceType: "ServiceAccountCredential", targetResourceId: wanted, metadata: {} }, (sa) => {
    const credential = sa.credentials.find((c) => c.id === wanted);
    if (!credential) throw notFound("The credential", "credentialId");
    if (credential.status === "Revoked") throw new ApiError("CONFLICT", "The credential is already revoked.", { target: "credentialId" });
    credential.status = "Revoked";
    credential.revokedAt = ctx.now().toISOString();
  });
}

type ServiceAccountAudit = Omit<AuditEntry, "targetResourceName" | "accountId" | "targetResourceId"> & { targetResourceId?: string };

/** A change to a service account (its audit event committed with it); its cached copy is dropped at once. */
async function modify(
  ctx: ServiceAccountContext,
  grantor: Grantor,
  id: string,
  ifMatch: string | undefined,
  audit: ServiceAccountAudit,
  mutate: (sa: ServiceAccountRecord) => void,
): Promise<Versioned<ServiceAccountRecord>> {
  const saved = await commit({
    deadline: ctx.deadline,
    read: () => findServiceAccount(ctx, grantor, id),
    ifMatch,
    change(sa) {
      mutate(sa);
      sa.lastModifiedAt = ctx.now().toISOString();
      return [auditOf(ctx, sa, { targetResourceId: sa.id, ...audit, targetResourceName: sa.name, metadata: { serviceAccountId: sa.id, ...audit.metadata } })];
    },
    write: (sa, etag, outbox) => ctx.stores.serviceAccounts.replace(sa, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  ctx.auth.evict(saved.value.id);
  return saved;
}

/** The audit event of a write to a service account, in the trail of the account that owns it. */
function auditOf(ctx: ServiceAccountContext, sa: ServiceAccountRecord, entry: Omit<AuditEntry, "accountId">): OutboxRecord {
  return auditRecord(ctx.actor, { ...entry, accountId: sa.accountId }, outboxScope.serviceAccount(sa.id), ctx.now());
}

function newCredential(ctx: ServiceAccountContext, scopes: Scope[], expirationDate: string): { credential: CredentialRecord; secret: string } {
  const { secret, prefix } = generateSecret();
  return {
    secret,
    credential: {
      id: randomUUID(),
      secretHash: hashSecret(ctx.config.secretHashKey, secret),
      clientSecretPrefix: prefix,
      status: "Active",
      expirationDate,
      lastUsedAt: null,
      createdAt: ctx.now().toISOString(),
      revokedAt: null,
      scopes,
    },
  };
}

function assertNotPlatformManaged(sa: ServiceAccountRecord): void {
  if (sa.isPlatformManaged) {
    throw new ApiError("FORBIDDEN", "Platform-managed service accounts cannot be changed or deleted through the API.", { target: "id" });
  }
}

function assertNotSelf(grantor: Grantor, sa: ServiceAccountRecord, action: string): void {
  if (sa.id === grantor.serviceAccountId) throw new ApiError("FORBIDDEN", `A service account cannot ${action} itself.`, { target: "id" });
}

function lowerCased(assignments: readonly Assignment[]): Assignment[] {
  return assignments.map((a) => ({ workspaceId: a.workspaceId.toLowerCase(), role: a.role }));
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
