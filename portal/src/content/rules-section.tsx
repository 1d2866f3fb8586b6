import { useState } from "preact/hooks";
import { type Problem } from "../api/client";
import { Badge, DataTable, Empty, Notice, ProblemBanner, readThenClose, Time } from "../ui";
import { type Workspace } from "../ui/workspace-select";
import { Playbook, Rules, RuleInput } from "./types";
import { RulesEditor } from "./rules-editor";

export function RulesSection(props: {
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
          onDone={(changed) =>
            readThenClose(changed, props.onChanged, () => {
              setEditing(false);
              props.onDraft(undefined);
              if (changed) setSaved(true);
            })
          }
        />
      )}
      {rules && !editing && rules.rules.length === 0 && <Empty>No rule yet: no incident title is recommended a playbook.</Empty>}
      {rules && !editing && rules.rules.length > 0 && (
        <DataTable label={`Gamebook rules of ${props.workspace.name}`} columns={["#", "Title pattern", "Recommends, in order"]}>
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
        </DataTable>
      )}
    </section>
  );
}
