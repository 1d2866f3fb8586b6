import { useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import { RowActions, useConfirming } from "../confirmation";
import { ifMatch } from "../etag";
import { Badge, DataTable, Empty, Notice, ProblemBanner, Time, readThenClose, useAction } from "../ui";
import { type Workspace } from "../ui/workspace-select";
import { Catalogue, Playbook, ImportReport, ACTIONS } from "./types";
import { PlaybookEditor } from "./playbook-editor";

export function CatalogueSection(props: { workspace: Workspace; catalogue: Catalogue | undefined; etag: string | undefined; problem: Problem | undefined; loading: boolean; mayEdit: boolean; onChanged(): Promise<void> }) {
  const { workspace, catalogue, mayEdit } = props;
  const [editing, setEditing] = useState<{ playbook: Playbook | undefined } | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [report, setReport] = useState<ImportReport | undefined>(undefined);
  const path = { workspaceId: workspace.id };
  const remove = useAction(async (playbook: Playbook) => {
    await call(api.DELETE("/api/v2/portal/workspaces/{workspaceId}/playbooks/{playbookId}", { params: { path: { ...path, playbookId: playbook.id }, header: csrf() }, headers: ifMatch(props.etag) }));
    await props.onChanged();
    confirming.close();
    setNotice(`${playbook.name} was removed from the catalogue.`);
  });
  const confirming = useConfirming(remove);
  const runImport = useAction(async () => {
    setReport((await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/playbooks/import", { params: { path, header: csrf() }, headers: ifMatch(props.etag) }))).data);
    setNotice(undefined);
    await props.onChanged();
  });
  const names = new Map(catalogue?.playbooks.map((p) => [p.id, p.name]));
  return (
    <section class="content-section" aria-labelledby="catalogue-heading">
      <div class="card-header">
        <h2 id="catalogue-heading">Playbook catalogue</h2>
        {mayEdit && (
          <div class="buttons">
            <button type="button" class="button" onClick={() => setEditing({ playbook: undefined })} disabled={!catalogue}>
              Add a playbook
            </button>
            <button type="button" class="button button-secondary" onClick={() => void runImport.run()} disabled={runImport.busy || !catalogue}>
              {runImport.busy ? "Importing…" : "Import from the automation backend"}
            </button>
          </div>
        )}
      </div>
      <p class="muted">
        {catalogue ? (
          <>
            {catalogue.playbooks.length} playbook(s), by name. Last changed <Time at={catalogue.updatedAt} />.
          </>
        ) : props.loading ? (
          "Loading the catalogue…"
        ) : (
          ""
        )}
      </p>
      <ProblemBanner problem={props.problem} title="The catalogue could not be read" />
      <ProblemBanner problem={runImport.problem} title="The import did not run" />
      <ProblemBanner problem={remove.problem} title="The playbook was not removed" />
      {notice && <Notice kind="success">{notice}</Notice>}
      {report && <ImportSummary report={report} onDismiss={() => setReport(undefined)} />}
      {editing && catalogue && (
        <PlaybookEditor
          workspace={workspace}
          playbook={editing.playbook}
          catalogue={catalogue}
          etag={props.etag}
          onCancel={() => setEditing(undefined)}
          onSaved={(saved, created) =>
            readThenClose(true, props.onChanged, () => {
              setEditing(undefined);
              setNotice(`${saved.name} was ${created ? "added to the catalogue" : "saved"}.`);
            })
          }
        />
      )}
      {catalogue && catalogue.playbooks.length === 0 && <Empty>The catalogue has no playbook yet{mayEdit ? ": add one, or import the automation backend's" : ""}.</Empty>}
      {catalogue && catalogue.playbooks.length > 0 && (
        <DataTable label={`Playbooks of ${workspace.name}`} columns={["Playbook", "Acts on", "Carried out by", "Parameters", "Undone by", "Named by", mayEdit && "Actions"]}>
          {catalogue.playbooks.map((p) => (
            <tr key={p.id} data-playbook-id={p.id}>
              <th scope="row" class="cell-main">
                <strong>{p.name}</strong> {p.isAdminRequired && <Badge tone="warn">Admin required</Badge>} {!p.enabled && <Badge tone="bad">Switched off</Badge>}{" "}
                {!p.isRecommended && <Badge>Not recommended</Badge>}
                <div class="muted">
                  <code>{p.referenceId}</code> {p.description}
                </div>
              </th>
              <td>{p.entityType}</td>
              <td>{ACTIONS.find((a) => a.value === p.action)?.label ?? p.action}</td>
              <td>
                <ParameterList parameters={p.parameters} />
              </td>
              <td>{p.recoverPlaybookId ? (names.get(p.recoverPlaybookId) ?? <code>{p.recoverPlaybookId}</code>) : <span class="muted">—</span>}</td>
              <td>
                {p.usage.rules} rule(s), {p.usage.gamebooks} gamebook(s)
              </td>
              {mayEdit && (
                <td>
                  <RowActions
                    asking={confirming.key === p.id}
                    question={`Remove ${p.name}?`}
                    confirmLabel="Yes, remove"
                    busyLabel="Removing…"
                    busy={remove.busy}
                    onConfirm={() => void remove.run(p)}
                    onCancel={confirming.cancel}
                  >
                    <button type="button" class="button button-secondary" onClick={() => setEditing({ playbook: p })} aria-label={`Edit ${p.name}`}>
                      Edit
                    </button>
                    <button type="button" class="button button-secondary" aria-label={`Remove ${p.name}`} {...confirming.opener(p.id)}>
                      Remove…
                    </button>
                  </RowActions>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

export function ParameterList({ parameters }: { parameters: Playbook["parameters"] }) {
  if (parameters.length === 0) return <span class="muted">None</span>;
  return (
    <ul class="plain">
      {parameters.map((x) => (
        <li key={x.name}>
          <code>{x.name}</code> <span class="muted">{describeKind(x)}</span>
          {x.required && <Badge>required</Badge>}
          {x.description && <div class="muted">{x.description}</div>}
        </li>
      ))}
    </ul>
  );
}

export function describeKind(p: Playbook["parameters"][number]): string {
  switch (p.kind) {
    case "string":
      return `text, up to ${p.maxLength ?? 4000} characters`;
    case "enum":
      return `one of ${p.values.join(", ")}`;
    case "boolean":
      return "yes or no";
    case "integer":
      return `whole number ${p.min} to ${p.max}`;
    default:
      return "";
  }
}

export function ImportSummary({ report, onDismiss }: { report: ImportReport; onDismiss(): void }) {
  const list = (items: { name: string }[]) => items.map((p) => p.name).join(", ");
  return (
    <div class="banner banner-success" role="status">
      <strong>
        Imported: {report.added.length} added, {report.updated.length} updated, {report.unchanged.length} unchanged.
      </strong>
      {report.added.length > 0 && <p>Added (switched on): {list(report.added)}.</p>}
      {report.updated.length > 0 && <p>Updated: {report.updated.map((p) => `${p.name} (${p.changed.join(", ")})`).join("; ")}.</p>}
      {report.notOffered.length > 0 && <p>No longer offered by the backend, left as they are: {list(report.notOffered)}.</p>}
      <button type="button" class="button button-link" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
