import { useState } from "preact/hooks";
import { api, csrf } from "../api/client";
import { ifMatch, withEtag } from "../etag";
import { Field, SaveProblem, SubmitButtons, SubmitForm, useAction } from "../ui";
import { changedSourcesBody, sourcesDraft } from "./sources-draft";
import { SourcesEditor } from "./sources-editor";
import type { Workspace } from "./workspace-model";

/** A workspace's name and per-source settings, sent with the version read (a refused change offers to read again). */
export function SettingsForm(props: { workspace: Workspace; etag: string | undefined; onReload(): Promise<void>; onSaved(w: Workspace, etag: string | undefined): void }) {
  const w = props.workspace;
  const [name, setName] = useState(w.name);
  const [sources, setSources] = useState(sourcesDraft(w));
  const save = useAction(async () => {
    const body = { ...(name !== w.name || !changedSourcesBody(w, sources) ? { name } : {}), sources: changedSourcesBody(w, sources) };
    const saved = await withEtag(api.PATCH("/api/v2/portal/workspaces/{workspaceId}", { params: { path: { workspaceId: w.id }, header: csrf() }, body, headers: ifMatch(props.etag) }));
    props.onSaved(saved.value.data, saved.etag);
  });
  return (
    <section class="card form-card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Change settings</h2>
      <p class="muted">The name and the per-source settings. A change applies at once.</p>
      <SubmitForm action={save}>
        <SaveProblem problem={save.problem} title="The settings were not saved" onReload={props.onReload} />
        <Field label="Workspace name" name="name" value={name} onValue={setName} problem={save.problem} required autoComplete="off" />
        <SourcesEditor draft={sources} onDraft={setSources} problem={save.problem} />
        <SubmitButtons busy={save.busy} busyLabel="Saving…" label="Save settings" />
      </SubmitForm>
    </section>
  );
}
