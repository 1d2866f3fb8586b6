import { notFound } from "../../platform/errors/api-error";
import type { Uses } from "../../platform/operation-context";
import { commit } from "../../platform/store/commit";
import type { GamebookRunRecord } from "./gamebook-run";
import type { OutboxRecord } from "../../platform/events/outbox-record";
import type { WorkspaceRecord } from "../organizations/workspace";
import { withSummary } from "./run-record";
import { dispatchRecords, runAudit } from "./run-records";
import { approveRun, denyRun } from "./run-state";

export interface RunDecision {
  workspace: WorkspaceRecord;
  runId: string;
  approve: boolean;
  /** The approver's note, or the reason for a denial. */
  comment: string | null;
}

/**
 * Approval or denial of a run waiting in the approval queue: the portal's, never the API's (contract
 * 4.1 rule 5); the local host's controls stand in for the portal. Approval dispatches the run exactly
 * as a submission that needed none (the run, `gamebook.run.v1` and the executor's message in one
 * commit); denial ends it `Denied`. Either is audited in the same commit. A run that is not waiting
 * is 409 CONFLICT; an unknown one 404.
 */
export async function decideRun(ctx: Uses<"actor" | "events" | "now" | "stores">, decision: RunDecision): Promise<GamebookRunRecord> {
  const { actor } = ctx;
  const saved = await commit({
    read: async () => {
      const found = await ctx.stores.gamebookRuns.get(decision.workspace.id, decision.runId);
      if (!found) throw notFound("The gamebook run", "runId");
      return found;
    },
    change(draft) {
      const now = ctx.now();
      const at = now.toISOString();
      const next = decision.approve ? approveRun(draft, at) : denyRun(draft, at);
      Object.assign(draft, next, {
        approval: { ...draft.approval, decision: decision.approve ? "Approved" : "Denied", decidedBy: actor.name, decidedAt: at, comment: decision.comment },
        dispatchedAt: decision.approve ? at : draft.dispatchedAt,
      });
      Object.assign(draft, withSummary(draft));
      const audit = runAudit(actor, draft, decision.approve ? "Approve" : "Deny", { reasons: draft.approval.reasons, comment: decision.comment }, now);
      return [audit, ...(decision.approve ? dispatchRecords(draft) : [])];
    },
    write: (draft, etag, outbox) => ctx.stores.gamebookRuns.replace(draft, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  return saved.value;
}
