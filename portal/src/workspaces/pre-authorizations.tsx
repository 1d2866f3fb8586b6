import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { Badge, Checkbox, DataTable, Field, Notice, ProblemBanner, SubmitButtons, SubmitForm, Time, useAction, useResource } from "../ui";

type ListPath = paths["/api/v2/portal/workspaces/{workspaceId}/pre-authorizations"];
type PreAuthorization = ListPath["get"]["responses"][200]["content"]["application/json"]["data"][number];
type CreateBody = NonNullable<ListPath["post"]["requestBody"]>["content"]["application/json"];

const stateTone = (state: PreAuthorization["state"]) => (state === "Active" ? "ok" : "neutral");

/** The form's local date and time (YYYY-MM-DDTHH:MM, the person's own time zone) as an instant; as typed when it is none, for the service to say why. */
function instantOf(local: string): string {
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? local : at.toISOString();
}

/**
 * The workspace's standing pre-authorizations: playbooks its own organization lets run without
 * asking until a date (the workspace's own approval policy waived for them; a managing provider's
 * partner setting still applies). Everyone who sees the workspace reads them; the workspace's own
 * organization records and revokes them (its Owner of the workspace, or its Admin).
 */
export function PreAuthorizationsSection(props: { workspaceId: string; canChange: boolean }) {
  const path = { workspaceId: props.workspaceId };
  const list = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/pre-authorizations", { params: { path } }))).data, [props.workspaceId]);
  const catalogue = useResource(
    async () => (props.canChange ? (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/pre-authorizable-playbooks", { params: { path } }))).data : []),
    [props.workspaceId, props.canChange],
  );
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [endsOn, setEndsOn] = useState("");
  const [note, setNote] = useState("");
  const [done, setDone] = useState<string | undefined>(undefined);
  const record = useAction(async () => {
    setDone(undefined);
    const body: CreateBody = { playbookIds: [...chosen], endsAt: instantOf(endsOn), ...(note.trim() ? { note } : {}) };
    const made = (await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/pre-authorizations", { params: { path, header: csrf() }, body }))).data;
    setChosen(new Set());
    setEndsOn("");
    setNote("");
    setDone(`Recorded: ${made.playbooks.map((p) => p.name).join(", ")} run without asking until ${new Date(made.endsAt).toLocaleString()}.`);
    await list.reload();
  });
  const revoke = useAction(async (id: string) => {
    setDone(undefined);
    await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/pre-authorizations/{preAuthorizationId}/revoke", { params: { path: { ...path, preAuthorizationId: id }, header: csrf() } }));
    setDone("Revoked: those runs ask for approval again from now on.");
    await list.reload();
  });
  const items = list.value ?? [];
  return (
    <section class="card form-card" aria-labelledby="pre-authorizations-heading" data-pre-authorizations="">
      <h2 id="pre-authorizations-heading">Standing pre-authorizations</h2>
      <p class="muted">Playbooks that run on this workspace without asking, until a date. The managing provider's own approval setting still applies.</p>
      <ProblemBanner problem={list.problem} title="The pre-authorizations could not be read" />
      {done && <Notice kind="success">{done}</Notice>}
      <ProblemBanner problem={revoke.problem} title="The pre-authorization was not revoked" />
      {items.length === 0 && !list.loading && <p class="muted">None recorded.</p>}
      {items.length > 0 && (
        <DataTable label="Standing pre-authorizations" columns={["Playbooks", "Until", "State", "Recorded by", props.canChange && "Action"]}>
          {items.map((p) => (
            <tr key={p.id} data-pre-authorization-id={p.id} data-state={p.state}>
              <td>
                {p.playbooks.map((b) => b.name).join(", ")}
                {p.note && <div class="muted">{p.note}</div>}
              </td>
              <td>
                <Time at={p.endsAt} />
              </td>
              <td>
                <Badge tone={stateTone(p.state)}>{p.state}</Badge>
              </td>
              <td>
                {p.created.byName}, <Time at={p.created.at} />
              </td>
              {props.canChange && (
                <td>
                  {p.state === "Active" && (
                    <button type="button" class="button button-secondary" disabled={revoke.busy} onClick={() => void revoke.run(p.id)}>
                      Revoke
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {props.canChange && (
        <SubmitForm id="record-pre-authorization" action={record}>
          <ProblemBanner problem={record.problem} title="The pre-authorization was not recorded" />
          <fieldset>
            <legend>Playbooks that may run without asking</legend>
            {(catalogue.value ?? []).map((p) => (
              <Checkbox
                key={p.id}
                label={p.isAdminRequired ? `${p.name} (needs an administrator)` : p.name}
                name={`playbook-${p.id}`}
                checked={chosen.has(p.id)}
                onValue={(on) => {
                  const next = new Set(chosen);
                  if (on) next.add(p.id);
                  else next.delete(p.id);
                  setChosen(next);
                }}
              />
            ))}
          </fieldset>
          <Field label="Until (your local time)" name="endsAt" type="datetime-local" value={endsOn} onValue={setEndsOn} problem={record.problem} required />
          <Field label="Why (shown on the runs it lets through)" name="note" value={note} onValue={setNote} problem={record.problem} autoComplete="off" />
          <SubmitButtons busy={record.busy} busyLabel="Recording…" label="Record pre-authorization" disabled={chosen.size === 0} />
        </SubmitForm>
      )}
    </section>
  );
}
