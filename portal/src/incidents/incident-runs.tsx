import { useEffect, useState } from "preact/hooks";
import { api, call, csrf, fieldError, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { Confirmation, useConfirming } from "../confirmation";
import { useMe } from "../session";
import { Badge, Checkbox, Empty, Field, Notice, ProblemBanner, Select, TableScroll, Time, useAction, useInterval, useResource } from "../ui";

type IncidentPath = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}"]["get"]["parameters"]["path"];
export type Run = paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-runs/{runId}"]["get"]["responses"][200]["content"]["application/json"]["data"];
type Offer = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/playbooks"]["get"]["responses"][200]["content"]["application/json"]["data"];
type OfferedPlaybook = Offer["playbooks"][number];
type Parameter = OfferedPlaybook["parameters"][number];
type RunBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/runs"]["post"]["requestBody"]>["content"]["application/json"];
type Preview = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/runs/preview"]["post"]["responses"][200]["content"]["application/json"]["data"];

/** How often runs that have not ended are read again, so that steps show their outcomes as they come. */
const FOLLOW_MS = 3000;
const FINAL = ["Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"];

const newestActivityFirst = (a: Run, b: Run) => b.lastActivityAt.localeCompare(a.lastActivityAt) || b.createdAt.localeCompare(a.createdAt);

