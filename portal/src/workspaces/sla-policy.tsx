import { useEffect, useState } from "preact/hooks";
import { api, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { ifMatch, withEtag } from "../etag";
import { Field, Notice, ProblemBanner, SaveProblem, SubmitButtons, SubmitForm, useAction, useResource } from "../ui";
import { duration } from "../incidents/sla";

type Policy = paths["/api/v2/portal/workspaces/{workspaceId}/sla-policy"]["get"]["responses"][200]["content"]["application/json"]["data"];
type Severity = keyof Policy["timeToResolveMinutes"];
type PolicyBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/sla-policy"]["put"]["requestBody"]>["content"]["application/json"];

const SEVERITIES: readonly Severity[] = ["High", "Medium", "Low", "Informational"];

/** Minutes as the form shows them: hours, empty for none. */
const asHours = (minutes: number | null) => (minutes === null ? "" : String(Math.round((minutes / 60) * 100) / 100));

/** Hours as typed, to minutes; empty is no target; what is no number goes as typed, for the service to say why. */
function asMinutes(hours: string): number | null | string {
  if (hours.trim() === "") return null;
  const value = Number(hours);
  return Number.isFinite(value) ? Math.round(value * 60) : hours;
}

/**
 * The workspace's SLA targets: time to resolve per severity, which each incident's SLA clock is
 * measured against (paused time left out). Everyone who sees the workspace reads them; a
 * WorkspaceAdmin changes them, with the version read (`If-Match`).
 */
export function SlaPolicySection(props: { workspaceId: string; canChange: boolean; onSaved(): void }) {
  const path = { workspaceId: props.workspaceId };
  const policy = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}/sla-policy", { params: { path } })).then((read) => ({ ...read, value: read.value.data })), [props.workspaceId]);
  const [draft, setDraft] = useState<Record<Severity, string> | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const fill = (p: Policy) => setDraft(Object.fromEntries(SEVERITIES.map((s) => [s, asHours(p.timeToResolveMinutes[s])])) as Record<Severity, string>);
  useEffect(() => {
    if (policy.value && !draft) fill(policy.value.value);
  }, [policy.value]);
  const save = useAction(async () => {
    setSaved(false);
    const body = { timeToResolveMinutes: Object.fromEntries(SEVERITIES.map((s) => [s, asMinutes(draft![s])])) } as PolicyBody;
    const result = await withEtag(api.PUT("/api/v2/portal/workspaces/{workspaceId}/sla-policy", { params: { path, header: csrf() }, body, headers: ifMatch(policy.value?.etag) }));
    policy.set({ value: result.value.data, etag: result.etag });
    fill(result.value.data);
    setSaved(true);
    props.onSaved();
  });
  const p = policy.value?.value;
  return (
    <section class="card form-card" aria-labelledby="sla-heading" data-sla-policy="true">
      <h2 id="sla-heading">SLA targets</h2>
      <p class="muted">How long an incident may take to resolve, by severity. Time on hold or waiting on the customer does not count.</p>
      <ProblemBanner problem={policy.problem} title="The SLA targets could not be read" />
      {p && !props.canChange && (
        <dl class="facts">
          {SEVERITIES.map((s) => (
            <div key={s}>
              <dt>{s}</dt>
              <dd>{p.timeToResolveMinutes[s] === null ? "No target" : duration(p.timeToResolveMinutes[s]! * 60)}</dd>
            </div>
          ))}
        </dl>
      )}
      {p && draft && props.canChange && (
        <SubmitForm action={save}>
          {saved && <Notice kind="success">The SLA targets are saved.</Notice>}
          <SaveProblem
            problem={save.problem}
            title="The SLA targets were not saved"
            onReload={async () => {
              await policy.reload();
              setSaved(false);
            }}
          />
          <div class="form-grid">
            {SEVERITIES.map((s) => (
              <Field
                key={s}
                label={`${s}: hours to resolve`}
                name={`timeToResolveMinutes.${s}`}
                type="number"
                value={draft[s]}
                onValue={(v) => setDraft({ ...draft, [s]: v })}
                problem={save.problem}
                hint="Empty: no target."
              />
            ))}
          </div>
          <SubmitButtons busy={save.busy} busyLabel="Saving…" label="Save SLA targets" />
        </SubmitForm>
      )}
    </section>
  );
}
