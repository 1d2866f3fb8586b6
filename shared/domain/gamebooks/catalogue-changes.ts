import { auditRecord, type AuditEntry } from "../../platform/events/audit-record";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { Versioned } from "../../platform/store/ports";
import { PLAYBOOK_CATALOGUE_ID, type PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import type { WorkspaceRecord } from "../../model/organizations/workspace";

/** What a change of the catalogue records about itself; null when it changes nothing after all. */
export type CatalogueAudit = Pick<AuditEntry, "activityType" | "activityAction" | "targetResourceType" | "targetResourceId" | "targetResourceName" | "metadata">;

/**
 * Changes a workspace's catalogue (one document: playbooks, gamebooks and rules) with its audit event
 * in the same commit: every change of the catalogue goes through here, the portal's and the demo
 * seed's. `change` edits a copy of the catalogue as read (an empty one when the workspace
 * has none) and says what to audit, or null to write nothing; it may throw to refuse. A concurrent
 * change of another part of the catalogue makes the unit run again on a fresh read, so neither is
 * lost; with the caller's `If-Match` a stale read is 409 instead.
 */
export async function changeCatalogue(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  workspace: WorkspaceRecord,
  ifMatch: string | undefined,
  change: (draft: PlaybookCatalogueRecord) => CatalogueAudit | null,
): Promise<Versioned<PlaybookCatalogueRecord> | null> {
  const { stores } = ctx;
  const now = ctx.now();
  return commit({
    deadline: ctx.deadline,
    async read() {
      return (await stores.playbookCatalogues.read(workspace.id)) ?? { value: emptyCatalogue(workspace.id), etag: null };
    },
    ifMatch,
    change(draft) {
      const audit = change(draft);
      if (audit === null) return null;
      draft.updatedAt = now.toISOString();
      return [auditRecord(ctx.actor, { ...audit, workspaceId: workspace.id, accountId: workspace.accountId }, outboxScope.workspace(workspace.id), now)];
    },
    write: (draft, etag, outbox) => (etag === null ? stores.playbookCatalogues.create(draft, outbox) : stores.playbookCatalogues.replace(draft, etag, outbox)),
    outbox: ctx.events.outbox,
  });
}

export function emptyCatalogue(workspaceId: string): PlaybookCatalogueRecord {
  return { id: PLAYBOOK_CATALOGUE_ID, workspaceId, playbooks: [], gamebooks: [], rules: [], updatedAt: "" };
}

/** The catalogue and its version as read now; an empty one, without a version, when the workspace has none. */
export async function readCatalogue(ctx: Uses<"stores">, workspaceId: string): Promise<{ value: PlaybookCatalogueRecord; etag: string | null }> {
  return (await ctx.stores.playbookCatalogues.read(workspaceId)) ?? { value: emptyCatalogue(workspaceId), etag: null };
}
