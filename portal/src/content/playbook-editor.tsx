import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import { ifMatch } from "../etag";
import { Checkbox, Field, ProblemBanner, Select, SubmitForm, useAction } from "../ui";
import { type Workspace } from "../ui/workspace-select";
import { Catalogue, Playbook, PlaybookBody, EntityType, ActionKind, ENTITY_TYPES, ACTIONS, errorsUnder } from "./types";

export function PlaybookEditor(props: { workspace: Workspace; playbook: Playbook | undefined; catalogue: Catalogue; etag: string | undefined; onCancel(): void; onSaved(p: Playbook, created: boolean): Promise<void> }) {
  const { playbook } = props;
  const [id] = useState(() => playbook?.id ?? crypto.randomUUID());
  const [referenceId, setReferenceId] = useState(playbook?.referenceId ?? "");
  const [name, setName] = useState(playbook?.name ?? "");
  const [description, setDescription] = useState(playbook?.description ?? "");
  const [entityType, setEntityType] = useState<EntityType>(playbook?.entityType ?? "User");
  const [action, setAction] = useState<ActionKind>(playbook?.action ?? "automation");
  const [isAdminRequired, setAdminRequired] = useState(playbook?.isAdminRequired ?? false);
  const [isRecommended, setRecommended] = useState(playbook?.isRecommended ?? true);
  const [enabled, setEnabled] = useState(playbook?.enabled ?? true);
  const [recoverPlaybookId, setRecover] = useState(playbook?.recoverPlaybookId ?? "");
  const [parameters, setParameters] = useState(JSON.stringify(playbook?.parameters ?? [], null, 2));
  const [localProblem, setLocalProblem] = useState<Problem | undefined>(undefined);
  const headingId = useId();
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const save = useAction(async () => {
    let parsed: PlaybookBody["parameters"];
    try {
      parsed = JSON.parse(parameters || "[]") as PlaybookBody["parameters"];
    } catch (error) {
      const problem = { status: 0, code: "INVALID_JSON", detail: "The parameters are not valid JSON.", errors: { parameters: [error instanceof Error ? error.message : String(error)] } };
      setLocalProblem(problem);
      return;
    }
    setLocalProblem(undefined);
    const body: PlaybookBody = {
      referenceId,
      name,
      description,
      entityType,
      action: entityType === "Incident" ? action : "automation",
      isAdminRequired,
      isRecommended,
      enabled,
      recoverPlaybookId: recoverPlaybookId || null,
      parameters: parsed,
    };
    const result = await api.PUT("/api/v2/portal/workspaces/{workspaceId}/playbooks/{playbookId}", {
      params: { path: { workspaceId: props.workspace.id, playbookId: id }, header: csrf() },
      headers: ifMatch(props.etag),
      body,
    });
    const saved = await call(Promise.resolve(result));
    await props.onSaved(saved.data, result.response.status === 201);
  });
  const problem = localProblem ?? save.problem;
  const undoOptions = [
    { value: "", label: "Nothing: it cannot be undone" },
    ...props.catalogue.playbooks.filter((p) => p.id !== id && p.entityType === entityType).map((p) => ({ value: p.id, label: p.name })),
  ];
  return (
    <SubmitForm class="card editor" aria-labelledby={headingId} action={save}>
      <h3 id={headingId} tabIndex={-1} ref={ref}>
        {playbook ? `Edit ${playbook.name}` : "Add a playbook"}
      </h3>
      <ProblemBanner problem={problem} title="The playbook was not saved" />
      <div class="form-grid">
        <Field label="Name" name="name" value={name} onValue={setName} problem={problem} required maxLength={200} />
        <Field label="Reference id" name="referenceId" value={referenceId} onValue={setReferenceId} problem={problem} required maxLength={100} hint="The automation's own name for the action, e.g. reset-password." />
        <Select label="Acts on" name="entityType" value={entityType} options={ENTITY_TYPES} onValue={(v) => setEntityType(v as EntityType)} problem={problem} />
        {entityType === "Incident" && <Select label="Carried out by" name="action" value={action} options={ACTIONS} onValue={(v) => setAction(v as ActionKind)} problem={problem} />}
        <Select label="Undone by" name="recoverPlaybookId" value={recoverPlaybookId} options={undoOptions} onValue={setRecover} problem={problem} />
      </div>
      <Field label="Description" name="description" value={description} onValue={setDescription} problem={problem} maxLength={2000} multiline />
      <Checkbox label="Running it needs an administrator (can make a run wait for approval)" name="isAdminRequired" checked={isAdminRequired} onValue={setAdminRequired} />
      <Checkbox label="Recommended: offered first to analysts" name="isRecommended" checked={isRecommended} onValue={setRecommended} />
      <Checkbox label="Switched on (off keeps it out of runs and recommendations)" name="enabled" checked={enabled} onValue={setEnabled} />
      <Field
        label="Parameters (JSON)"
        name="parameters"
        value={parameters}
        onValue={setParameters}
        problem={errorsUnder(problem, "parameters")}
        multiline
        hint='A list, each with name, kind ("string", "enum", "boolean" or "integer"), description, required, and per kind maxLength, values, or min and max; optionally a default.'
      />
      <div class="buttons">
        <button type="submit" class="button" disabled={save.busy}>
          {save.busy ? "Saving…" : playbook ? "Save the playbook" : "Add the playbook"}
        </button>
        <button type="button" class="button button-secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </SubmitForm>
  );
}
