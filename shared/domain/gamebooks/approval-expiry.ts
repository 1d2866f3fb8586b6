import { isApiError } from "../../platform/errors/api-error";
import { serviceActor } from "../../platform/actor";
import type { Uses } from "../operation-context";
import { mapLimited } from "../../platform/concurrency/map-limited";
import type { GamebookRunRecord } from "../../model/gamebooks/gamebook-run";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { decideRun } from "./run-approval";
import { APPROVAL_EXPIRY_NAME, approvalExpiryDecider } from "./run-approval-rules";

/** At most this many requests are denied by one sweep; a larger backlog is taken up by the next. */
export const DEFAULT_EXPIRY_SWEEP_LIMIT = 200;

/** How many decisions one sweep commits at a time. */
const SWEEP_CONCURRENCY = 8;

export interface ExpirySweepResult {
  /** The runs denied as expired. */
  expired: { workspaceId: string; runId: string }[];
  /** Decided by someone else between the listing and the denial (approved, denied, cancelled). */
  skipped: number;
  /** Could not be denied now (the store failed); the next sweep tries again. */
  failed: number;
}

/**
 * Denies every request for approval that is past its `expiresAt`, in every workspace: the approval
 * timer's work (every minute in Azure, on an interval in the local host). Each denial goes through
 * `decideRun`, the same commit as a person's decision, as the service itself, with the reason
 * "expired after N h", audited like a denial, with no event (a denied run never had one). A run a
 * person decided meanwhile is skipped, not an error: the commit reads the run afresh after a lost
 * race, and the decision's own 409 says it is no longer waiting.
 */
export async function expireApprovals(
  ctx: Uses<"events" | "logger" | "now" | "stores">,
  options: { now?: Date; limit?: number } = {},
): Promise<ExpirySweepResult> {
  const now = options.now ?? ctx.now();
  const limit = options.limit ?? DEFAULT_EXPIRY_SWEEP_LIMIT;
  // A request expires at its `expiresAt` itself (`isExpired`); the listing's bound is strict, hence the next millisecond.
  const expiresBefore = new Date(now.getTime() + 1).toISOString();
  const { items } = await ctx.stores.gamebookRuns.listAwaitingApproval({ expiresBefore }, { limit });
  const result: ExpirySweepResult = { expired: [], skipped: 0, failed: 0 };
  if (items.length === 0) return result;
  const workspaces = new Map((await ctx.stores.workspaces.getMany([...new Set(items.map((r) => r.workspaceId))])).map((w) => [w.id, w]));
  const decider = { ...ctx, now: () => now, actor: serviceActor("gamebook", APPROVAL_EXPIRY_NAME) };
  await mapLimited(items, SWEEP_CONCURRENCY, async (run) => {
    try {
      await decideRun(decider, {
        // A workspace removed since is no reason to leave its run waiting: an expiry reads no policy.
        workspace: workspaces.get(run.workspaceId) ?? workspaceOf(run),
        runId: run.id,
        approve: false,
        comment: null,
        decidedBy: approvalExpiryDecider,
        expire: true,
      });
      result.expired.push({ workspaceId: run.workspaceId, runId: run.id });
    } catch (error) {
      if (isApiError(error) && (error.code === "CONFLICT" || error.code === "NOT_FOUND")) {
        result.skipped++;
        return;
      }
      result.failed++;
      ctx.logger.warn("approval expiry failed", { workspaceId: run.workspaceId, runId: run.id, error: String(error) });
    }
  });
  return result;
}

function workspaceOf(run: GamebookRunRecord): WorkspaceRecord {
  return { id: run.workspaceId, name: run.workspaceName, tenantId: run.tenantId, accountId: run.accountId };
}
