import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { Confirmation, useConfirming } from "../confirmation";
import { Badge, Checkbox, DataTable, Field, Time, useAction } from "../ui";
import { Run } from "./run-types";
import { preAuthorizationText } from "./run-form-fields";

export function statusTone(run: Run): "ok" | "warn" | "bad" | "neutral" {
  if (run.status === "Succeeded") return "ok";
  if (run.status === "Failed" || run.status === "Denied" || run.status === "Cancelled" || run.status === "PartiallySucceeded") return "bad";
  return run.awaitingApproval ? "warn" : "neutral";
}

export function statusText(run: Run): string {
  if (run.awaitingApproval) return "Waiting for approval";
  if (run.status === "Pending") return "Dispatched";
  return run.status === "PartiallySucceeded" ? "Partly succeeded" : run.status;
}

export const stepTone = (status: string): "ok" | "bad" | "warn" | "neutral" => (status === "Succeeded" ? "ok" : status === "Failed" ? "bad" : status === "Running" ? "warn" : "neutral");
export const shortId = (id: string) => id.slice(0, 8);

export type RunAction = "retry" | "cancel" | "undo";

export function RunCard(props: { workspaceId: string; run: Run; onChange(run: Run): void; onMade(run: Run, from: string): Promise<void> }) {
  const { run, workspaceId } = props;
  const path = { workspaceId, runId: run.id };
  const [reason, setReason] = useState("");
  const [undoing, setUndoing] = useState<number[]>(run.actions.undo.sequences);
  const act = useAction(async (action: RunAction) => {
    if (action === "cancel") {
      const body = reason.trim() ? { reason: reason.trim() } : {};
      props.onChange((await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/gamebook-runs/{runId}/cancel", { params: { path, header: csrf() }, body }))).data);
      return;
    }
    const made =
      action === "retry"
        ? await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/gamebook-runs/{runId}/retry", { params: { path, header: csrf() } }))
        : await call(
            api.POST("/api/v2/portal/workspaces/{workspaceId}/gamebook-runs/{runId}/undo", {
              params: { path, header: csrf() },
              body: undoing.length === run.actions.undo.sequences.length ? {} : { sequences: undoing },
            }),
          );
    await props.onMade(made.data, run.id);
  });
  const confirming = useConfirming<RunAction>(act);
  const headingId = `run-${run.id}`;
  const approval = run.approval;
  return (
    <article class="card run" aria-labelledby={headingId} data-run-id={run.id} data-status={run.status}>
      <header class="card-header">
        <h3 id={headingId}>{run.title}</h3>
        <span class="badges">
          {run.isAutoRun && <Badge>Automation rule</Badge>}
          {run.isRetryGamebook && <Badge>Retry</Badge>}
          {run.isRecover && <Badge>Undo</Badge>}
          <Badge tone={statusTone(run)}>{statusText(run)}</Badge>
        </span>
      </header>
      <p class="muted">{run.summary}</p>
      <dl class="facts">
        <div>
          <dt>Asked by</dt>
          <dd>
            {run.requestedBy.name} <span class="muted">({run.requestedBy.kind === "User" ? "person" : run.requestedBy.kind === "Service" ? "the service" : "service account"})</span>,{" "}
            <Time at={run.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Decided</dt>
          <dd data-decision>{decisionText(run)}</dd>
        </div>
        {(run.retryOf || run.undoOf) && (
          <div>
            <dt>{run.retryOf ? "Retries" : "Undoes"}</dt>
            <dd>
              run {shortId((run.retryOf ?? run.undoOf)!.runId)} <span class="muted">(its playbooks {(run.retryOf ?? run.undoOf)!.sequences.join(", ")})</span>
            </dd>
          </div>
        )}
        {(run.retriedBy.length > 0 || run.undoneBy.length > 0) && (
          <div>
            <dt>Followed by</dt>
            <dd>
              {[...run.retriedBy.map((id) => `retry ${shortId(id)}`), ...run.undoneBy.map((id) => `undo ${shortId(id)}`)].join(", ")}
            </dd>
          </div>
        )}
      </dl>
      {approval && approval.approvals.length > 0 && (
        <p class="muted">
          Approved by{" "}
          {approval.approvals.map((a, i) => (
            <span key={a.byUserId}>
              {i > 0 && ", "}
              {a.by} <Time at={a.at} />
              {a.comment ? ` (“${a.comment}”)` : ""}
            </span>
          ))}
        </p>
      )}
      <DataTable label={`Steps of ${run.title}`} class="run-steps" columns={["#", "Playbook", "Acts on", "Outcome", "Took"]}>
        {run.steps.map((s) => (
          <tr key={s.sequence} data-step={s.sequence} data-step-status={s.status}>
            <td>{s.sequence}</td>
            <td>
              {s.name} {s.isAdminRequired && <Badge tone="warn">Admin</Badge>}
              {s.parameters.length > 0 && <div class="muted">{s.parameters.map((p) => `${p.name} = ${String(p.value)}`).join("; ")}</div>}
            </td>
            <td>
              {s.affectedEntity} <span class="muted">({s.entityType})</span>
            </td>
            <td>
              <Badge tone={stepTone(s.status)}>{s.status}</Badge>
              {s.errorMessage && <div class="step-error">{s.errorMessage}</div>}
            </td>
            <td>{s.executionTime || "—"}</td>
          </tr>
        ))}
      </DataTable>
      <div class="run-actions">
        {(["retry", "cancel", "undo"] as const).map((action) => {
          const allowed = run.actions[action].allowed;
          if (confirming.key === action) {
            return (
              <Confirmation
                key={action}
                layout="panel"
                question={confirmQuestion(action, run)}
                confirmLabel={action === "retry" ? "Retry" : action === "cancel" ? "Cancel the run" : "Undo"}
                busyLabel={action === "retry" ? "Retrying…" : action === "cancel" ? "Cancelling…" : "Undoing…"}
                busy={act.busy}
                problem={act.problem}
                problemTitle={`The run was not ${action === "retry" ? "retried" : action === "cancel" ? "cancelled" : "undone"}`}
                confirmData={{ "data-confirm-action": action }}
                onCancel={confirming.cancel}
                onConfirm={() => void act.run(action).then((ok) => ok && confirming.close())}
              >
                {action === "cancel" && <Field label="Why (optional)" name="reason" value={reason} onValue={setReason} maxLength={2000} />}
                {action === "undo" && (
                  <fieldset class="undo-steps">
                    <legend>Undo these steps</legend>
                    {run.actions.undo.sequences.map((sequence) => {
                      const step = run.steps.find((s) => s.sequence === sequence)!;
                      return (
                        <Checkbox
                          key={sequence}
                          label={`${sequence}. ${step.name} on ${step.affectedEntity}, by ${step.undoneBy?.name ?? "its undo playbook"}`}
                          name={`undo-${sequence}`}
                          checked={undoing.includes(sequence)}
                          onValue={(on) => setUndoing((list) => (on ? [...list, sequence].sort((a, b) => a - b) : list.filter((x) => x !== sequence)))}
                        />
                      );
                    })}
                  </fieldset>
                )}
              </Confirmation>
            );
          }
          return (
            <div class="run-action" key={action}>
              <button
                type="button"
                class={action === "cancel" ? "button button-danger" : "button button-secondary"}
                disabled={!allowed || confirming.key !== undefined}
                data-action={action}
                {...(allowed ? confirming.opener(action) : {})}
                onClick={() => {
                  if (action === "undo") setUndoing(run.actions.undo.sequences);
                  confirming.open(action);
                }}
              >
                {action === "retry" ? "Retry…" : action === "cancel" ? "Cancel…" : "Undo…"}
              </button>
              {!allowed && run.actions[action].reason && <span class="muted action-reason">{run.actions[action].reason}</span>}
            </div>
          );
        })}
      </div>
    </article>
  );
}

export function decisionText(run: Run): string {
  if (run.cancellation) return `Cancelled by ${run.cancellation.by}${run.cancellation.reason ? `: “${run.cancellation.reason}”` : ""}`;
  const approval = run.approval;
  if (!approval) return "No approval needed";
  if (approval.preAuthorization && approval.reasons.length === 0) return preAuthorizationText(approval.preAuthorization);
  if (approval.decision?.expired) return "Nobody decided in time: denied as expired";
  if (approval.decision) return `${approval.decision.outcome} by ${approval.decision.by ?? "someone"}${approval.decision.comment ? `: “${approval.decision.comment}”` : ""}`;
  const why = approval.reasons.map((r) => r.text).join(" ");
  return `Waiting for ${approval.approvalsStillNeeded} approval(s). ${why}`;
}

export function confirmQuestion(action: RunAction, run: Run): string {
  const failed = run.steps.filter((s) => s.status === "Failed" || s.status === "Skipped").length;
  if (action === "retry") return `Run its ${failed} failed and skipped playbook(s) again, as a new run? It goes through approval like any run.`;
  if (action === "cancel") return run.awaitingApproval ? "Cancel this run? It leaves the approval queue and nothing runs." : "Cancel this run? Playbooks not started never start; one already running finishes and its outcome is recorded.";
  return "Undo what this run did? The undo playbooks run as a new run, in reverse order, through approval like any run.";
}
