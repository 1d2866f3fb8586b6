import { randomUUID } from "node:crypto";
import { ApiError } from "../../platform/errors/api-error";
import type { Actor } from "../../platform/actor";
import type { Uses } from "../operation-context";
import { derivedGuid } from "../../platform/ids/derived-guid";
import { commit } from "../../platform/store/commit";
import { AUTOMATION_SYSTEM } from "../../systems/playbook-automation/port";
import type { VendorIncident } from "../../model/incidents/incident";
import type { GamebookRunRecord, RunLink, RunRequester } from "../../model/gamebooks/gamebook-run";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import { approvalExpiresAt, approvalRequired, approvalTermsFor, withPreAuthorization, type ApprovalDecision, type GamebookApprovalPolicy } from "./approval-policy";
import { preAuthorizationFor, runPreAuthorizationOf, type RunPreAuthorization } from "./pre-authorizations";
import type { ApprovalSide } from "../../model/gamebooks/approval-sides";
import { approvalSettingsOf, catalogueOf } from "./gamebook-settings";
import { newRunRecord } from "./run-record";
import { dispatchRecords, runAudit, type RunActivity } from "./run-records";
import { affectedEntityOf, planPlaybooks, type PlannedPlaybook, type RunGamebookRequest } from "./run-request";

export interface RunSubmission {
  workspace: WorkspaceRecord;
  request: RunGamebookRequest;
  /** The trace id the run keeps: the request id of the API call. */
  tracingId: string;
  /** Started by automation (an automation rule, the demo seed) rather than by a caller. */
  isAutoRun?: boolean;
  /** A chosen id (derived: an automation rule's, a retry's, the demo seed's, so that nothing is submitted twice); default a fresh GUID. */
  runId?: string;
  /**
   * Who asks for the run, when it is a person (the portal's user); default the actor: the calling
   * service account, or the service itself.
   */
  requestedBy?: RunRequester;
  /** The incident, when the caller has just read it from its source: not read again. */
  incident?: VendorIncident;
  /** The workspace's catalogue, when the caller has just read it: not read again. */
  catalogue?: PlaybookCatalogueRecord;
  /** The run this one retries (a retry: `isRetryGamebook`). */
  retryOf?: RunLink;
  /** The run this one undoes (an undo: `isRecover`). */
  undoOf?: RunLink;
}

/** What a submission would do, worked out before anything is stored: the preview's answer and the submission's plan. */
export interface RunPlan {
  incident: VendorIncident;
  catalogue: PlaybookCatalogueRecord;
  planned: PlannedPlaybook[];
  approval: ApprovalDecision;
  /** The workspace's policy: how long a waiting run waits, and how many must approve it. */
  policy: GamebookApprovalPolicy;
}

/**
 * Checks a run request as submission does and says whether it would wait for approval. The incident
 * must exist at its source in the workspace (404 otherwise); the playbooks, their entities and
 * parameters must fit the workspace's catalogue and the incident (400 naming `playbooks[i]...`); an
 * entity playbook needs the automation integration (400 `EXTENSION_NOT_ENABLED`). Reads only.
 */
export async function planRun(
  ctx: Uses<"now" | "playbookActions" | "sources" | "stores">,
  submission: Pick<RunSubmission, "workspace" | "request" | "incident" | "catalogue">,
): Promise<RunPlan> {
  const { workspace, request } = submission;
  const incident = submission.incident ?? (await ctx.sources.gateway(request.source).getIncident(workspace.id, request.incidentId, ctx.signal));
  const catalogue = submission.catalogue ?? (await catalogueOf(ctx, workspace.id));
  const planned = planPlaybooks(request, catalogue, incident);
  if (!ctx.playbookActions.enabled && planned.some((p) => p.playbook.action === "automation")) {
    throw new ApiError(
      "EXTENSION_NOT_ENABLED",
      `The ${AUTOMATION_SYSTEM.toLowerCase()} integration is not enabled for this deployment: only playbooks on the incident itself (add a comment, close it) can run.`,
      { target: "playbooks" },
    );
  }
  const settings = await approvalSettingsOf(ctx, workspace);
  const decided = approvalRequired(
    {
      accountId: workspace.accountId,
      managedByAccountId: settings.account?.managedByAccountId ?? null,
      playbooks: planned.map((p) => p.playbook),
      isQueued: request.isQueued,
    },
    settings.workspacePolicy.mode,
    settings.partner,
  );
  // Pre-authorizations end by themselves: the one that applies is the one in effect now.
  const standing = preAuthorizationFor(workspace, planned.map((p) => p.playbook.id), ctx.now());
  const approval = withPreAuthorization(decided, standing && runPreAuthorizationOf(standing));
  return { incident, catalogue, planned, approval, policy: settings.workspacePolicy };
}

/** What submitting would do, said before it is done: whether the run would wait for approval, why, and on what terms. */
export interface RunPreview {
  awaitsApproval: boolean;
  reasons: ApprovalDecision["reasons"];
  /** How many different people would have to approve it; 0 when it would be dispatched at once. */
  requiredApprovals: number;
  /** The sides that would each have to give an approval; empty when any decider may, or it would not wait. */
  requiredSides: ApprovalSide[];
  /** The standing pre-authorization that would waive the workspace's policy for it; null when none would. */
  preAuthorization: RunPreAuthorization | null;
  /** When the request would expire, were it submitted now; null when it would not wait. */
  expiresAt: string | null;
  timeoutHours: number | null;
  isAdminRequired: boolean;
  playbooks: { sequence: number; playbookId: string; name: string; entityType: string; entityId: string; affectedEntity: string; isAdminRequired: boolean; parameters: Record<string, string | number | boolean> }[];
}

