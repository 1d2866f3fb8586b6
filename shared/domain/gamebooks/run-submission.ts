import { randomUUID } from "node:crypto";
import { ApiError } from "../../platform/errors/api-error";
import type { Actor, Uses } from "../../platform/operation-context";
import { derivedGuid } from "../../platform/ids/derived-guid";
import { commit } from "../../platform/store/commit";
import { AUTOMATION_SYSTEM } from "../../systems/playbook-automation/port";
import type { GamebookRunRecord, RunRequester } from "./gamebook-run";
import type { WorkspaceRecord } from "../organizations/workspace";
import { approvalRequired } from "./approval-policy";
import { approvalSettingsOf, catalogueOf } from "./gamebook-settings";
import { newRunRecord } from "./run-record";
import { dispatchRecords, runAudit } from "./run-records";
import { planPlaybooks, type RunGamebookRequest } from "./run-request";

export interface RunSubmission {
  workspace: WorkspaceRecord;
  request: RunGamebookRequest;
  /** The trace id the run keeps: the request id of the API call. */
  tracingId: string;
  /** Started by automation (an automation rule, the demo seed) rather than by a caller. */
  isAutoRun?: boolean;
  /** A chosen id (the demo seed's, so that a restart submits nothing twice); default a fresh GUID. */
  runId?: string;
  /**
   * Who asks for the run, when it is a person (the portal's user); default the actor: the calling
   * service account, or the service itself.
   */
  requestedBy?: RunRequester;
}

/**
 * `POST /gamebooks/run` (contract 4.1). The incident must exist at its source in the workspace (404
 * otherwise); the playbooks, their entities and parameters must fit the workspace's catalogue and the
 * incident (400 naming `playbooks[i]...`). When the caller asked for approval, or the workspace
 * policy or the managing provider's partner setting requires it, the run is stored `Pending` with
 * `isQueued` true, with the terms the workspace policy sets now (when the request expires, how many
 * people must approve it), and nothing else happens. Otherwise it is dispatched: the run, its
 * `gamebook.run.v1` and the executor's message commit together (with the submission's audit event
 * either way), and the relay sends them on.
 */
export async function submitRun(ctx: Uses<"actor" | "events" | "now" | "playbookActions" | "sources" | "stores">, submission: RunSubmission): Promise<GamebookRunRecord> {
  const { actor } = ctx;
  const { workspace, request } = submission;
  const incident = await ctx.sources.gateway(request.source).getIncident(workspace.id, request.incidentId, ctx.signal);
  const catalogue = await catalogueOf(ctx, workspace.id);
  const planned = planPlaybooks(request, catalogue, incident);
  if (!ctx.playbookActions.enabled && planned.some((p) => p.playbook.action === "automation")) {
    throw new ApiError(
      "EXTENSION_NOT_ENABLED",
      `The ${AUTOMATION_SYSTEM.toLowerCase()} integration is not enabled for this deployment: only playbooks on the incident itself (add a comment, close it) can run.`,
      { target: "playbooks" },
    );
  }
  const settings = await approvalSettingsOf(ctx, workspace);
  const approval = approvalRequired(
    {
      accountId: workspace.accountId,
      managedByAccountId: settings.account?.managedByAccountId ?? null,
      playbooks: planned.map((p) => p.playbook),
      isQueued: request.isQueued,
    },
    settings.workspacePolicy.mode,
    settings.partner,
  );
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
    policy: settings.workspacePolicy,
    isAutoRun: submission.isAutoRun ?? false,
  });
  const audit = runAudit(
    actor,
    run,
    "Submit",
    {
      playbooks: run.playbooks.map((p) => ({ sequence: p.sequence, playbookId: p.referenceId, entityId: p.entityId })),
      isQueuedRequested: request.isQueued,
      approvalRequired: approval.required,
      approvalReasons: approval.reasons,
      ...(approval.required ? { approvalExpiresAt: run.approval.expiresAt, requiredApprovals: run.approval.requiredApprovals } : {}),
    },
    now,
  );
  const saved = await commit({
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
 * The requester a run records for who submitted it: the service account calling the API, or the
 * service itself under the GUID its audit events carry for it.
 */
function requesterOfActor(actor: Actor): RunRequester {
  return actor.serviceAccountId
    ? { kind: "ServiceAccount", id: actor.serviceAccountId, name: actor.name }
    : { kind: "Service", id: derivedGuid(`actor/${actor.origin}/${actor.name}`), name: actor.name };
}
