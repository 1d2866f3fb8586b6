import { useState } from "preact/hooks";
import { api, call, csrf, fieldError, type Problem } from "../api/client";
import { Checkbox, ProblemBanner, Select, useAction, useResource } from "../ui";
import { IncidentPath, Run, OfferedPlaybook, Parameter, RunBody, Preview } from "./run-types";
import { PreviewNotice, ParameterField } from "./run-form-fields";

export interface DraftStep {
  key: number;
  playbookId: string;
  entityId: string;
  /** As typed; turned into the parameter's kind when sent. */
  values: Record<string, string | boolean>;
}

let nextStepKey = 1;

export function stepFor(playbook: OfferedPlaybook): DraftStep {
  const values: Record<string, string | boolean> = {};
  for (const p of playbook.parameters) {
    if (p.default !== undefined) values[p.name] = typeof p.default === "boolean" ? p.default : String(p.default);
    // A required choice starts at its first value, as the list shows it.
    else if (p.kind === "enum" && p.required) values[p.name] = p.values[0] ?? "";
  }
  return { key: nextStepKey++, playbookId: playbook.id, entityId: playbook.entities[0]?.entityId ?? "", values };
}

export function valueOf(parameter: Parameter, typed: string | boolean | undefined): string | number | boolean | undefined {
  if (typed === undefined || typed === "") return undefined;
  if (parameter.kind === "boolean") return typed === true;
  if (parameter.kind === "integer") return Number(typed);
  return String(typed);
}

export function RunPlaybookForm(props: { path: IncidentPath; onDone(run: Run | undefined): Promise<void> }) {
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
