import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { Confirmation, useConfirming } from "../confirmation";
import { ifMatch, withEtag } from "../etag";
import { hasRole, useMe } from "../session";
import { asProblem, Badge, Checkbox, Empty, Field, Notice, PageHeader, ProblemBanner, Select, TableScroll, Time, useAction, useResource } from "../ui";
import { useWorkspaceChoice, type Workspace } from "../ui/workspace-select";

type CataloguePath = paths["/api/v2/portal/workspaces/{workspaceId}/playbooks"];
type Catalogue = CataloguePath["get"]["responses"][200]["content"]["application/json"]["data"];
type Playbook = Catalogue["playbooks"][number];
type PlaybookBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/playbooks/{playbookId}"]["put"]["requestBody"]>["content"]["application/json"];
type ImportReport = paths["/api/v2/portal/workspaces/{workspaceId}/playbooks/import"]["post"]["responses"][200]["content"]["application/json"]["data"];
type Rules = paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-rules"]["get"]["responses"][200]["content"]["application/json"]["data"];
type RuleInput = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-rules"]["put"]["requestBody"]>["content"]["application/json"]["rules"][number];
type Preview = paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-rules/preview"]["post"]["responses"][200]["content"]["application/json"]["data"];
type EntityType = Playbook["entityType"];
type ActionKind = Playbook["action"];

const ENTITY_TYPES = ["User", "Host", "Ip", "Domain", "Url", "Mailbox", "File", "Process", "Incident"] as const satisfies readonly EntityType[];
const ACTIONS: { value: ActionKind; label: string }[] = [
  { value: "automation", label: "Automation backend" },
  { value: "incident.comment", label: "Comment on the incident" },
  { value: "incident.close", label: "Close the incident" },
];
const READERS = ["OrgContentOperator", "OrgContentAdmin"] as const;
const EDITORS = ["OrgContentAdmin"] as const;
/** How long the title preview waits for typing to pause before asking. */
const PREVIEW_DEBOUNCE_MS = 300;

/** The messages of every field of a problem under `prefix` (`parameters[0].name`, …), as one message for that prefix. */
function errorsUnder(problem: Problem | undefined, prefix: string): Problem | undefined {
  if (!problem?.errors) return problem;
  const lines = Object.entries(problem.errors)
    .filter(([key]) => key === prefix || key.startsWith(`${prefix}[`) || key.startsWith(`${prefix}.`))
    .map(([key, messages]) => (key === prefix ? messages.join(" ") : `${key.slice(prefix.length)}: ${messages.join(" ")}`));
  return lines.length ? { ...problem, errors: { ...problem.errors, [prefix]: lines } } : problem;
}

/**
 * The playbook catalogue of a workspace, its gamebook rules (incident title patterns and the
 * playbooks each recommends) and a preview of which playbooks an incident title is offered.
 * `OrgContentOperator` reads; `OrgContentAdmin` (and `Admin`) changes.
 */
export function ContentPage() {
  const me = useMe();
  const { workspace, picker } = useWorkspaceChoice();
  const mayRead = hasRole(me, READERS);
  const mayEdit = hasRole(me, EDITORS);
  return (
    <section>
      <PageHeader title="Playbooks & rules" />
      <p class="lead">A workspace's playbook catalogue, the gamebook rules that recommend its playbooks for incident titles, and which playbooks a title would be offered.</p>
      {!mayRead ? (
        <Notice>The playbook catalogue and the gamebook rules are for content operators and content administrators; your role is {me.organizationalRole}.</Notice>
      ) : (
        <>
          {picker}
          {workspace && <WorkspaceContent key={workspace.id} workspace={workspace} mayEdit={mayEdit} />}
        </>
      )}
    </section>
  );
}

