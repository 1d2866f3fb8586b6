import { type Problem } from "../api/client";
import { Checkbox, Field, Notice, Select, Time } from "../ui";
import { Parameter, Preview } from "./run-types";

export function PreviewNotice({ preview }: { preview: Preview }) {
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

export function ParameterField(props: { parameter: Parameter; name: string; value: string | boolean | undefined; problem: Problem | undefined; onValue(value: string | boolean): void }) {
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
export function preAuthorizationText(p: { endsAt: string; note: string | null; createdBy: { name: string } }): string {
  return `Let through without asking by a standing pre-authorization of ${p.createdBy.name}, until ${new Date(p.endsAt).toLocaleString()}${p.note ? `: “${p.note}”` : ""}`;
}
