import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { ifMatch, withEtag } from "../etag";
import { DeleteZone } from "../confirmation";
import { setFlash } from "../flash";
import { BASE, navigate } from "../router";
import type { OrganizationalRole } from "../session";
import { Checkbox, Field, SaveProblem, Select, SubmitButtons, SubmitForm, useAction } from "../ui";
import { useWorkspaceRoleRows, WorkspaceRolesEditor } from "../ui/workspace-roles";
import { ServiceAccount, UpdateBody } from "./model";
import { ASSIGNMENT_WORDS, grantableRoles, useWorkspaces } from "./account-fields";

export function ChangeForm(props: { sa: ServiceAccount; etag: string | undefined; myRole: string; onReload(): Promise<void>; onSaved(sa: ServiceAccount, etag: string | undefined): void }) {
  const { sa } = props;
  const workspaces = useWorkspaces();
  const [name, setName] = useState(sa.name);
  const [description, setDescription] = useState(sa.description);
  const [role, setRole] = useState<OrganizationalRole>(sa.organizationalRole);
  const [isActive, setIsActive] = useState(sa.isActive);
  const assignments = useWorkspaceRoleRows(sa.workspaceAssignments);
  const save = useAction(async () => {
    const body: UpdateBody = {
      name,
      description,
      organizationalRole: role,
      workspaceAssignments: assignments.entries(),
      isActive,
    };
    const saved = await withEtag(api.PATCH("/api/v2/portal/service-accounts/{id}", { params: { path: { id: sa.id }, header: csrf() }, body, headers: ifMatch(props.etag) }));
    props.onSaved(saved.value.data, saved.etag);
  });
  return (
    <section class="card form-card" aria-labelledby="change-heading">
      <h2 id="change-heading">Change the account</h2>
      <SubmitForm class="change-service-account" action={save}>
        <SaveProblem problem={save.problem} title="The service account was not saved" onReload={props.onReload} />
        <Field label="Name" name="name" value={name} onValue={setName} problem={save.problem} required maxLength={128} autoComplete="off" />
        <Field label="Description" name="description" value={description} onValue={setDescription} problem={save.problem} maxLength={1024} multiline />
        <Select label="Organizational role" name="organizationalRole" value={role} onValue={(r) => setRole(r as OrganizationalRole)} problem={save.problem} options={grantableRoles(props.myRole, sa.organizationalRole)} />
        <Checkbox label="Active (unticked: deactivated, its credentials are refused at once)" name="isActive" checked={isActive} onValue={setIsActive} />
        <WorkspaceRolesEditor field="workspaceAssignments" rows={assignments} workspaces={workspaces} problem={save.problem} words={ASSIGNMENT_WORDS} />
        <SubmitButtons busy={save.busy} busyLabel="Saving…" label="Save changes" />
      </SubmitForm>
    </section>
  );
}

export function DeleteAccount(props: { sa: ServiceAccount }) {
  const { sa } = props;
  const remove = useAction(async () => {
    await call(api.DELETE("/api/v2/portal/service-accounts/{id}", { params: { path: { id: sa.id }, header: csrf() } }));
    setFlash(`${sa.name} is deleted: its credentials are refused from now on.`);
    navigate(`${BASE}/service-accounts`);
  });
  return (
    <DeleteZone
      headingId="delete-heading"
      heading="Delete the account"
      lead="Its credentials stop working at once. Deactivate it instead to keep it for later."
      action={remove}
      name="delete"
      question={`Delete ${sa.name}?`}
      confirmLabel={`Delete ${sa.name}`}
      busyLabel="Deleting…"
      problemTitle="The service account was not deleted"
      opener={`Delete ${sa.name}…`}
      openerData={{ "data-action": "delete" }}
      confirmData={{ "data-action": "confirm-delete" }}
    >
      <p>
        Every integration using <strong>{sa.name}</strong> is refused from now on. <strong>This cannot be undone.</strong>
      </p>
    </DeleteZone>
  );
}
