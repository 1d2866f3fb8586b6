import { z } from "zod";
import { ApiError } from "../../../platform/errors/api-error";
import type { Person } from "../../../platform/auth/person";
import { issuePageToken, readPageToken, type PagingContext } from "../../../platform/http/paging";
import type { Pagination } from "../../../platform/http/route";
import type { Uses } from "../../../domain/operation-context";
import { accountAuditTrail, workspaceAuditTrail } from "../../../platform/store/audit-trail";
import type { AuditEventRecord } from "../../../model/audit/audit-event";

/** What a person asks of their organization's audit trail: each filter optional, times as ISO 8601 UTC. */
export interface AuditSearchQuery {
  /** One organization of the person's; absent: all of them. */
  accountId?: string;
  /** Only these workspaces' events (organization events then drop out); absent: every trail. */
  workspaceIds?: readonly string[];
  actorId?: string;
  /** Text in the actor's name or e-mail address, any case. */
  actor?: string;
  activityType?: string;
  activityAction?: string;
  from?: string;
  to?: string;
  pageSize: number;
  continuationToken?: string;
}

/** An audit event (docs/contract.md §2.12, `workspaceId` null for an organization's own events) with the names a reader needs. */
export interface AuditEventView extends AuditEventRecord {
  accountName: string;
  workspaceName: string | null;
}

const cursorSchema = z.strictObject({ timeGenerated: z.string().min(1), id: z.string().min(1) });

/**
 * The audit trail of the person's organization, newest first: the trails of its accounts
 * (`person.organizationAccountIds`: a customer's own, a provider's own and its customers') and of
 * their workspaces, and nothing of any other organization. Offboarded workspaces' trails are an
 * `Admin`'s only, as their export is. The token is bound to the person and to the filters as asked;
 * what they cover is resolved again on every page, so a workspace onboarded meanwhile does not void it.
 */
export async function searchOrganizationAudit(
  ctx: Uses<"stores"> & PagingContext,
  person: Person,
  query: AuditSearchQuery,
): Promise<{ data: AuditEventView[]; pagination: Pagination }> {
  if (query.from !== undefined && query.to !== undefined && query.from >= query.to) {
    throw new ApiError("VALIDATION_ERROR", "`to` must be later than `from`.", { target: "to", errors: { to: ["Must be later than `from`."] } });
  }
  const accountId = query.accountId?.toLowerCase();
  const workspaceIds = query.workspaceIds && [...new Set(query.workspaceIds.map((id) => id.toLowerCase()))].sort();
  const actorText = query.actor?.toLowerCase();
  const listing = ["audit", accountId ?? "*", workspaceIds?.join(",") ?? "*", query.actorId ?? "", actorText ?? "", query.activityType ?? "", query.activityAction ?? "", query.from ?? "", query.to ?? ""].join("\n");
  const cursor = query.continuationToken === undefined ? undefined : readPageToken(ctx, query.continuationToken, listing, cursorSchema, "continuationToken");

  const accountIds = person.organizationAccountIds.filter((id) => accountId === undefined || id === accountId);
  const workspaces = [
    ...(await ctx.stores.workspaces.listByAccounts(accountIds)),
    ...(person.organizationalRole === "Admin" ? await ctx.stores.workspaces.listOffboarded(accountIds) : []),
  ];
  const wanted = workspaceIds && new Set(workspaceIds);
  const trails = wanted
    ? workspaces.filter((w) => wanted.has(w.id)).map((w) => workspaceAuditTrail(w.id))
    : [...accountIds.map(accountAuditTrail), ...workspaces.map((w) => workspaceAuditTrail(w.id))];
  const page = await ctx.stores.audit.search(
    { trails, from: query.from, to: query.to, actorId: query.actorId, actorText, activityType: query.activityType, activityAction: query.activityAction },
    query.pageSize,
    cursor,
  );

  const workspaceNames = new Map(workspaces.map((w) => [w.id, w.name]));
  const accounts = await Promise.all([...new Set(page.items.map((e) => e.accountId))].map((id) => ctx.stores.accounts.get(id)));
  const accountNames = new Map(accounts.flatMap((a) => (a ? [[a.id, a.name] as const] : [])));
  return {
    data: page.items.map((e) => ({ ...e, accountName: accountNames.get(e.accountId) ?? "", workspaceName: e.workspaceId ? (workspaceNames.get(e.workspaceId) ?? null) : null })),
    pagination: page.next ? { hasMore: true, continuationToken: issuePageToken(ctx, listing, page.next) } : { hasMore: false },
  };
}
