import { isApiError, notFound } from "../../../platform/errors/api-error";
import { auditRecord } from "../../../platform/events/audit-record";
import { checkIfMatch } from "../../../platform/concurrency/etag";
import type { PersonWorkspaceInput } from "../../route-kinds";
import { commit } from "../../../platform/store/commit";
import { outboxScope } from "../../../platform/store/outbox-scope";
import type { GamebookRunCursor } from "../../../platform/store/ports";
import { decideRun } from "../../../domain/gamebooks/run-approval";
import { withSummary } from "../../../domain/gamebooks/run-record";
import { cancelRun } from "../../../domain/gamebooks/run-state";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { byPerson } from "../portal-access";
import { workspaceAudit } from "../../../domain/organizations/workspace-audit";

type OffboardInput = PersonWorkspaceInput<unknown, unknown, unknown>;

const OFFBOARDED = "The workspace was offboarded.";

/**
 * Offboards a workspace. First its runs that have not finished: one waiting for approval is denied
 * (as a denial by the person offboarding, with the reason), one dispatched or running is cancelled
 * (the playbooks not started are skipped; one already in the automation backend cannot be called
 * back) — each in its own commit with its audit event, so a failure midway leaves the workspace
 * onboarded and a second attempt goes on where the first stopped. Then the workspace's record is
 * marked offboarded, audited in the workspace's trail: from then on the stores leave it out of every
 * read and listing, so every route answers 404 for it, the reconciler and the executor pass it over,
 * and its incident state stays where it is, untouched. The audit trail stays, for its retention.
 */
export async function offboardWorkspace(input: OffboardInput, ifMatch: string | undefined) {
  const { workspace, person, stores } = input;
  const found = await stores.workspaces.read(workspace.id);
  if (!found || found.value.offboarded) throw notFound("The workspace", "workspaceId");
  // Checked before any run is ended: a stale version changes nothing.
  checkIfMatch(ifMatch, found.etag);

  let runsDenied = 0;
  let runsCancelled = 0;
  let cursor: GamebookRunCursor | undefined;
  do {
    const page = await stores.gamebookRuns.list(workspace.id, { statuses: ["Pending", "Running"] }, 100, cursor);
    for (const run of page.items) {
      if (run.status === "Pending" && run.isQueued) {
        if (await denyWaiting(input, workspace, run.id)) runsDenied++;
      } else if (await cancel(input, workspace, run.id)) runsCancelled++;
    }
    cursor = page.next;
  } while (cursor);

  const at = input.now().toISOString();
  const saved = await commit({
    deadline: input.deadline,
    async read() {
      const current = await stores.workspaces.read(workspace.id);
      if (!current || current.value.offboarded) throw notFound("The workspace", "workspaceId");
      return current;
    },
    ifMatch,
    change(draft) {
      draft.offboarded = byPerson(person, at);
      draft.lastModifiedAt = at;
      return [
        workspaceAudit(input, draft, "WorkspaceOffboarded", "Delete", { runsDenied, runsCancelled }),
      ];
    },
    write: (draft, etag, outbox) => stores.workspaces.replace(draft, etag!, outbox),
    outbox: input.events.outbox,
  });
  input.sources.evict(workspace.id);
  return { id: saved.value.id, offboardedAt: at, runsDenied, runsCancelled };
}

/** Denies a run waiting for approval; false when it was decided meanwhile. */
async function denyWaiting(input: OffboardInput, workspace: WorkspaceRecord, runId: string): Promise<boolean> {
  try {
    await decideRun(input, { workspace, runId, approve: false, comment: OFFBOARDED, decidedBy: { userId: input.person.userId, name: input.person.name } });
    return true;
  } catch (error) {
    if (isApiError(error) && error.code === "CONFLICT") return false;
    throw error;
  }
}

/** Cancels a run dispatched or running, audited in the workspace's trail; false when it finished meanwhile. */
async function cancel(input: OffboardInput, workspace: WorkspaceRecord, runId: string): Promise<boolean> {
  const runs = input.stores.gamebookRuns;
  const saved = await commit({
    deadline: input.deadline,
    read: async () => (await runs.get(workspace.id, runId)) ?? null,
    next(run) {
      const dispatched = (run.status === "Pending" && !run.isQueued) || run.status === "Running";
      if (!dispatched) return null;
      const at = input.now().toISOString();
      const cancelled = withSummary(cancelRun(run, at));
      const audit = auditRecord(
        input.actor,
        {
          activityType: "GamebookRun",
          activityAction: "Update",
          targetResourceType: "GamebookRun",
          targetResourceId: run.id,
          targetResourceName: run.title,
          metadata: { activity: "Cancel", incidentId: run.incidentId, source: run.source, reason: OFFBOARDED },
          workspaceId: workspace.id,
          accountId: run.accountId,
        },
        outboxScope.workspace(workspace.id),
        input.now(),
      );
      return { value: cancelled, outbox: [audit] };
    },
    write: (run, etag, outbox) => runs.replace(run, etag!, outbox),
    outbox: input.events.outbox,
  });
  return saved !== null;
}