/** The preview of a run request: `planRun`'s checks (the same refusals as submission), its answer in words a person weighs. */
export async function previewRun(ctx: Uses<"now" | "playbookActions" | "sources" | "stores">, submission: Pick<RunSubmission, "workspace" | "request" | "incident" | "catalogue">): Promise<RunPreview> {
  const plan = await planRun(ctx, submission);
  const waits = plan.approval.required;
  return {
    awaitsApproval: waits,
    reasons: [...plan.approval.reasons],
    ...(waits ? approvalTermsFor(plan.policy, plan.planned.map((p) => p.playbook), plan.approval.reasons, !!plan.approval.preAuthorization) : { requiredApprovals: 0, requiredSides: [] }),
    preAuthorization: plan.approval.preAuthorization ?? null,
    expiresAt: waits ? approvalExpiresAt(plan.policy, ctx.now()) : null,
    timeoutHours: waits ? plan.policy.approvalTimeoutHours : null,
    isAdminRequired: plan.planned.some((p) => p.playbook.isAdminRequired),
    playbooks: plan.planned.map((p) => ({
      sequence: p.sequence,
      playbookId: p.playbook.id,
      name: p.playbook.name,
      entityType: p.playbook.entityType,
      entityId: p.entity?.id ?? plan.incident.id,
      affectedEntity: affectedEntityOf(p, plan.incident),
      isAdminRequired: p.playbook.isAdminRequired,
      parameters: { ...p.parameters },
    })),
  };
}

/**
 * `POST /gamebooks/run` (docs/contract.md §4.1), and a person's run, retry or undo in the portal. Checked as
 * `planRun` says. When the caller asked for approval, or the workspace policy or the managing
 * provider's partner setting requires it, the run is stored `Pending` with `isQueued` true, with the
 * terms the workspace policy sets now (when the request expires, how many people must approve it),
 * and nothing else happens. Otherwise it is dispatched: the run, its `gamebook.run.v1` and the
 * executor's message commit together (with the submission's audit event either way), and the relay
 * sends them on. A chosen `runId` that exists already is 409 CONFLICT.
 */
export async function submitRun(ctx: Uses<"actor" | "events" | "now" | "playbookActions" | "sources" | "stores">, submission: RunSubmission): Promise<GamebookRunRecord> {
  const { actor } = ctx;
  const { workspace, request } = submission;
  const { incident, catalogue, planned, approval, policy } = await planRun(ctx, submission);
  const now = ctx.now();
  const run = newRunRecord({
    id: submission.runId ?? randomUUID(),
    tracingId: submission.tracingId,
    now,
    workspace,
    incident,
    request,
    planned,
    catalogue,
    submitter: { origin: actor.origin, serviceAccountId: actor.serviceAccountId, name: actor.name, accountId: actor.accountId },
    requestedBy: submission.requestedBy ?? requesterOfActor(actor),
    approval,
    policy,
    isAutoRun: submission.isAutoRun ?? false,
    retryOf: submission.retryOf,
    undoOf: submission.undoOf,
  });
  const activity: RunActivity = submission.retryOf ? "Retry" : submission.undoOf ? "Undo" : "Submit";
  const audit = runAudit(
    actor,
    run,
    activity,
    {
      playbooks: run.playbooks.map((p) => ({ sequence: p.sequence, playbookId: p.referenceId, entityId: p.entityId })),
      isQueuedRequested: request.isQueued,
      approvalRequired: approval.required,
      approvalReasons: approval.reasons,
      ...(approval.preAuthorization ? { preAuthorization: approval.preAuthorization, approvalWaived: ["WorkspacePolicy"] } : {}),
      ...(approval.required ? { approvalExpiresAt: run.approval.expiresAt, requiredApprovals: run.approval.requiredApprovals } : {}),
      ...(run.isAutoRun ? { isAutoRun: true } : {}),
      ...(submission.retryOf ? { retryOf: submission.retryOf } : {}),
      ...(submission.undoOf ? { undoOf: submission.undoOf } : {}),
    },
    now,
  );
  const saved = await commit({
    deadline: ctx.deadline,
    read: async () => ({ value: run, etag: null }),
    change: (created) => [audit, ...(approval.required ? [] : dispatchRecords(created))],
    write: (created, _etag, outbox) => ctx.stores.gamebookRuns.create(created, outbox),
    outbox: ctx.events.outbox,
    // A new run's id is its own: a create conflicts only with itself.
    maxAttempts: 1,
  });
  return saved.value;
}

/**
 * The requester a run records for who submitted it: the service account calling the API, the person
 * in the portal, or the service itself under the GUID its audit events carry for it.
 */
export function requesterOfActor(actor: Actor): RunRequester {
  if (actor.serviceAccountId) return { kind: "ServiceAccount", id: actor.serviceAccountId, name: actor.name };
  if (actor.person) return { kind: "User", id: actor.person.userId, name: actor.name };
  return { kind: "Service", id: derivedGuid(`actor/${actor.origin}/${actor.name}`), name: actor.name };
}
