import { notFound } from "../../platform/errors/api-error";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import type { GamebookRunRecord } from "../../model/gamebooks/gamebook-run";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { decideApproval, type ApprovalAction, type RunDecider } from "./run-approval-rules";
import { dispatchRecords, runAudit } from "./run-records";

export type { RunDecider } from "./run-approval-rules";

export interface RunDecision {
  workspace: WorkspaceRecord;
  runId: string;
  approve: boolean;
  /** The approver's note, or the reason for a denial; an expiry writes its own. */
  comment: string | null;
  /** The person deciding; for an expiry, the service (`approvalExpiryDecider`). */
  decidedBy: RunDecider;
  /** A denial because the request is past its `expiresAt` (the expiry sweep's); `approve` must be false. */
  expire?: boolean;
}

/**
 * Approval, denial or expiry of a run waiting in the approval queue: the portal's, never the API's
 * (docs/contract.md §4.1 rule 5); the local host's controls stand in for the portal, and the expiry sweep
 * (approval-expiry.ts) denies what nobody decided in time. The rules are run-approval-rules.ts':
 * the requester may not approve (403 FORBIDDEN), nor may one person approve twice (409 CONFLICT).
 * The approval that completes the run's approvals dispatches it exactly as a submission that needed
 * none (the run, `gamebook.run.v1` and the executor's message in one commit); one that does not
 * leaves it waiting with the approval recorded; denial and expiry end it `Denied` with no event.
 * Each is audited in the same commit, the expiry as a denial by the service. A run that is not
 * waiting is 409 CONFLICT; an unknown one 404. A lost race runs the decision again on the run as it
 * now is, so a run decided meanwhile is answered 409, never decided twice.
 */
export async function decideRun(ctx: Uses<"actor" | "events" | "now" | "stores">, decision: RunDecision): Promise<GamebookRunRecord> {
  if (decision.expire && decision.approve) throw new Error("An expiry is a denial: approve must be false.");
  const { actor } = ctx;
  const action: ApprovalAction = decision.expire
    ? { kind: "Expire", by: decision.decidedBy }
    : { kind: decision.approve ? "Approve" : "Deny", by: decision.decidedBy, comment: decision.comment };
  const saved = await commit({
    deadline: ctx.deadline,
    read: async () => {
      const found = await ctx.stores.gamebookRuns.get(decision.workspace.id, decision.runId);
      if (!found) throw notFound("The gamebook run", "runId");
      return found;
    },
    next(current) {
      const now = ctx.now();
      const { run, outcome } = decideApproval(current, action, now);
      const approval = run.approval;
      const audit = runAudit(
        actor,
        run,
        action.kind === "Approve" ? "Approve" : "Deny",
        {
          reasons: approval.reasons,
          comment: outcome === "Expired" ? approval.comment : decision.comment,
          decidedBy: { userId: decision.decidedBy.userId, name: decision.decidedBy.name, ...(decision.decidedBy.side ? { side: decision.decidedBy.side } : {}) },
          ...(action.kind === "Approve"
            ? { approvalsGiven: approval.approvals?.length ?? 0, requiredApprovals: approval.requiredApprovals, dispatched: outcome === "Approved" }
            : {}),
          ...(outcome === "Expired" ? { expired: true, expiresAt: approval.expiresAt } : {}),
        },
        now,
      );
      return { value: run, outbox: [audit, ...(outcome === "Approved" ? dispatchRecords(run) : [])] };
    },
    write: (run, etag, outbox) => ctx.stores.gamebookRuns.replace(run, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  return saved.value;
}
