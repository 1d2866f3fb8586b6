import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { BASE, Link } from "../router";
import { hasRole, useMe, type OrganizationalRole } from "../session";
import { Field, Notice, PageHeader, ProblemBanner, Select, SubmitButtons, SubmitForm, useAction } from "../ui";
import { useWorkspaceRoleRows, WorkspaceRolesEditor } from "../ui/workspace-roles";
import { CreateBody, Scope, MANAGERS, accountHref, expirationOf } from "./model";
import { ASSIGNMENT_WORDS, ExpirationField, grantableRoles, ScopePicker, SecretBox, useWorkspaces } from "./account-fields";

/** `/service-accounts/new`: a new service account and its first credential, whose secret is shown once here. */
export function NewServiceAccountPage() {
  const me = useMe();
  const canManage = hasRole(me, MANAGERS);
  const workspaces = useWorkspaces();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [role, setRole] = useState<OrganizationalRole>("Member");
  const assignments = useWorkspaceRoleRows();
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expiration, setExpiration] = useState("");
  const [created, setCreated] = useState<{ id: string; name: string; clientId: string; clientSecret: string } | undefined>(undefined);
  const create = useAction(async () => {
    const body: CreateBody = {
      name,
      description,
      organizationalRole: role,
      workspaceAssignments: assignments.entries(),
      scopes,
      expirationDate: expirationOf(expiration),
    };
    const answer = (await call(api.POST("/api/v2/portal/service-accounts", { params: { header: csrf() }, body }))).data;
    setCreated({ id: answer.id, name: answer.name, clientId: answer.clientId, clientSecret: answer.clientSecret });
  });

  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/service-accounts`}>Service accounts</Link>
      </p>
      <PageHeader title={created ? `${created.name} is created` : "Create a service account"} />
      {!canManage && <Notice>Creating service accounts is for UserAdmins and Admins. You are {me.organizationalRole}.</Notice>}
      {created && (
        <SecretBox clientId={created.clientId} clientSecret={created.clientSecret} title="The new credential">
          <div class="buttons">
            <Link class="button" href={accountHref(created.id)}>
              I have stored the secret: open {created.name}
            </Link>
          </div>
        </SecretBox>
      )}
      {canManage && !created && (
        <section class="card form-card" aria-labelledby="create-heading">
          <h2 id="create-heading">The account and its first credential</h2>
          <SubmitForm class="service-account-form" action={create}>
            <ProblemBanner problem={create.problem} title="The service account was not created" />
            <Field label="Name" name="name" value={name} onValue={setName} problem={create.problem} required maxLength={128} autoComplete="off" />
            <Field label="Description" name="description" value={description} onValue={setDescription} problem={create.problem} maxLength={1024} multiline hint="What it is for and who runs it." />
            <Select label="Organizational role" name="organizationalRole" value={role} onValue={(r) => setRole(r as OrganizationalRole)} problem={create.problem} options={grantableRoles(me.organizationalRole)} />
            <WorkspaceRolesEditor field="workspaceAssignments" rows={assignments} workspaces={workspaces} problem={create.problem} words={ASSIGNMENT_WORDS} />
            <h3>First credential</h3>
            <ScopePicker selected={scopes} onChange={setScopes} problem={create.problem} />
            <ExpirationField value={expiration} onValue={setExpiration} problem={create.problem} />
            <SubmitButtons busy={create.busy} busyLabel="Creating…" label="Create service account" />
          </SubmitForm>
        </section>
      )}
    </section>
  );
}