async function readRun(workspaceId: string, runId: string): Promise<Run> {
  return (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/gamebook-runs/{runId}", { params: { path: { workspaceId, runId } } }))).data;
}

/**
 * Every playbook run on an incident (newest activity first) with who asked, who decided and each
 * step's outcome; Retry, Cancel and Undo where the person may; and "Run a playbook", which shows
 * whether the run will wait for approval before it is submitted. Runs that have not ended are
 * followed until they do.
 */
export function IncidentRuns(props: { path: IncidentPath; runs: readonly Run[] }) {
  const me = useMe();
  const { workspaceId } = props.path;
  const mayAct = me.workspaceRoles.some((r) => r.workspaceId === workspaceId && (r.role === "Analyst" || r.role === "Owner"));
  const [runs, setRuns] = useState<Run[]>(() => [...props.runs]);
  const [running, setRunning] = useState(false);
  const [said, setSaid] = useState("");
  useEffect(() => setRuns([...props.runs]), [props.runs]);

  const put = (...updated: Run[]) =>
    setRuns((list) => {
      const byId = new Map(list.map((r) => [r.id, r]));
      for (const r of updated) byId.set(r.id, r);
      return [...byId.values()].sort(newestActivityFirst);
    });
  /** After a run is made from another (a retry, an undo), the other changes too: its links and what may be done with it. */
  const made = async (run: Run, from?: string) => {
    put(run, ...(from ? [await readRun(workspaceId, from)] : []));
    setSaid(`${run.title}: ${run.summary}`);
  };

  useInterval(() => {
    const open = runs.filter((r) => !FINAL.includes(r.status));
    if (open.length > 0) void Promise.all(open.map((r) => readRun(workspaceId, r.id).catch(() => r))).then((fresh) => put(...fresh));
  }, FOLLOW_MS);

  return (
    <section class="incident-runs" aria-labelledby="runs-heading">
      <div class="section-header">
        <h2 id="runs-heading">Playbook runs</h2>
        {mayAct && !running && (
          <button type="button" class="button" data-open-run-form onClick={() => setRunning(true)}>
            Run a playbook
          </button>
        )}
      </div>
      {!mayAct && <p class="muted">Running playbooks here needs the Analyst or Owner role on this workspace.</p>}
      <p class="visually-hidden" aria-live="polite">
        {said}
      </p>
      {running && (
        <RunPlaybookForm
          path={props.path}
          onDone={async (run) => {
            setRunning(false);
            if (run) await made(run);
          }}
        />
      )}
      {runs.length === 0 ? (
        <Empty>No playbook has run on this incident.</Empty>
      ) : (
        <ol class="cards" aria-label="Playbook runs, newest activity first">
          {runs.map((run) => (
            <li key={run.id}>
              <RunCard workspaceId={workspaceId} run={run} onChange={put} onMade={made} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function statusTone(run: Run): "ok" | "warn" | "bad" | "neutral" {
  if (run.status === "Succeeded") return "ok";
  if (run.status === "Failed" || run.status === "Denied" || run.status === "Cancelled" || run.status === "PartiallySucceeded") return "bad";
  return run.awaitingApproval ? "warn" : "neutral";
}

function statusText(run: Run): string {
  if (run.awaitingApproval) return "Waiting for approval";
  if (run.status === "Pending") return "Dispatched";
  return run.status === "PartiallySucceeded" ? "Partly succeeded" : run.status;
}

const stepTone = (status: string): "ok" | "bad" | "warn" | "neutral" => (status === "Succeeded" ? "ok" : status === "Failed" ? "bad" : status === "Running" ? "warn" : "neutral");
const shortId = (id: string) => id.slice(0, 8);

type RunAction = "retry" | "cancel" | "undo";

function RunCard(props: { workspaceId: string; run: Run; onChange(run: Run): void; onMade(run: Run, from: string): Promise<void> }) {
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
      <TableScroll label={`Steps of ${run.title}`}>
        <table class="run-steps">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Playbook</th>
              <th scope="col">Acts on</th>
              <th scope="col">Outcome</th>
              <th scope="col">Took</th>
            </tr>
          </thead>
          <tbody>
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
          </tbody>
        </table>
      </TableScroll>
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

function decisionText(run: Run): string {
  if (run.cancellation) return `Cancelled by ${run.cancellation.by}${run.cancellation.reason ? `: “${run.cancellation.reason}”` : ""}`;
  const approval = run.approval;
  if (!approval) return "No approval needed";
  if (approval.preAuthorization && approval.reasons.length === 0) return preAuthorizationText(approval.preAuthorization);
  if (approval.decision?.expired) return "Nobody decided in time: denied as expired";
  if (approval.decision) return `${approval.decision.outcome} by ${approval.decision.by ?? "someone"}${approval.decision.comment ? `: “${approval.decision.comment}”` : ""}`;
  const why = approval.reasons.map((r) => r.text).join(" ");
  return `Waiting for ${approval.approvalsStillNeeded} approval(s). ${why}`;
}

function confirmQuestion(action: RunAction, run: Run): string {
  const failed = run.steps.filter((s) => s.status === "Failed" || s.status === "Skipped").length;
  if (action === "retry") return `Run its ${failed} failed and skipped playbook(s) again, as a new run? It goes through approval like any run.`;
  if (action === "cancel") return run.awaitingApproval ? "Cancel this run? It leaves the approval queue and nothing runs." : "Cancel this run? Playbooks not started never start; one already running finishes and its outcome is recorded.";
  return "Undo what this run did? The undo playbooks run as a new run, in reverse order, through approval like any run.";
}

// "Run a playbook": choose, fill in, preview, submit.

interface DraftStep {
  key: number;
  playbookId: string;
  entityId: string;
  /** As typed; turned into the parameter's kind when sent. */
  values: Record<string, string | boolean>;
}

let nextStepKey = 1;

function stepFor(playbook: OfferedPlaybook): DraftStep {
  const values: Record<string, string | boolean> = {};
  for (const p of playbook.parameters) {
    if (p.default !== undefined) values[p.name] = typeof p.default === "boolean" ? p.default : String(p.default);
    // A required choice starts at its first value, as the list shows it.
    else if (p.kind === "enum" && p.required) values[p.name] = p.values[0] ?? "";
  }
  return { key: nextStepKey++, playbookId: playbook.id, entityId: playbook.entities[0]?.entityId ?? "", values };
}

function valueOf(parameter: Parameter, typed: string | boolean | undefined): string | number | boolean | undefined {
  if (typed === undefined || typed === "") return undefined;
  if (parameter.kind === "boolean") return typed === true;
  if (parameter.kind === "integer") return Number(typed);
  return String(typed);
}

function RunPlaybookForm(props: { path: IncidentPath; onDone(run: Run | undefined): Promise<void> }) {
  const { path } = props;
  const offer = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/playbooks", { params: { path } }))).data, [
    path.workspaceId,
    path.source,
    path.incidentId,
  ]);
  const [steps, setSteps] = useState<DraftStep[]>([]);
  const [isQueued, setIsQueued] = useState(false);
  const [choice, setChoice] = useState("");
  const [preview, setPreview] = useState<Preview | undefined>(undefined);
  const byId = new Map((offer.value?.playbooks ?? []).map((p) => [p.id, p]));
  const runnable = (offer.value?.playbooks ?? []).filter((p) => p.entities.length > 0);
  const gamebooks = (offer.value?.gamebooks ?? []).filter((g) => g.runnable);
  const chosen = choice || (runnable[0] ? `playbook:${runnable[0].id}` : "");

  const body = (): RunBody => ({
    isQueued,
    playbooks: steps.map((s, i) => {
      const playbook = byId.get(s.playbookId)!;
      const parameters: Record<string, string | number | boolean> = {};
      for (const p of playbook.parameters) {
        const value = valueOf(p, s.values[p.name]);
        if (value !== undefined) parameters[p.name] = value;
      }
      return { id: s.playbookId, sequence: i + 1, entityId: s.entityId, parameters };
    }),
  });
  const change = (next: DraftStep[]) => {
    setSteps(next);
    // What was previewed is no longer what would be sent.
    setPreview(undefined);
  };
  const check = useAction(async () => {
    setPreview((await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/runs/preview", { params: { path, header: csrf() }, body: body() }))).data);
  });
  const submit = useAction(async () => {
    const run = (await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/runs", { params: { path, header: csrf() }, body: body() }))).data;
    await props.onDone(run);
  });
  const problem: Problem | undefined = submit.problem ?? check.problem;

  const add = () => {
    if (chosen.startsWith("gamebook:")) {
      const gamebook = gamebooks.find((g) => `gamebook:${g.id}` === chosen);
      if (gamebook) change([...steps, ...gamebook.playbooks.map((p) => stepFor(byId.get(p.playbookId)!))]);
    } else {
      const playbook = byId.get(chosen.slice("playbook:".length));
      if (playbook) change([...steps, stepFor(playbook)]);
    }
  };
  const label = (p: OfferedPlaybook) => `${p.recommended ? "★ " : ""}${p.name} (${p.entityType})${p.isAdminRequired ? " · needs an administrator" : ""}`;
  const options = [
    ...gamebooks.map((g) => ({ value: `gamebook:${g.id}`, label: `Gamebook: ${g.recommended ? "★ " : ""}${g.title}` })),
    ...runnable.map((p) => ({ value: `playbook:${p.id}`, label: label(p) })),
  ];

  return (
    <form
      class="card run-form"
      aria-label="Run a playbook"
      data-run-form
      onSubmit={(e) => {
        e.preventDefault();
        void submit.run();
      }}
    >
      <h3>Run a playbook</h3>
      <ProblemBanner problem={offer.problem} title="What can run here could not be read" />
      {offer.value && (
        <>
          <p class="hint">★ recommended for this incident by the workspace's rules or by its source. Pick what each playbook acts on and its parameters, then check whether the run will wait for approval.</p>
          {offer.value.unavailable.length > 0 && (
            <p class="muted">
              Recommended by the source but not runnable here: {offer.value.unavailable.map((u) => `${u.name ?? u.referenceId} (${u.reason})`).join(", ")}.
            </p>
          )}
          <div class="run-form-add">
            <Select label="Playbook or gamebook" name="choice" value={chosen} options={options} onValue={setChoice} />
            <button type="button" class="button button-secondary" onClick={add} disabled={!chosen}>
              Add
            </button>
          </div>
          {steps.length === 0 && <p class="muted">Nothing added yet.</p>}
          <ol class="cards run-steps-draft">
            {steps.map((step, i) => {
              const playbook = byId.get(step.playbookId)!;
              const prefix = `playbooks[${i}]`;
              const setStep = (next: Partial<DraftStep>) => change(steps.map((s) => (s.key === step.key ? { ...s, ...next } : s)));
              return (
                <li key={step.key} data-draft-step={i + 1}>
                  <fieldset class="card">
                    <legend>
                      {i + 1}. {playbook.name}
                    </legend>
                    {fieldError(problem, `${prefix}.id`) && <p class="field-error">{fieldError(problem, `${prefix}.id`)}</p>}
                    <Select
                      label={playbook.entityType === "Incident" ? "Acts on" : `Acts on (${playbook.entityType})`}
                      name={`${prefix}.entityId`}
                      value={step.entityId}
                      options={playbook.entities.map((e) => ({ value: e.entityId, label: `${e.name} (${e.kind})` }))}
                      problem={problem}
                      onValue={(entityId) => setStep({ entityId })}
                    />
                    {playbook.parameters.map((p) => (
                      <ParameterField key={p.name} parameter={p} name={`${prefix}.parameters.${p.name}`} value={step.values[p.name]} problem={problem} onValue={(v) => setStep({ values: { ...step.values, [p.name]: v } })} />
                    ))}
                    <div class="buttons buttons-tight">
                      <button type="button" class="button button-secondary button-small" onClick={() => change(steps.filter((s) => s.key !== step.key))} aria-label={`Remove step ${i + 1}, ${playbook.name}`}>
                        Remove
                      </button>
                    </div>
                  </fieldset>
                </li>
              );
            })}
          </ol>
          <Checkbox
            label="Ask for approval even where the workspace does not require it"
            name="isQueued"
            checked={isQueued}
            onValue={(v) => {
              setIsQueued(v);
              setPreview(undefined);
            }}
          />
          <ProblemBanner problem={problem} title={submit.problem ? "The run was not submitted" : "The run cannot be submitted as it is"} />
          {preview && <PreviewNotice preview={preview} />}
          <div class="buttons">
            <button type="button" class="button button-secondary" data-preview-run disabled={steps.length === 0 || check.busy} onClick={() => void check.run()}>
              {check.busy ? "Checking…" : "Check before running"}
            </button>
            <button type="submit" class="button" data-submit-run disabled={!preview || submit.busy}>
              {submit.busy ? "Submitting…" : preview?.awaitsApproval ? "Submit for approval" : "Run now"}
            </button>
            <button type="button" class="button button-secondary" onClick={() => void props.onDone(undefined)}>
              Cancel
            </button>
          </div>
        </>
      )}
    </form>
  );
}

function PreviewNotice({ preview }: { preview: Preview }) {
  return (
    <div data-preview data-awaits={String(preview.awaitsApproval)}>
      <Notice kind={preview.awaitsApproval ? "warn" : "info"}>
        {preview.awaitsApproval ? (
          <>
            <strong>This run will wait for approval</strong> by {preview.requiredApprovals} other {preview.requiredApprovals === 1 ? "person" : "people"} before anything runs.{" "}
            {preview.reasons.map((r) => r.text).join(" ")} The request expires <Time at={preview.expiresAt} /> if nobody decides it. You cannot approve your own run.
          </>
        ) : (
          <>
            <strong>This run will start at once:</strong> no approval is required.
          </>
        )}
      </Notice>
      <ol class="compact">
        {preview.playbooks.map((p) => (
          <li key={p.sequence}>
            {p.name} on {p.affectedEntity}
            {Object.keys(p.parameters).length > 0 && (
              <span class="muted">
                {" "}
                ·{" "}
                {Object.entries(p.parameters)
                  .map(([k, v]) => `${k} = ${String(v)}`)
                  .join("; ")}
              </span>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

function ParameterField(props: { parameter: Parameter; name: string; value: string | boolean | undefined; problem: Problem | undefined; onValue(value: string | boolean): void }) {
  const { parameter: p, name } = props;
  const label = `${p.name}${p.required ? "" : " (optional)"}`;
  if (p.kind === "boolean") return <Checkbox label={`${label}: ${p.description || p.name}`} name={name} checked={props.value === true} problem={props.problem} onValue={props.onValue} />;
  if (p.kind === "enum") {
    const options = [...(p.required ? [] : [{ value: "", label: "(none)" }]), ...p.values.map((v) => ({ value: v, label: v }))];
    return <Select label={label} name={name} value={String(props.value ?? (p.required ? (p.values[0] ?? "") : ""))} options={options} problem={props.problem} onValue={props.onValue} />;
  }
  return (
    <Field
      label={label}
      name={name}
      type={p.kind === "integer" ? "number" : "text"}
      hint={p.description || undefined}
      required={p.required}
      maxLength={p.kind === "string" ? p.maxLength : undefined}
      value={String(props.value ?? "")}
      problem={props.problem}
      multiline={p.kind === "string" && p.maxLength > 200}
      onValue={props.onValue}
    />
  );
}

/** What let a run past the workspace's policy without asking, in a sentence. */
function preAuthorizationText(p: { endsAt: string; note: string | null; createdBy: { name: string } }): string {
  return `Let through without asking by a standing pre-authorization of ${p.createdBy.name}, until ${new Date(p.endsAt).toLocaleString()}${p.note ? `: “${p.note}”` : ""}`;
}
