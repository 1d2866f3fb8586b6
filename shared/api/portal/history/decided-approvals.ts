import { z } from "zod";
import { issuePageToken, readPageToken, type PagingContext } from "../../../platform/http/paging";
import type { Pagination } from "../../../platform/http/route";
import type { Uses } from "../../../domain/operation-context";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import type { GamebookRunRecord, GamebookRunStatus, PlaybookStatus } from "../../../model/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";
import { approvalRequestView, type ApprovalRequestView } from "../approval-request-view";
import { cataloguesOfRuns } from "../../../domain/gamebooks/gamebook-settings";

/**
 * A decided approval request: what was asked (the request as the approver weighed it) and how it
 * ended, with what ran: the run's status and summary, and each playbook's outcome. A denied or
 * expired run ran nothing; its playbooks are `Skipped`.
 */
export interface DecidedApprovalView extends ApprovalRequestView {
  run: {
    status: GamebookRunStatus;
    summary: string;
    /** When the run was handed to the executor; null when it never was (denied, expired). */
    dispatchedAt: string | null;
    modificationDate: string;
    /** In sequence order. */
    playbooks: { sequence: number; name: string; status: PlaybookStatus; errorMessage: string; startingDate: string; finishingDate: string; executionTime: string }[];
  };
}

export function decidedApprovalView(run: GamebookRunRecord, workspace: WorkspaceRecord, catalogue?: PlaybookCatalogueRecord): DecidedApprovalView {
  return {
    ...approvalRequestView(run, workspace, catalogue),
    run: {
      status: run.status,
      summary: run.summary,
      dispatchedAt: run.dispatchedAt || null,
      modificationDate: run.modificationDate,
      playbooks: [...run.playbooks]
        .sort((a, b) => a.sequence - b.sequence)
        .map((p) => ({ sequence: p.sequence, name: p.name, status: p.status, errorMessage: p.errorMessage, startingDate: p.startingDate, finishingDate: p.finishingDate, executionTime: p.executionTime })),
    },
  };
}

const cursorSchema = z.strictObject({ decidedAt: z.string().min(1), id: z.string().min(1) });

/**
 * The decided approval requests of these workspaces, newest decision first, one keyset page. The
 * token is bound to the reader and to the workspaces they asked for (`requested`, absent: all they
 * see), not to the set those resolve to: the set is resolved again on every page, so a role taken
 * away hides its workspace at once, and a workspace onboarded meanwhile does not void the token.
 */
export async function listDecidedApprovals(
  ctx: Uses<"stores"> & PagingContext,
  workspaces: readonly WorkspaceRecord[],
  requested: readonly string[] | undefined,
  page: { pageSize: number; continuationToken?: string },
): Promise<{ data: DecidedApprovalView[]; pagination: Pagination }> {
  const listing = `decided-approvals\n${requested ? [...new Set(requested.map((id) => id.toLowerCase()))].sort().join(",") : "*"}`;
  const cursor = page.continuationToken === undefined ? undefined : readPageToken(ctx, page.continuationToken, listing, cursorSchema, "continuationToken");
  if (workspaces.length === 0) return { data: [], pagination: { hasMore: false } };
  const found = await ctx.stores.gamebookRuns.listDecided(
    workspaces.map((w) => w.id),
    { cursor, limit: page.pageSize },
  );
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  // For what each parameter meant and what would undo each playbook.
  const catalogues = await cataloguesOfRuns(ctx, found.items);
  return {
    data: found.items.map((run) => decidedApprovalView(run, byId.get(run.workspaceId)!, catalogues.get(run.workspaceId))),
    pagination: found.next ? { hasMore: true, continuationToken: issuePageToken(ctx, listing, found.next) } : { hasMore: false },
  };
}
