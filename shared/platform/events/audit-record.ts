import { randomUUID } from "node:crypto";
import { derivedGuid } from "../ids/derived-guid";
import type { Actor } from "../actor";
import type { OutboxAuditRecord, OutboxScope } from "./outbox-record";

export interface AuditEntry {
  activityType: string;
  activityAction: "Create" | "Update" | "Delete";
  targetResourceType: string;
  targetResourceId: string;
  targetResourceName: string;
  /** Changed fields and other context; never secrets. */
  metadata?: Record<string, unknown>;
  workspaceId?: string | null;
  /** The account whose trail it joins: the target's (a managed account's, say), else the actor's. */
  accountId?: string;
}

/**
 * The audit event (docs/contract.md §2.12) of one write, as an outbox record: commit it with the write itself
 * (or on its own with `OutboxRelay.record` when the write happened elsewhere, at a vendor), so an
 * accepted write never loses its audit event; the relay appends it to the trail after the commit.
 *
 * @example
 * await commit({
 *   read: () => visibleWebhook(input, id),
 *   change: (w) => [auditRecord(input.actor, { activityType: "Webhook", activityAction: "Delete", ... }, outboxScope.webhook(w.id), now)],
 *   write: (w, etag, outbox) => stores.webhooks.delete(w.id, etag!, outbox),
 *   outbox: events.outbox,
 * });
 */
export function auditRecord(actor: Actor, entry: AuditEntry, scope: OutboxScope, now: Date, options: { id?: string } = {}): OutboxAuditRecord {
  const accountId = entry.accountId ?? actor.accountId;
  if (accountId === null) throw new Error("An audit event needs the account whose trail it joins.");
  // A write that may be repeated (a resumed gamebook step) gives an id of its own: the trail keeps one copy.
  const id = options.id ?? randomUUID();
  const at = now.toISOString();
  return {
    id: `outbox-${id}`,
    docType: "outbox",
    kind: "audit",
    scope,
    createdAt: at,
    publishedAt: null,
    audit: {
      id,
      accountId,
      timeGenerated: at,
      workspaceId: entry.workspaceId ?? null,
      discriminator: entry.workspaceId ? "Workspace" : "Organization",
      activityType: entry.activityType,
      activityAction: entry.activityAction,
      // A GUID either way (docs/contract.md §2.12): the service account, or one derived from who acted for the service.
      // A person acts as their directory object id.
      actorId: actor.serviceAccountId ?? actor.person?.userId ?? derivedGuid(`actor/${actor.origin}/${actor.name}`),
      actorName: actor.name,
      // Service accounts have no mailbox; the field stays a string, as the contract types it.
      actorEmail: actor.person?.email ?? "",
      targetResourceType: entry.targetResourceType,
      targetResourceId: entry.targetResourceId,
      targetResourceName: entry.targetResourceName,
      metadata: JSON.stringify(entry.metadata ?? {}),
    },
  };
}
