import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { ifMatch, withEtag } from "../etag";
import { Confirmation, useConfirming } from "../confirmation";
import type { OrganizationalRole } from "../session";
import { Checkbox, Field, ORGANIZATIONAL_ROLES, SaveProblem, Select, SubmitButtons, SubmitForm, useAction } from "../ui";
import { useWorkspaceRoleRows, WorkspaceRolesEditor } from "../ui/workspace-roles";
import { type Organization, type Workspace } from "../workspaces/workspace-model";
import { Person, PersonBody } from "./person-model";

export function PersonForm(props: {
  person: Person | undefined;
  /** The version the form was opened on: a change sends it, and is refused (409) over someone else's. */
  etag: string | undefined;
  onReload(): Promise<void>;
  organizations: Organization[];
  workspaces: Workspace[];
  defaultAccountId: string;
  defaultTenantId: string;
  onSaved(p: Person, etag: string | undefined, created: boolean): void;
}) {
  const p = props.person;
  const [userId, setUserId] = useState(p?.userId ?? "");
  const [displayName, setDisplayName] = useState(p?.displayName ?? "");
  const [email, setEmail] = useState(p?.email ?? "");
  const [tenantId, setTenantId] = useState(p?.tenantId ?? props.defaultTenantId);
  const [accountId, setAccountId] = useState(p?.accountId ?? props.defaultAccountId);
  const [role, setRole] = useState<OrganizationalRole>(p?.organizationalRole ?? "Member");
  const [isActive, setIsActive] = useState(p?.isActive ?? true);
  const workspaceRoles = useWorkspaceRoleRows(p?.workspaceRoles);
  const save = useAction(async () => {
    const body: PersonBody = {
      displayName,
      email,
      tenantId,
      accountId,
      organizationalRole: role,
      workspaceRoles: workspaceRoles.entries(),
      isActive,
    };
    const result = await api.PUT("/api/v2/portal/people/{userId}", { params: { path: { userId: p?.userId ?? userId.trim() }, header: csrf() }, body, headers: ifMatch(props.etag) });
    const saved = await withEtag(Promise.resolve(result));
    props.onSaved(saved.value.data, saved.etag, result.response.status === 201);
  });
  return (
    <section class="card form-card" aria-labelledby="person-form-heading">
      <h2 id="person-form-heading">{p ? "Change the registration" : "Registration"}</h2>
      <SubmitForm action={save}>
        <SaveProblem problem={save.problem} title={p ? "The registration was not saved" : "The person was not added"} onReload={props.onReload} />
        {!p && (
          <Field
            label="Directory object id"
            name="userId"
            value={userId}
            onValue={setUserId}
            problem={save.problem}
            required
            autoComplete="off"
            hint="The person's object id (oid) in their directory: a GUID."
          />
        )}
        <Field label="Display name" name="displayName" value={displayName} onValue={setDisplayName} problem={save.problem} required autoComplete="off" />
        <Field label="E-mail address" name="email" type="email" value={email} onValue={setEmail} problem={save.problem} required autoComplete="off" />
        <Field label="Directory tenant id" name="tenantId" value={tenantId} onValue={setTenantId} problem={save.problem} required autoComplete="off" hint="The tenant the person signs in from: a GUID." />
        <Select
          label="Organization"
          name="accountId"
          value={accountId}
          onValue={setAccountId}
          problem={save.problem}
          options={props.organizations.length > 0 ? props.organizations.map((o) => ({ value: o.id, label: o.name })) : [{ value: accountId, label: accountId }]}
        />
        <Select label="Organizational role" name="organizationalRole" value={role} onValue={(r) => setRole(r as OrganizationalRole)} problem={save.problem} options={ORGANIZATIONAL_ROLES} />
        <Checkbox label="Active (unticked: deactivated, and every session ends at once)" name="isActive" checked={isActive} onValue={setIsActive} />
        <WorkspaceRolesEditor
          field="workspaceRoles"
          rows={workspaceRoles}
          workspaces={props.workspaces}
          problem={save.problem}
          words={{ legend: "Workspace roles", hint: "The list replaces the roles the person had.", none: "No workspace role.", remove: "Remove workspace role", add: "Add a workspace role" }}
        />
        <SubmitButtons busy={save.busy} busyLabel="Saving…" label={p ? "Save registration" : "Add person"} />
      </SubmitForm>
    </section>
  );
}

export function SignOutEverywhere(props: { person: Person; onDone(message: string): void }) {
  const p = props.person;
  const signOut = useAction(async () => {
    const result = (await call(api.POST("/api/v2/portal/people/{userId}/sign-out-everywhere", { params: { path: { userId: p.userId }, query: { accountId: p.accountId }, header: csrf() } }))).data;
    confirming.close();
    props.onDone(`Every portal session of ${p.displayName} that began before now is over (recorded on ${result.registrations} registration${result.registrations === 1 ? "" : "s"}).`);
  });
  const confirming = useConfirming(signOut);
  return (
    <section class="card" aria-labelledby="sign-out-heading">
      <h2 id="sign-out-heading">Sign out everywhere</h2>
      <p class="muted">Ends every portal session of {p.displayName}, in every browser, at once. They can sign in again.</p>
      {confirming.key ? (
        <Confirmation
          layout="panel"
          question={`Sign ${p.displayName} out everywhere?`}
          confirmLabel={`Yes, end every session of ${p.displayName}`}
          busyLabel="Signing out…"
          busy={signOut.busy}
          problem={signOut.problem}
          problemTitle="The sessions were not ended"
          onConfirm={() => void signOut.run()}
          onCancel={confirming.cancel}
        />
      ) : (
        <div class="buttons">
          <button type="button" class="button button-danger" {...confirming.opener("sign-out")}>
            Sign {p.displayName} out everywhere…
          </button>
        </div>
      )}
    </section>
  );
}
