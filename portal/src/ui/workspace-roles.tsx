import { useRef, useState } from "preact/hooks";
import { fieldError, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { Select } from "./";

type PersonBody = NonNullable<paths["/api/v2/portal/people/{userId}"]["put"]["requestBody"]>["content"]["application/json"];
export type WorkspaceRole = NonNullable<PersonBody["workspaceRoles"]>[number]["role"];

/** A role on one workspace, as people and service accounts hold them. */
export interface WorkspaceRoleEntry {
  workspaceId: string;
  role: WorkspaceRole;
}

/** An entry as a form edits it: `key` keeps each row's fields in place when one above is removed. */
export interface WorkspaceRoleRow extends WorkspaceRoleEntry {
  key: number;
}

const WORKSPACE_ROLES: readonly WorkspaceRole[] = ["Owner", "Analyst"];

/** The rows of a form's workspace roles, from the ones held; `entries` is what the form sends. */
export function useWorkspaceRoleRows(held: readonly WorkspaceRoleEntry[] = []) {
  const keys = useRef(0);
  const [rows, setRows] = useState<WorkspaceRoleRow[]>(() => held.map((r) => ({ key: keys.current++, workspaceId: r.workspaceId, role: r.role })));
  return {
    rows,
    setRows,
    newRow: (): WorkspaceRoleRow => ({ key: keys.current++, workspaceId: "", role: "Analyst" }),
    entries: (): WorkspaceRoleEntry[] => rows.map((r) => ({ workspaceId: r.workspaceId, role: r.role })),
  };
}

/**
 * The workspace roles of a person or service account, each a workspace and a role, under `field`
 * (`workspaceRoles`, `workspaceAssignments`) as the server names them in its problems. `words` are
 * the form's own: its legend and hint, what it says of none, and the remove and add buttons.
 */
export function WorkspaceRolesEditor(props: {
  field: string;
  rows: ReturnType<typeof useWorkspaceRoleRows>;
  workspaces: readonly { id: string; name: string }[];
  problem: Problem | undefined;
  words: { legend: string; hint: string; none: string; remove: string; add: string };
}) {
  const { field, words, problem } = props;
  const { rows, setRows, newRow } = props.rows;
  const error = fieldError(problem, field);
  // The workspaces a role can name: known ones, and any held that the reader cannot see.
  const options = [
    { value: "", label: "Choose a workspace" },
    ...props.workspaces.map((w) => ({ value: w.id, label: w.name })),
    ...rows.filter((r) => r.workspaceId && !props.workspaces.some((w) => w.id === r.workspaceId)).map((r) => ({ value: r.workspaceId, label: r.workspaceId })),
  ];
  const set = (key: number, change: Partial<WorkspaceRoleEntry>) => setRows(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  return (
    <fieldset>
      <legend>{words.legend}</legend>
      <p class="hint">{words.hint}</p>
      {error && <p class="field-error">{error}</p>}
      {rows.length === 0 && <p class="muted">{words.none}</p>}
      <ol class="assignments">
        {rows.map((r, i) => (
          <li key={r.key} class="assignment">
            <Select label={`Workspace ${i + 1}`} name={`${field}[${i}].workspaceId`} value={r.workspaceId} onValue={(workspaceId) => set(r.key, { workspaceId })} problem={problem} options={options} />
            <Select label={`Role on workspace ${i + 1}`} name={`${field}[${i}].role`} value={r.role} onValue={(role) => set(r.key, { role: role as WorkspaceRole })} problem={problem} options={WORKSPACE_ROLES} />
            <button type="button" class="button button-secondary" onClick={() => setRows(rows.filter((x) => x.key !== r.key))}>
              {words.remove} {i + 1}
            </button>
          </li>
        ))}
      </ol>
      <button type="button" class="button button-secondary" onClick={() => setRows([...rows, newRow()])}>
        {words.add}
      </button>
    </fieldset>
  );
}

/** The roles held, as a list cell reads them ("Owner of contoso-prod"); "None" when there is none. */
export function WorkspaceRoleList(props: { roles: readonly { workspaceId: string; role: string; workspaceName: string }[] }) {
  if (props.roles.length === 0) return <span class="muted">None</span>;
  return (
    <ul class="plain">
      {props.roles.map((r) => (
        <li key={r.workspaceId}>
          {r.role} of {r.workspaceName}
        </li>
      ))}
    </ul>
  );
}
