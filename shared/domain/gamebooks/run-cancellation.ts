import { notFound } from "../../platform/errors/api-error";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import type { GamebookRunRecord } from "../../model/gamebooks/gamebook-run";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { RunDecider } from "./run-approval-rules";
import { withSummary } from "./run-record";
import { runAudit } from "./run-records";
import { cancelRun } from "./run-state";

export interface RunCancellationRequest {
  workspace: WorkspaceRecord;
  runId: string;
  /** The person cancelling. */
  cancelledBy: RunDecider;
  reason: string | null;
}

/**
 * A person's cancellation of a run that has not ended (docs/contract.md §4.1 rule 5: never a service
 * account's): waiting for approval (it leaves the approval queue), dispatched, or running. Playbooks
 * not started are `Skipped` and never start; one already running in the automation backend cannot be
 * called back, so the executor still awaits it and records its outcome (run-state.ts). Audited in the
 * same commit, with what was stopped. A run that has ended is 409 CONFLICT; an unknown one 404. A lost
 * race (the executor recorded a step meanwhile) runs it again on the run as it now is.
 */
export async function cancelGamebookRun(ctx: Uses<"actor" | "events" | "now" | "stores">, request: RunCancellationRequest): Promise<GamebookRunRecord> {
  const saved = await commit({
    deadline: ctx.deadline,
    read: async () => {
      const found = await ctx.stores.gamebookRuns.get(request.workspace.id, request.runId);
      if (!found) throw notFound("The gamebook run", "runId");
      return found;
    },
    next(current) {
      const now = ctx.now();
      const at = now.toISOString();
      const cancelled = cancelRun(current, at);
      const run = withSummary({ ...cancelled, cancellation: { by: request.cancelledBy.name, byUserId: request.cancelledBy.userId, at, reason: request.reason } });
      const audit = runAudit(
        ctx.actor,
        run,
        "Cancel",
        {
          wasWaitingForApproval: current.status === "Pending" && current.isQueued,
          wasStatus: current.status,
          skipped: run.playbooks.filter((p, i) => p.status === "Skipped" && current.playbooks[i]!.status === "Pending").map((p) => p.sequence),
          stillRunning: run.playbooks.filter((p) => p.status === "Running").map((p) => p.sequence),
          reason: request.reason,
          cancelledBy: { userId: request.cancelledBy.userId, name: request.cancelledBy.name },
        },
        now,
      );
      return { value: run, outbox: [audit] };
    },
    write: (run, etag, outbox) => ctx.stores.gamebookRuns.replace(run, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  return saved.value;
}
