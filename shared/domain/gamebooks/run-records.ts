import { sourceDisplayName } from "../../model/sources";
import { auditRecord } from "../../platform/events/audit-record";
import { eventRecord } from "../../platform/events/event-record";
import type { Actor } from "../../platform/actor";
import { queueNames } from "../../platform/queue/queue-names";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { GamebookRunRecord } from "../../model/gamebooks/gamebook-run";
import type { OutboxAuditRecord, OutboxEventRecord, OutboxMessageRecordFor, OutboxRecord } from "../../platform/events/outbox-record";

/**
 * The outbox records a run commits with its own writes: `gamebook.run.v1` and the executor's
 * message at dispatch, the message for each next playbook, the audit events of submission,
 * approval and denial. All in the run's workspace scope, so each goes in the run's own batch.
 */

/** docs/contract.md §6.6.4: one `gamebook.run.v1` per run, its id derived from the run, so a republish is the same event. */
export function runSubject(run: Pick<GamebookRunRecord, "workspaceId" | "id">): string {
  return `gamebook-run/${run.workspaceId}/${run.id}`;
}

/** What dispatch commits with the run: its event, and the message that starts the executor on its first playbook. */
export function dispatchRecords(run: GamebookRunRecord): OutboxRecord[] {
  const first = Math.min(...run.playbooks.map((p) => p.sequence));
  return [runEvent(run), executorMessage(run, first, 1, run.dispatchedAt)];
}

function runEvent(run: GamebookRunRecord): OutboxEventRecord {
  return eventRecord(
    "gamebook.run.v1",
    {
      scope: outboxScope.workspace(run.workspaceId),
      accountId: run.accountId,
      occurredAt: run.dispatchedAt,
      subject: runSubject(run),
      incident: { workspaceId: run.workspaceId, source: run.source, incidentId: run.incidentId },
    },
    {
      runId: run.id,
      tracingId: run.tracingId,
      incidentId: run.incidentId,
      source: run.source.toLowerCase(),
      sourceDisplayName: sourceDisplayName(run.source),
      workspaceId: run.workspaceId,
      accountId: run.accountId,
      incidentNumber: run.incidentNumber,
      incidentTitle: run.incidentTitle,
      gamebookId: run.originalGamebookId,
      gamebookTitle: run.title,
      status: run.status,
      isAutoRun: run.isAutoRun,
      isRetryGamebook: run.isRetryGamebook,
      triggeredBy: {
        origin: run.submitter.origin,
        serviceAccountId: run.submitter.serviceAccountId,
        name: run.submitter.origin === "upstream" ? null : run.submitter.name,
      },
      dispatchedAt: run.dispatchedAt,
      playbooks: [...run.playbooks]
        .sort((a, b) => a.sequence - b.sequence)
        .map((p) => ({
          id: p.id,
          referenceId: p.referenceId,
          name: p.name,
          entityType: p.entityType,
          affectedEntity: p.affectedEntity,
          sequence: p.sequence,
          isAdminRequired: p.isAdminRequired,
          status: p.status,
        })),
    },
  );
}

/**
 * The `gamebook-runs` message for one playbook of a run. Its id names the playbook and the attempt:
 * a resend of the same message is dropped by duplicate detection, while the next playbook's message
 * (or a retry's) is a new one.
 */
export function executorMessage(run: Pick<GamebookRunRecord, "workspaceId" | "id">, sequence: number, attempt: number, at: string): OutboxMessageRecordFor<"gamebook-runs"> {
  const messageId = `gamebook-run/${run.id}/${sequence}/${attempt}`;
  return {
    id: `outbox-${messageId.replaceAll("/", "-")}`,
    docType: "outbox",
    kind: "message",
    scope: outboxScope.workspace(run.workspaceId),
    createdAt: at,
    publishedAt: null,
    queue: queueNames.gamebookRuns,
    message: { messageId, body: { workspaceId: run.workspaceId, runId: run.id, sequence, attempt } },
  };
}

export type RunActivity = "Submit" | "Retry" | "Undo" | "Approve" | "Deny" | "Cancel";

/**
 * The audit event (docs/contract.md §2.12) of a submission (a retry and an undo are submissions of a new
 * run), an approval, a denial or a cancellation, committed with the run.
 */
export function runAudit(actor: Actor, run: GamebookRunRecord, activity: RunActivity, metadata: Record<string, unknown>, now: Date): OutboxAuditRecord {
  const decision = activity === "Approve" || activity === "Deny";
  const creates = activity === "Submit" || activity === "Retry" || activity === "Undo";
  return auditRecord(
    actor,
    {
      activityType: decision ? "GamebookApproval" : "GamebookRun",
      activityAction: creates ? "Create" : "Update",
      targetResourceType: "GamebookRun",
      targetResourceId: run.id,
      targetResourceName: run.title,
      metadata: { activity, incidentId: run.incidentId, source: run.source, ...metadata },
      workspaceId: run.workspaceId,
      accountId: run.accountId,
    },
    outboxScope.workspace(run.workspaceId),
    now,
  );
}
