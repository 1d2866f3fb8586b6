import { ApiError, isApiError } from "../../platform/errors/api-error";
import { settleWithin, type Settled } from "../../platform/concurrency/settle-within";
import { unavailableOf, type Unavailable } from "../../platform/http/partial-results";
import type { Uses } from "../../domain/operation-context";
import type { WorkspaceRecord } from "../../model/organizations/workspace";

/** What one cross-workspace answer read: each workspace's value, and the report of those it could not read. */
export interface WorkspaceReads<R> {
  read: { workspace: WorkspaceRecord; value: R }[];
  unavailable: Unavailable[];
}

/**
 * Reads each workspace's log analytics for one cross-workspace answer, at most `limit` at once, and
 * answers with what the healthy workspaces gave. These answers are not paged, so every workspace is
 * asked, but none is waited on for longer than the deployment's budget (`CROSS_WORKSPACE_BUDGET_MS`)
 * from its own start: a workspace whose read failed is reported with its problem, one still
 * unanswered then as `TIMEOUT`. EXTENSION_NOT_ENABLED is the deployment's answer,
 * not a workspace's failure, and anything but an ApiError is a fault of the service: either fails the
 * whole request, as it would without the others.
 */
export async function readWorkspaces<R>(
  ctx: Uses<"config"> & { signal: AbortSignal },
  workspaces: readonly WorkspaceRecord[],
  limit: number,
  read: (workspace: WorkspaceRecord, signal?: AbortSignal) => Promise<R>,
): Promise<WorkspaceReads<R>> {
  const budgetMs = ctx.config.crossWorkspaceBudgetMs;
  // Every workspace is asked (the answer is not paged), but none is waited on past the budget.
  const outcomes = await settleWithin(workspaces, limit, { eachMs: budgetMs }, read, ctx.signal);
  const result: WorkspaceReads<R> = { read: [], unavailable: [] };
  workspaces.forEach((workspace, i) => {
    const outcome = outcomes[i]!;
    if (outcome.status === "fulfilled") result.read.push({ workspace, value: outcome.value });
    else result.unavailable.push(unavailableOf(workspace, failureOf(workspace, outcome, budgetMs)));
  });
  return result;
}

function failureOf(workspace: WorkspaceRecord, outcome: Exclude<Settled<unknown>, { status: "fulfilled" }>, budgetMs: number): ApiError {
  switch (outcome.status) {
    case "rejected":
      if (!isApiError(outcome.reason) || outcome.reason.code === "EXTENSION_NOT_ENABLED") throw outcome.reason;
      return outcome.reason;
    case "late":
    case "unstarted":
      return new ApiError("TIMEOUT", `Log Analytics did not answer for workspace ${workspace.id} within ${budgetMs} ms.`);
  }
}
