import { useEffect, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { Badge, Checkbox, Notice, ProblemBanner, SubmitButtons, SubmitForm, useAction, useResource } from "../ui";

type Integrations = paths["/api/v2/portal/workspaces/{workspaceId}/integrations"]["get"]["responses"][200]["content"]["application/json"]["data"];
type IntegrationName = keyof Integrations;
type IntegrationsBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/integrations"]["put"]["requestBody"]>["content"]["application/json"];

const INTEGRATIONS: readonly { name: IntegrationName; label: string; hint: string }[] = [
  { name: "ticketing", label: "Ticketing", hint: "Tickets in the ITSM for the workspace's incidents." },
  { name: "directoryLogs", label: "Directory logs", hint: "Sign-in and audit logs of the directory." },
  { name: "logAnalytics", label: "Log Analytics", hint: "Queries of the workspace's Log Analytics." },
  { name: "playbookAutomation", label: "Playbook automation", hint: "Off: the automation steps of runs fail; the incident's own steps still run." },
];

/** A workspace's integration switches, and whether each is in effect (and if not, why). */
export function IntegrationsSection(props: { workspaceId: string; canChange: boolean }) {
  const path = { workspaceId: props.workspaceId };
  const integrations = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/integrations", { params: { path } }))).data, [props.workspaceId]);
  const [draft, setDraft] = useState<Record<IntegrationName, boolean> | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    const v = integrations.value;
    if (v) setDraft(Object.fromEntries(INTEGRATIONS.map((i) => [i.name, v[i.name].switchedOn])) as Record<IntegrationName, boolean>);
  }, [integrations.value]);
  const save = useAction(async () => {
    setSaved(false);
    const body = draft as IntegrationsBody;
    integrations.set((await call(api.PUT("/api/v2/portal/workspaces/{workspaceId}/integrations", { params: { path, header: csrf() }, body }))).data);
    setSaved(true);
  });
  const v = integrations.value;
  return (
    <section class="card form-card" aria-labelledby="integrations-heading">
      <h2 id="integrations-heading">Integrations</h2>
      <p class="muted">An integration is in effect when its switch is on and the deployment has the system for the workspace.</p>
      <ProblemBanner problem={integrations.problem} title="The integrations could not be read" />
      {v && draft && (
        <SubmitForm action={save}>
          {saved && <Notice kind="success">The integrations are saved.</Notice>}
          <ProblemBanner problem={save.problem} title="The integrations were not saved" />
          <ul class="plain integration-list">
            {INTEGRATIONS.map((i) => (
              <li key={i.name}>
                <div class="integration">
                  {props.canChange ? (
                    <Checkbox label={i.label} name={i.name} checked={draft[i.name]} onValue={(on) => setDraft({ ...draft, [i.name]: on })} />
                  ) : (
                    <strong>
                      {i.label}: {v[i.name].switchedOn ? "on" : "off"}
                    </strong>
                  )}
                  {v[i.name].inEffect ? <Badge tone="ok">In effect</Badge> : <Badge tone={v[i.name].switchedOn ? "warn" : "neutral"}>Not in effect</Badge>}
                </div>
                {v[i.name].switchedOn && v[i.name].notInEffect && (
                  <p class="hint" data-not-in-effect={i.name}>
                    {v[i.name].notInEffect}
                  </p>
                )}
                <p class="hint">{i.hint}</p>
              </li>
            ))}
          </ul>
          {props.canChange && (
            <SubmitButtons busy={save.busy} busyLabel="Saving…" label="Save integrations" />
          )}
        </SubmitForm>
      )}
    </section>
  );
}
