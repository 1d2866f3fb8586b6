import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import { satisfiesWorkspaceRole } from "../../../model/organizations/roles";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import type { Source } from "../../../model/sources";
import { catalogueOf } from "../../../domain/gamebooks/gamebook-settings";
import type { GamebookRunRecord, GamebookRunStatus, RunCancellation, RunLink, RunRequester } from "../../../model/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";
import type { PlaybookStatus } from "../../../domain/gamebooks/run-state";
import { approvalStandingOf, runPlaybookViews, type ApprovalPlaybookView, type ApprovalStanding } from "../approval-request-view";
import { requesterOf } from "../../../domain/gamebooks/run-approval-rules";
import { followUpsOf, retryRefusal, undoOffer } from "../../../domain/gamebooks/run-follow-ups";
import { isFinal } from "../../../domain/gamebooks/run-state";

/**
 * One run on an incident as the incident's page lists it: who asked, who decided (the approval queue's
 * own pieces, `approval-request-view.ts`), each step with its outcome, the runs it comes from and
 * those made from it, and what the person reading may do with it now (retry, cancel, undo), with the
 * reason when they may not: the same rules, in the same words, that refuse the action itself.
 */
export interface IncidentRunView {
  id: string;
  title: string;
  status: GamebookRunStatus;
  summary: string;
  /** True while it waits in the approval queue. */
  awaitingApproval: boolean;
  isAutoRun: boolean;
  isRetryGamebook: boolean;
  isRecover: boolean;
  isAdminRequired: boolean;
  gamebook: { id: string; title: string } | null;
  createdAt: string;
  /** Its latest change (the list's order). */
  lastActivityAt: string;
  dispatchedAt: string | null;
  requestedBy: RunRequester;
  /** Where its approval stands; null when it never needed one. */
  approval: Omit<ApprovalStanding, "awaitingDecision"> | null;
  cancellation: RunCancellation | null;
  retryOf: RunLink | null;
  undoOf: RunLink | null;
  /** Runs that retried it, oldest first. */
  retriedBy: string[];
  /** Runs that undid (some of) it, oldest first. */
  undoneBy: string[];
  steps: IncidentRunStepView[];
  actions: { retry: RunActionView; cancel: RunActionView; undo: RunActionView & { sequences: number[] } };
}

export interface IncidentRunStepView extends ApprovalPlaybookView {
  status: PlaybookStatus;
  /** Why it failed; "" unless it failed. */
  errorMessage: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** `hh:mm:ss[.fff]`; "" until it finishes. */
  executionTime: string;
}

/** Whether the person may do it now, and why not when they may not. */
export interface RunActionView {
  allowed: boolean;
  reason: string | null;
}

/** Who reads the list: whether they may act on the workspace's incidents at all (the Analyst or Owner role there). */
export interface RunViewer {
  mayAct: boolean;
}

const NO_ROLE = "Needs the Analyst or Owner role on this workspace.";

/** Whether the person may act on the workspace's incidents: the Analyst or Owner role there (an organizational `Member` reads). */
export function mayActOn(person: Person, workspace: Pick<WorkspaceRecord, "id">): boolean {
  return satisfiesWorkspaceRole(person.workspaceRoles.get(workspace.id), "Analyst");
}

/**
 * Every run on the incident (at most `limit`, newest created first as read, then ordered by latest
 * activity), as the person sees them: with what each may do now.
 */
export async function incidentRuns(ctx: Uses<"stores">, workspace: WorkspaceRecord, source: Source, incidentId: string, person: Person, limit: number): Promise<IncidentRunView[]> {
  const [runs, catalogue] = await Promise.all([ctx.stores.gamebookRuns.listForIncident(workspace.id, incidentId, source, limit), catalogueOf(ctx, workspace.id)]);
  return incidentRunViews(runs, workspace, catalogue, { mayAct: mayActOn(person, workspace) });
}

/**
 * The incident's runs, newest activity first (latest change, then newest created), each with its
 * links and actions worked out against the others (`runs` is every run on the incident the caller
 * read, so that retries and undos are found among them).
 */
export function incidentRunViews(runs: readonly GamebookRunRecord[], workspace: WorkspaceRecord, catalogue: PlaybookCatalogueRecord, viewer: RunViewer): IncidentRunView[] {
  const ordered = [...runs].sort(
    (a, b) => b.modificationDate.localeCompare(a.modificationDate) || b.creationDate.localeCompare(a.creationDate) || b.id.localeCompare(a.id),
  );
  return ordered.map((run) => incidentRunView(run, runs, workspace, catalogue, viewer));
}

function incidentRunView(run: GamebookRunRecord, all: readonly GamebookRunRecord[], workspace: WorkspaceRecord, catalogue: PlaybookCatalogueRecord, viewer: RunViewer): IncidentRunView {
  const { retries, undos } = followUpsOf(run, all);
  const { awaitingDecision, ...standing } = approvalStandingOf(run, workspace);
  // A run a pre-authorization let through shows it there too, though it never waited.
  const waited = run.approval.reasons.length > 0 || run.approval.decision !== null || run.approval.preAuthorization !== undefined;
  const playbooks = new Map(run.playbooks.map((p) => [p.sequence, p]));
  const refuse = (reason: string | null): RunActionView => (!viewer.mayAct ? { allowed: false, reason: NO_ROLE } : { allowed: reason === null, reason });
  const offer = undoOffer(run, catalogue, undos);
  return {
    id: run.id,
    title: run.title,
    status: run.status,
    summary: run.summary,
    awaitingApproval: awaitingDecision,
    isAutoRun: run.isAutoRun,
    isRetryGamebook: run.isRetryGamebook,
    isRecover: run.isRecover,
    isAdminRequired: run.isAdminRequired,
    gamebook: run.originalGamebookId ? { id: run.originalGamebookId, title: run.originalGamebookTitle } : null,
    createdAt: run.creationDate,
    lastActivityAt: run.modificationDate,
    dispatchedAt: run.dispatchedAt || null,
    requestedBy: { ...requesterOf(run) },
    approval: waited ? standing : null,
    cancellation: run.cancellation ? { ...run.cancellation } : null,
    retryOf: run.retryOf ? { runId: run.retryOf.runId, sequences: [...run.retryOf.sequences] } : null,
    undoOf: run.undoOf ? { runId: run.undoOf.runId, sequences: [...run.undoOf.sequences] } : null,
    retriedBy: retries.map((r) => r.id),
    undoneBy: undos.map((r) => r.id),
    steps: runPlaybookViews(run, catalogue).map((view) => {
      const step = playbooks.get(view.sequence)!;
      return {
        ...view,
        status: step.status,
        errorMessage: step.errorMessage,
        startedAt: step.startingDate || null,
        finishedAt: step.finishingDate || null,
        executionTime: step.executionTime,
      };
    }),
    actions: {
      retry: refuse(retryRefusal(run, retries)),
      cancel: refuse(isFinal(run.status) ? `It has ended (${run.status}): there is nothing left to cancel.` : null),
      undo: { ...refuse(offer.refusal), sequences: viewer.mayAct ? offer.steps.map((s) => s.step.sequence) : [] },
    },
  };
}