function WorkspaceContent({ workspace, mayEdit }: { workspace: Workspace; mayEdit: boolean }) {
  const path = { workspaceId: workspace.id };
  const catalogue = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}/playbooks", { params: { path } })), [workspace.id]);
  const rules = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}/gamebook-rules", { params: { path } })), [workspace.id]);
  const [draft, setDraft] = useState<RuleInput[] | undefined>(undefined);
  const reloadBoth = async () => {
    await Promise.all([catalogue.reload(), rules.reload()]);
  };
  return (
    <>
      <CatalogueSection workspace={workspace} catalogue={catalogue.value?.value.data} etag={catalogue.value?.etag} problem={catalogue.problem} loading={catalogue.loading} mayEdit={mayEdit} onChanged={reloadBoth} />
      <RulesSection
        workspace={workspace}
        rules={rules.value?.value.data}
        etag={rules.value?.etag}
        problem={rules.problem}
        playbooks={catalogue.value?.value.data.playbooks ?? []}
        mayEdit={mayEdit}
        onChanged={reloadBoth}
        onDraft={setDraft}
      />
      <PreviewSection workspace={workspace} draft={draft} />
    </>
  );
}

// ---------------------------------------------------------------------------------------------
// The catalogue

function CatalogueSection(props: { workspace: Workspace; catalogue: Catalogue | undefined; etag: string | undefined; problem: Problem | undefined; loading: boolean; mayEdit: boolean; onChanged(): Promise<void> }) {
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
          onSaved={async (saved, created) => {
            setEditing(undefined);
            setNotice(`${saved.name} was ${created ? "added to the catalogue" : "saved"}.`);
            await props.onChanged();
          }}
        />
      )}
      {catalogue && catalogue.playbooks.length === 0 && <Empty>The catalogue has no playbook yet{mayEdit ? ": add one, or import the automation backend's" : ""}.</Empty>}
      {catalogue && catalogue.playbooks.length > 0 && (
        <TableScroll label={`Playbooks of ${workspace.name}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Playbook</th>
                <th scope="col">Acts on</th>
                <th scope="col">Carried out by</th>
                <th scope="col">Parameters</th>
                <th scope="col">Undone by</th>
                <th scope="col">Named by</th>
                {mayEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
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
                      {confirming.key === p.id ? (
                        <Confirmation
                          layout="inline"
                          question={`Remove ${p.name}?`}
                          confirmLabel="Yes, remove"
                          busyLabel="Removing…"
                          busy={remove.busy}
                          onConfirm={() => void remove.run(p)}
                          onCancel={confirming.cancel}
                        />
                      ) : (
                        <div class="buttons buttons-tight">
                          <button type="button" class="button button-secondary" onClick={() => setEditing({ playbook: p })} aria-label={`Edit ${p.name}`}>
                            Edit
                          </button>
                          <button type="button" class="button button-secondary" aria-label={`Remove ${p.name}`} {...confirming.opener(p.id)}>
                            Remove…
                          </button>
                        </div>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

function ParameterList({ parameters }: { parameters: Playbook["parameters"] }) {
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

function describeKind(p: Playbook["parameters"][number]): string {
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

function ImportSummary({ report, onDismiss }: { report: ImportReport; onDismiss(): void }) {
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

function PlaybookEditor(props: { workspace: Workspace; playbook: Playbook | undefined; catalogue: Catalogue; etag: string | undefined; onCancel(): void; onSaved(p: Playbook, created: boolean): Promise<void> }) {
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
    <form
      class="card editor"
      aria-labelledby={headingId}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
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
    </form>
  );
}

// ---------------------------------------------------------------------------------------------
// The gamebook rules

function RulesSection(props: {
  workspace: Workspace;
  rules: Rules | undefined;
  etag: string | undefined;
  problem: Problem | undefined;
  playbooks: Playbook[];
  mayEdit: boolean;
  onChanged(): Promise<void>;
  onDraft(rules: RuleInput[] | undefined): void;
}) {
  const { rules, mayEdit } = props;
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  return (
    <section class="content-section" aria-labelledby="rules-heading">
      <div class="card-header">
        <h2 id="rules-heading">Gamebook rules</h2>
        {mayEdit && !editing && (
          <button
            type="button"
            class="button"
            disabled={!rules}
            onClick={() => {
              setEditing(true);
              setSaved(false);
            }}
          >
            Edit the rules
          </button>
        )}
      </div>
      <p class="muted">
        A rule recommends its playbooks, in order, for every incident whose whole title matches its pattern (case-insensitively; <code>*</code> stands for any run of characters).
        An automation rule also runs them by itself when such an incident arrives: one run, on every entity of each playbook's kind, still subject to approval.
        Where several match, the most specific pattern (most literal characters) comes first.
        {rules && (
          <>
            {" "}
            Last changed <Time at={rules.updatedAt} />.
          </>
        )}
      </p>
      <ProblemBanner problem={props.problem} title="The rules could not be read" />
      {saved && <Notice kind="success">The rules were saved.</Notice>}
      {rules && editing && (
        <RulesEditor
          workspace={props.workspace}
          rules={rules}
          etag={props.etag}
          playbooks={props.playbooks}
          onDraft={props.onDraft}
          onDone={async (changed) => {
            setEditing(false);
            props.onDraft(undefined);
            if (changed) {
              setSaved(true);
              await props.onChanged();
            }
          }}
        />
      )}
      {rules && !editing && rules.rules.length === 0 && <Empty>No rule yet: no incident title is recommended a playbook.</Empty>}
      {rules && !editing && rules.rules.length > 0 && (
        <TableScroll label={`Gamebook rules of ${props.workspace.name}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Title pattern</th>
                <th scope="col">Recommends, in order</th>
              </tr>
            </thead>
            <tbody>
              {rules.rules.map((r, i) => (
                <tr key={r.pattern}>
                  <td>{i + 1}</td>
                  <th scope="row">
                    <code>{r.pattern}</code>
                    {r.autoRun && (
                      <>
                        {" "}
                        <Badge tone="warn">Runs by itself</Badge>
                      </>
                    )}
                  </th>
                  <td>
                    <ol class="compact">
                      {r.playbooks.map((p) => (
                        <li key={p.id}>
                          {p.name ?? <code>{p.id}</code>} {p.entityType && <span class="muted">({p.entityType})</span>}{" "}
                          {!p.enabled && <Badge tone="bad">{p.name ? "Switched off" : "Not in the catalogue"}</Badge>}
                        </li>
                      ))}
                    </ol>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

interface DraftRule {
  key: number;
  pattern: string;
  playbookIds: string[];
  autoRun: boolean;
}

let nextKey = 1;

function RulesEditor(props: { workspace: Workspace; rules: Rules; etag: string | undefined; playbooks: Playbook[]; onDraft(rules: RuleInput[] | undefined): void; onDone(changed: boolean): Promise<void> }) {
  const [draft, setDraft] = useState<DraftRule[]>(() => props.rules.rules.map((r) => ({ key: nextKey++, pattern: r.pattern, playbookIds: [...r.playbookIds], autoRun: r.autoRun })));
  const [status, setStatus] = useState("");
  const names = new Map(props.playbooks.map((p) => [p.id, p]));
  const asInput = (list: DraftRule[]): RuleInput[] => list.map((r) => ({ pattern: r.pattern, playbookIds: r.playbookIds, autoRun: r.autoRun }));
  const update = (next: DraftRule[], said?: string) => {
    setDraft(next);
    props.onDraft(asInput(next));
    if (said) setStatus(said);
  };
  const save = useAction(async () => {
    await call(
      api.PUT("/api/v2/portal/workspaces/{workspaceId}/gamebook-rules", {
        params: { path: { workspaceId: props.workspace.id }, header: csrf() },
        headers: ifMatch(props.etag),
        body: { rules: asInput(draft) },
      }),
    );
    await props.onDone(true);
  });
  const move = (from: number, to: number) => {
    if (to < 0 || to >= draft.length) return;
    const next = [...draft];
    const [rule] = next.splice(from, 1);
    next.splice(to, 0, rule!);
    update(next, `Rule moved to place ${to + 1} of ${next.length}.`);
  };
  return (
    <form
      class="rules-editor"
      aria-label="Edit the gamebook rules"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <ProblemBanner problem={save.problem} title="The rules were not saved" />
      {save.problem?.status === 409 && <p>Someone changed the catalogue or the rules since you opened them: cancel to see their version, then make your change again.</p>}
      <p class="visually-hidden" aria-live="polite">
        {status}
      </p>
      <ol class="cards">
        {draft.map((rule, i) => (
          <li key={rule.key}>
            <fieldset class="card rule">
              <legend>Rule {i + 1}</legend>
              <Field
                label="Title pattern"
                name={`rules[${i}].pattern`}
                value={rule.pattern}
                maxLength={500}
                required
                problem={save.problem}
                onValue={(v) => update(draft.map((r) => (r.key === rule.key ? { ...r, pattern: v } : r)))}
              />
              <RulePlaybooks
                index={i}
                rule={rule}
                names={names}
                playbooks={props.playbooks}
                problem={save.problem}
                onChange={(ids, said) => update(draft.map((r) => (r.key === rule.key ? { ...r, playbookIds: ids } : r)), said)}
              />
              <Checkbox
                label="Automation rule: run these playbooks by themselves on every new incident whose title matches (still subject to approval)"
                name={`rules[${i}].autoRun`}
                checked={rule.autoRun}
                problem={save.problem}
                onValue={(v) => update(draft.map((r) => (r.key === rule.key ? { ...r, autoRun: v } : r)))}
              />
              <div class="buttons buttons-tight">
                <button type="button" class="button button-secondary" disabled={i === 0} onClick={() => move(i, i - 1)} aria-label={`Move rule ${i + 1} up`}>
                  Move up
                </button>
                <button type="button" class="button button-secondary" disabled={i === draft.length - 1} onClick={() => move(i, i + 1)} aria-label={`Move rule ${i + 1} down`}>
                  Move down
                </button>
                <button type="button" class="button button-secondary" onClick={() => update(draft.filter((r) => r.key !== rule.key), `Rule ${i + 1} removed.`)} aria-label={`Remove rule ${i + 1}`}>
                  Remove the rule
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <div class="buttons">
        <button type="button" class="button button-secondary" onClick={() => update([...draft, { key: nextKey++, pattern: "", playbookIds: [], autoRun: false }], `Rule ${draft.length + 1} added.`)}>
          Add a rule
        </button>
        <button type="submit" class="button" disabled={save.busy}>
          {save.busy ? "Saving…" : "Save the rules"}
        </button>
        <button type="button" class="button button-secondary" onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
      <p class="hint">Until they are saved, the preview below tries these rules.</p>
    </form>
  );
}

function RulePlaybooks(props: { index: number; rule: DraftRule; names: Map<string, Playbook>; playbooks: Playbook[]; problem: Problem | undefined; onChange(ids: string[], said: string): void }) {
  const { index, rule } = props;
  const available = props.playbooks.filter((p) => !rule.playbookIds.includes(p.id));
  const [adding, setAdding] = useState("");
  const choice = available.some((p) => p.id === adding) ? adding : (available[0]?.id ?? "");
  const prefix = `rules[${index}].playbookIds`;
  const errors = errorsUnder(props.problem, prefix)?.errors?.[prefix];
  const ids = rule.playbookIds;
  const nameOf = (id: string) => props.names.get(id)?.name ?? id;
  const swap = (i: number, j: number) => {
    const next = [...ids];
    [next[i], next[j]] = [next[j]!, next[i]!];
    props.onChange(next, `${nameOf(ids[i]!)} moved to place ${j + 1}.`);
  };
  return (
    <div class="rule-playbooks">
      <p class="label">Recommends, in order</p>
      {ids.length === 0 && <p class="muted">No playbook yet: a rule needs at least one.</p>}
      <ol class="compact">
        {ids.map((id, i) => (
          <li key={id}>
            <span>
              {nameOf(id)} {props.names.get(id) && <span class="muted">({props.names.get(id)!.entityType})</span>}
            </span>
            <span class="buttons buttons-tight">
              <button type="button" class="button button-secondary button-small" disabled={i === 0} onClick={() => swap(i, i - 1)} aria-label={`Move ${nameOf(id)} up in rule ${index + 1}`}>
                ↑
              </button>
              <button type="button" class="button button-secondary button-small" disabled={i === ids.length - 1} onClick={() => swap(i, i + 1)} aria-label={`Move ${nameOf(id)} down in rule ${index + 1}`}>
                ↓
              </button>
              <button type="button" class="button button-secondary button-small" onClick={() => props.onChange(ids.filter((x) => x !== id), `${nameOf(id)} removed from rule ${index + 1}.`)} aria-label={`Remove ${nameOf(id)} from rule ${index + 1}`}>
                Remove
              </button>
            </span>
          </li>
        ))}
      </ol>
      {errors && (
        <p class="field-error" role="alert">
          {errors.join(" ")}
        </p>
      )}
      {available.length > 0 && (
        <div class="filters">
          <Select label={`Add a playbook to rule ${index + 1}`} name={`rule-${index}-add`} value={choice} options={available.map((p) => ({ value: p.id, label: `${p.name} (${p.entityType})` }))} onValue={setAdding} />
          <button type="button" class="button button-secondary add-button" disabled={!choice} onClick={() => props.onChange([...ids, choice], `${nameOf(choice)} added to rule ${index + 1}.`)}>
            Add
          </button>
        </div>
      )}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// The preview

function PreviewSection({ workspace, draft }: { workspace: Workspace; draft: RuleInput[] | undefined }) {
  const [title, setTitle] = useState("");
  const [preview, setPreview] = useState<Preview | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    if (!title.trim()) {
      setPreview(undefined);
      setProblem(undefined);
      setBusy(false);
      return;
    }
    setBusy(true);
    const timer = setTimeout(() => {
      call(
        api.POST("/api/v2/portal/workspaces/{workspaceId}/gamebook-rules/preview", {
          params: { path: { workspaceId: workspace.id }, header: csrf() },
          body: draft ? { title, rules: draft } : { title },
        }),
      )
        .then((answer) => {
          if (mine !== generation.current) return;
          setPreview(answer.data);
          setProblem(undefined);
        })
        .catch((error: unknown) => {
          if (mine !== generation.current) return;
          setPreview(undefined);
          setProblem(asProblem(error));
        })
        .finally(() => {
          if (mine === generation.current) setBusy(false);
        });
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [title, draft, workspace.id]);

  const matched = preview && (preview.recommendations.length > 0 || preview.skipped.length > 0);
  const rulesMatched = preview ? [...new Map([...preview.recommendations, ...preview.skipped].map((x) => [x.because.ruleIndex, x.because])).values()] : [];
  let summary = "";
  if (busy) summary = "Looking for matching rules…";
  else if (preview && !matched) summary = "No rule matches this title.";
  else if (preview) summary = `${rulesMatched.length} rule(s) match; ${preview.recommendations.length} playbook(s) recommended.`;
  return (
    <section class="content-section" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Which playbooks match this title</h2>
      <Field
        label="Incident title"
        name="title"
        type="search"
        value={title}
        onValue={setTitle}
        maxLength={1000}
        autoComplete="off"
        problem={problem}
        hint={draft ? "Tried against your unsaved rules above." : "Tried against the saved rules, as a run on such an incident would be."}
      />
      <p aria-live="polite" class={preview && !matched ? "empty" : "muted"} data-preview-summary>
        {summary}
      </p>
      <ProblemBanner problem={problem} title="The preview did not run" />
      {preview && matched && (
        <>
          <h3>Matching rules</h3>
          <ul class="plain">
            {rulesMatched.map((b) => (
              <li key={b.ruleIndex}>
                Rule {b.ruleIndex + 1}: <code>{b.pattern}</code>
                {b.wildcards.length > 0 && <span class="muted"> · * covered {b.wildcards.map((w) => `“${w}”`).join(", ")}</span>}
                <span class="muted"> · specificity {b.specificity}</span>
              </li>
            ))}
          </ul>
          {preview.recommendations.length > 0 && (
            <TableScroll label="Recommended playbooks">
              <table>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Playbook</th>
                    <th scope="col">Acts on</th>
                    <th scope="col">Admin required</th>
                    <th scope="col">Because of</th>
                  </tr>
                </thead>
                <tbody>
                  {preview.recommendations.map((r, i) => (
                    <tr key={r.playbookId}>
                      <td>{i + 1}</td>
                      <th scope="row">{r.playbookName}</th>
                      <td>{r.entityType}</td>
                      <td>{r.isAdminRequired ? <Badge tone="warn">Yes</Badge> : "No"}</td>
                      <td>
                        Rule {r.because.ruleIndex + 1}: <code>{r.because.pattern}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
          {preview.skipped.length > 0 && (
            <>
              <h3>Matched but not offered</h3>
              <ul>
                {preview.skipped.map((s) => (
                  <li key={`${s.because.ruleIndex}-${s.playbookId}`}>
                    <code>{s.playbookId}</code> of rule {s.because.ruleIndex + 1}: {s.reason === "SwitchedOff" ? "switched off" : "no longer in the catalogue"}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
