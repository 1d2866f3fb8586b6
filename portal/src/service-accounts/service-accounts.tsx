import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, call, csrf, fieldError, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { ifMatch, withEtag } from "../etag";
import { Confirmation, useConfirming } from "../confirmation";
import { setFlash, takeFlash } from "../flash";
import { ShowMore, usePages } from "../ui/paging";
import { BASE, Link, navigate } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, Checkbox, CopyButton, Empty, Field, Notice, PageHeader, ProblemBanner, SaveProblem, Select, TableScroll, Time, useAction, useResource } from "../ui";
import { useWorkspaceRoleRows, WorkspaceRoleList, WorkspaceRolesEditor } from "../ui/workspace-roles";
import { readWorkspaces, type Workspace } from "../pages/workspaces";

type ListEnvelope = paths["/api/v2/portal/service-accounts"]["get"]["responses"][200]["content"]["application/json"];
export type ServiceAccount = ListEnvelope["data"][number];
type Credential = ServiceAccount["credentials"][number];
type CreateBody = NonNullable<paths["/api/v2/portal/service-accounts"]["post"]["requestBody"]>["content"]["application/json"];
type UpdateBody = NonNullable<paths["/api/v2/portal/service-accounts/{id}"]["patch"]["requestBody"]>["content"]["application/json"];
type Scope = CreateBody["scopes"][number];
type OrganizationalRole = ServiceAccount["organizationalRole"];

/** Who reads the organization's service accounts, and who manages them (the routes' roles; Admin holds them all). */
const READERS = ["UserAdmin", "WorkspaceAdmin"] as const;
const MANAGERS = ["UserAdmin"] as const;

const ORGANIZATIONAL_ROLES: readonly { value: OrganizationalRole; label: string }[] = [
  { value: "Member", label: "Member: the workspaces it is assigned to" },
  { value: "WorkspaceAdmin", label: "WorkspaceAdmin: every workspace, onboarding and settings" },
  { value: "UserAdmin", label: "UserAdmin: people, service accounts and their roles" },
  { value: "AgentAdmin", label: "AgentAdmin: agents" },
  { value: "OrgContentOperator", label: "OrgContentOperator: the organization's content" },
  { value: "OrgContentAdmin", label: "OrgContentAdmin: the organization's content, and who changes it" },
  { value: "Admin", label: "Admin: everything" },
];

/** The contract's scopes, grouped by what they reach. */
const SCOPE_GROUPS: readonly { label: string; scopes: readonly { scope: Scope; label: string }[] }[] = [
  {
    label: "Incidents and investigation",
    scopes: [
      { scope: "incidents:read", label: "Read incidents" },
      { scope: "incidents:write", label: "Change incidents" },
      { scope: "incidents:comments", label: "Comment on incidents" },
      { scope: "investigation:read", label: "Read investigation data" },
      { scope: "datasources:read", label: "Read data sources" },
    ],
  },
  {
    label: "Gamebooks and tickets",
    scopes: [
      { scope: "gamebooks:read", label: "Read gamebooks" },
      { scope: "gamebooks:execute", label: "Run gamebooks" },
      { scope: "tickets:read", label: "Read tickets" },
      { scope: "tickets:manage", label: "Manage tickets" },
    ],
  },
  {
    label: "Webhooks and audit",
    scopes: [
      { scope: "webhooks:read", label: "Read webhooks" },
      { scope: "webhooks:manage", label: "Manage webhooks" },
      { scope: "audit:read", label: "Export the audit trail" },
    ],
  },
  {
    label: "Organization",
    scopes: [
      { scope: "org:service-accounts:read", label: "Read service accounts" },
      { scope: "org:service-accounts:manage", label: "Manage service accounts" },
      { scope: "org:users:read", label: "Read people" },
      { scope: "org:users:manage", label: "Manage people" },
      { scope: "org:users:roles", label: "Change people's roles" },
      { scope: "org:azure:read", label: "Read Azure onboarding" },
      { scope: "org:azure:manage", label: "Manage Azure onboarding" },
    ],
  },
];

function accountHref(id: string): string {
  return `${BASE}/service-accounts/${id}`;
}

/** A date input's day as the end of that day, local time, in ISO form; undefined when empty (the server's default). */
function expirationOf(day: string): string | undefined {
  if (!day) return undefined;
  const at = new Date(`${day}T23:59:59`);
  return Number.isNaN(at.getTime()) ? day : at.toISOString();
}

function activeCredentials(sa: ServiceAccount): Credential[] {
  return sa.credentials.filter((c) => c.status === "Active");
}

function credentialTone(status: Credential["status"]): "ok" | "warn" | "bad" {
  return status === "Active" ? "ok" : status === "Expired" ? "warn" : "bad";
}

function readerNotice(role: string) {
  return <Notice>Service accounts are for UserAdmins, WorkspaceAdmins and Admins. You are {role}.</Notice>;
}

/** The organization's service accounts: the identities its integrations call the API with. */
export function ServiceAccountsPage() {
  const me = useMe();
  const canRead = hasRole(me, READERS);
  const canManage = hasRole(me, MANAGERS);
  const [notice] = useState(takeFlash);
  const read = async (continuationToken?: string) => (canRead ? call(api.GET("/api/v2/portal/service-accounts", { params: { query: { pageSize: 100, continuationToken } } })) : undefined);
  const { first: list, items: accounts, more, loadMore } = usePages(read, [canRead]);

  return (
    <section>
      <PageHeader title="Service accounts">
        {canManage && (
          <Link class="button" href={`${BASE}/service-accounts/new`}>
            Create a service account
          </Link>
        )}
      </PageHeader>
      <p class="lead">The identities your organization's integrations call the API with (HTTP Basic: client id and secret). A secret is shown once, when it is created; the service keeps only its hash.</p>
      {notice && <Notice kind="success">{notice}</Notice>}
      {!canRead && readerNotice(me.organizationalRole)}
      <ProblemBanner problem={list.problem} title="The service accounts could not be read" />
      {canRead && (
        <p aria-live="polite" class="muted">
          {list.value ? `${accounts.length}${more ? "+" : ""} service account${accounts.length === 1 ? "" : "s"}` : list.loading ? "Loading…" : ""}
        </p>
      )}
      {list.value && accounts.length === 0 && <Empty>No service account yet.</Empty>}
      {accounts.length > 0 && (
        <TableScroll label="Service accounts">
          <table class="service-accounts">
            <caption class="visually-hidden">Service accounts of your organization</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col">Role</th>
                <th scope="col">Workspaces</th>
                <th scope="col">Status</th>
                <th scope="col">Credentials</th>
                <th scope="col">Last used</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((sa) => {
                const active = activeCredentials(sa);
                return (
                  <tr key={sa.id} data-service-account-id={sa.id}>
                    <th scope="row">
                      <Link href={accountHref(sa.id)}>{sa.name}</Link>
                      {sa.isPlatformManaged && <div class="muted">Platform-managed</div>}
                    </th>
                    <td class="description">{sa.description || <span class="muted">—</span>}</td>
                    <td>{sa.organizationalRole}</td>
                    <td>
                      <WorkspaceRoleList roles={sa.workspaceAssignments} />
                    </td>
                    <td>{sa.isActive ? <Badge tone="ok">Active</Badge> : <Badge tone="bad">Inactive</Badge>}</td>
                    <td>
                      {active.length > 0 ? <Badge tone="ok">{active.length} active</Badge> : <Badge tone="bad">None active</Badge>}
                      <div class="muted">
                        {sa.credentials.length} in all
                        {sa.credentialExpirationDate && (
                          <>
                            {" "}
                            · newest expires <Time at={sa.credentialExpirationDate} />
                          </>
                        )}
                      </div>
                    </td>
                    <td>
                      <Time at={sa.lastUsedAt} />
                    </td>
                    <td>
                      <Time at={sa.createdAt} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}

/** A new client id and secret, shown once: nothing keeps the secret beyond this view's state. */
function SecretBox(props: { clientId: string; clientSecret: string; title: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  const headingId = useId();
  useEffect(() => {
    ref.current?.focus();
  }, [props.clientSecret]);
  return (
    <div class="secret secret-box" role="region" aria-labelledby={headingId} tabIndex={-1} ref={ref} data-secret-box>
      <h2 id={headingId}>{props.title}</h2>
      <p>
        <strong>Copy the client secret now: it will not be shown again.</strong> The service keeps only its hash. If it is lost, add a new credential and revoke this one.
      </p>
      <dl class="secret-values">
        <div>
          <dt>Client id (HTTP Basic user name)</dt>
          <dd>
            <code class="secret-value" data-client-id>
              {props.clientId}
            </code>
            <CopyButton text={props.clientId} label="Copy the client id" />
          </dd>
        </div>
        <div>
          <dt>Client secret (HTTP Basic password)</dt>
          <dd>
            <code class="secret-value" data-client-secret>
              {props.clientSecret}
            </code>
            <CopyButton text={props.clientSecret} label="Copy the client secret" />
          </dd>
        </div>
      </dl>
      {props.children}
    </div>
  );
}

/** Checkboxes of the contract's scopes, grouped; the server's problem at `scopes` shown with them. */
function ScopePicker(props: { selected: readonly Scope[]; onChange(scopes: Scope[]): void; problem?: Problem }) {
  const id = useId();
  const error = fieldError(props.problem, "scopes");
  const toggle = (scope: Scope, on: boolean) => props.onChange(on ? [...props.selected, scope] : props.selected.filter((s) => s !== scope));
  return (
    <fieldset class={`scopes${error ? " field-invalid" : ""}`} aria-describedby={error ? `${id}-error` : `${id}-hint`} aria-invalid={error ? "true" : undefined}>
      <legend>Scopes of the credential</legend>
      <p class="hint" id={`${id}-hint`}>
        What the credential may call. Grant the fewest that work.
      </p>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
      <div class="scope-groups">
        {SCOPE_GROUPS.map((group) => (
          <fieldset class="scope-group">
            <legend>{group.label}</legend>
            {group.scopes.map((s) => (
              <Checkbox label={`${s.label} (${s.scope})`} name="scopes" checked={props.selected.includes(s.scope)} onValue={(on) => toggle(s.scope, on)} />
            ))}
          </fieldset>
        ))}
      </div>
    </fieldset>
  );
}

function ExpirationField(props: { value: string; onValue(value: string): void; problem?: Problem }) {
  return <Field label="Expiration date" name="expirationDate" type="date" value={props.value} onValue={props.onValue} problem={props.problem} hint="The credential stops working after this day. Empty: one year from now; at most two years." />;
}

/** The words of a service account's workspace assignments. */
const ASSIGNMENT_WORDS = {
  legend: "Workspace assignments",
  hint: "The workspaces the account acts on, and its role on each.",
  none: "No workspace assignment.",
  remove: "Remove assignment",
  add: "Add a workspace assignment",
};

function useWorkspaces(): Workspace[] {
  return useResource(() => readWorkspaces().catch(() => [] as Workspace[]), []).value ?? [];
}

/** The roles a person may grant: only an Admin grants Admin. */
function grantableRoles(myRole: string, current?: OrganizationalRole) {
  return ORGANIZATIONAL_ROLES.filter((r) => r.value !== "Admin" || myRole === "Admin" || current === "Admin");
}

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
          <form
            class="service-account-form"
            onSubmit={(e) => {
              e.preventDefault();
              void create.run();
            }}
          >
            <ProblemBanner problem={create.problem} title="The service account was not created" />
            <Field label="Name" name="name" value={name} onValue={setName} problem={create.problem} required maxLength={128} autoComplete="off" />
            <Field label="Description" name="description" value={description} onValue={setDescription} problem={create.problem} maxLength={1024} multiline hint="What it is for and who runs it." />
            <Select label="Organizational role" name="organizationalRole" value={role} onValue={(r) => setRole(r as OrganizationalRole)} problem={create.problem} options={grantableRoles(me.organizationalRole)} />
            <WorkspaceRolesEditor field="workspaceAssignments" rows={assignments} workspaces={workspaces} problem={create.problem} words={ASSIGNMENT_WORDS} />
            <h3>First credential</h3>
            <ScopePicker selected={scopes} onChange={setScopes} problem={create.problem} />
            <ExpirationField value={expiration} onValue={setExpiration} problem={create.problem} />
            <div class="buttons">
              <button type="submit" class="button" disabled={create.busy}>
                {create.busy ? "Creating…" : "Create service account"}
              </button>
            </div>
          </form>
        </section>
      )}
    </section>
  );
}

/** `/service-accounts/:id`: one service account, its credentials, and the changes a manager makes. */
export function ServiceAccountPage({ params }: { params: Record<string, string> }) {
  const me = useMe();
  const id = params.id ?? "";
  const canRead = hasRole(me, READERS);
  const canManage = hasRole(me, MANAGERS);
  const account = useResource(
    async () => (canRead ? withEtag(api.GET("/api/v2/portal/service-accounts/{id}", { params: { path: { id } } })).then((read) => ({ ...read, value: read.value.data })) : undefined),
    [id, canRead],
  );
  // Read again at the person's request (after a refused change): the form starts over from what the server holds.
  const [fresh, setFresh] = useState(0);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [secret, setSecret] = useState<{ clientId: string; clientSecret: string } | undefined>(undefined);
  const sa = account.value?.value;
  const changeable = canManage && sa && !sa.isPlatformManaged;

  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/service-accounts`}>Service accounts</Link>
      </p>
      <PageHeader title={sa ? sa.name : "Service account"} />
      {!canRead && readerNotice(me.organizationalRole)}
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={account.problem} title="The service account could not be read" />
      {canRead && account.loading && !sa && <p class="muted">Loading…</p>}
      {sa && (
        <>
          {sa.description && <p class="lead">{sa.description}</p>}
          <dl class="facts">
            <div>
              <dt>Client id</dt>
              <dd>
                <code class="secret-value">{sa.id}</code>
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>{sa.isActive ? <Badge tone="ok">Active</Badge> : <Badge tone="bad">Inactive: its credentials are refused</Badge>}</dd>
            </div>
            <div>
              <dt>Organizational role</dt>
              <dd>{sa.organizationalRole}</dd>
            </div>
            <div>
              <dt>Workspaces</dt>
              <dd>{sa.workspaceAssignments.length === 0 ? <span class="muted">None</span> : sa.workspaceAssignments.map((a) => `${a.role} of ${a.workspaceName}`).join(", ")}</dd>
            </div>
            <div>
              <dt>Last used</dt>
              <dd>
                <Time at={sa.lastUsedAt} />
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Time at={sa.createdAt} />
              </dd>
            </div>
          </dl>
          {sa.isPlatformManaged && <Notice>This account is managed by the platform: it cannot be changed or deleted here.</Notice>}
          {secret && <SecretBox clientId={secret.clientId} clientSecret={secret.clientSecret} title="The new credential" />}
          <Credentials
            sa={sa}
            canManage={!!changeable}
            onRevoked={(next, etag, prefix) => {
              account.set({ value: next, etag });
              setNotice(`The credential ${prefix}… is revoked: it is refused from now on.`);
            }}
          />
          {changeable && (
            <AddCredential
              id={sa.id}
              onAdded={(added) => {
                setSecret({ clientId: added.clientId, clientSecret: added.clientSecret });
                setNotice(undefined);
                void account.reload();
              }}
            />
          )}
          {changeable && (
            <ChangeForm
              key={`${sa.id}:${sa.lastModifiedAt}:${fresh}`}
              sa={sa}
              etag={account.value?.etag}
              myRole={me.organizationalRole}
              onReload={async () => {
                setNotice(undefined);
                await account.reload();
                setFresh((n) => n + 1);
              }}
              onSaved={(saved, etag) => {
                account.set({ value: saved, etag });
                setNotice(`${saved.name} is saved.`);
              }}
            />
          )}
          {changeable && <DeleteAccount sa={sa} />}
        </>
      )}
    </section>
  );
}

function Credentials(props: { sa: ServiceAccount; canManage: boolean; onRevoked(sa: ServiceAccount, etag: string | undefined, prefix: string): void }) {
  const { sa } = props;
  const revoke = useAction(async (credential: Credential) => {
    // The answer's ETag is the account's new version, which the change form sends next.
    const next = await withEtag(api.POST("/api/v2/portal/service-accounts/{id}/credentials/{credentialId}/revoke", { params: { path: { id: sa.id, credentialId: credential.id }, header: csrf() } }));
    confirming.close();
    props.onRevoked(next.value.data, next.etag, credential.clientSecretPrefix);
  });
  const confirming = useConfirming(revoke);
  return (
    <section aria-labelledby="credentials-heading">
      <h2 id="credentials-heading" class="section-heading">
        Credentials
      </h2>
      {sa.credentials.length === 0 ? (
        <Empty>No credential.</Empty>
      ) : (
        <TableScroll label="Credentials">
          <table class="credentials">
            <caption class="visually-hidden">Credentials of {sa.name}</caption>
            <thead>
              <tr>
                <th scope="col">Secret prefix</th>
                <th scope="col">Status</th>
                <th scope="col">Scopes</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Created</th>
                {props.canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {sa.credentials.map((c) => (
                <tr key={c.id} data-credential-id={c.id} data-status={c.status}>
                  <th scope="row">
                    <code>{c.clientSecretPrefix}…</code>
                  </th>
                  <td>
                    <Badge tone={credentialTone(c.status)}>{c.status}</Badge>
                  </td>
                  <td>
                    <ul class="plain scope-list">
                      {c.scopes.map((s) => (
                        <li key={s}>
                          <code>{s}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <Time at={c.expirationDate} />
                  </td>
                  <td>
                    <Time at={c.lastUsedAt} />
                  </td>
                  <td>
                    <Time at={c.createdAt} />
                  </td>
                  {props.canManage && (
                    <td>
                      {c.status === "Active" && confirming.key !== c.id && (
                        <button type="button" class="button button-secondary button-small" data-revoke={c.id} {...confirming.opener(c.id)}>
                          Revoke…<span class="visually-hidden"> the credential {c.clientSecretPrefix}</span>
                        </button>
                      )}
                      {confirming.key === c.id && (
                        <Confirmation
                          layout="inline"
                          question={
                            <>
                              Revoke <code>{c.clientSecretPrefix}…</code>?
                            </>
                          }
                          confirmLabel="Revoke it"
                          busyLabel="Revoking…"
                          busy={revoke.busy}
                          problem={revoke.problem}
                          problemTitle="The credential was not revoked"
                          confirmData={{ "data-confirm-revoke": c.id }}
                          onConfirm={() => void revoke.run(c)}
                          onCancel={confirming.cancel}
                        >
                          <span>Integrations using it are refused at once.</span>
                        </Confirmation>
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

type CreatedCredential = paths["/api/v2/portal/service-accounts/{id}/credentials"]["post"]["responses"][201]["content"]["application/json"]["data"];

function AddCredential(props: { id: string; onAdded(credential: CreatedCredential): void }) {
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expiration, setExpiration] = useState("");
  const add = useAction(async () => {
    const added = (await call(api.POST("/api/v2/portal/service-accounts/{id}/credentials", { params: { path: { id: props.id }, header: csrf() }, body: { scopes, expirationDate: expirationOf(expiration) } }))).data;
    setScopes([]);
    setExpiration("");
    props.onAdded(added);
  });
  return (
    <section class="card form-card" aria-labelledby="add-credential-heading">
      <h2 id="add-credential-heading">Add a credential</h2>
      <p class="muted">To rotate: add one, move the integration to it, then revoke the old one. At most five are active at once.</p>
      <form
        class="add-credential"
        onSubmit={(e) => {
          e.preventDefault();
          void add.run();
        }}
      >
        <ProblemBanner problem={add.problem} title="The credential was not added" />
        <ScopePicker selected={scopes} onChange={setScopes} problem={add.problem} />
        <ExpirationField value={expiration} onValue={setExpiration} problem={add.problem} />
        <div class="buttons">
          <button type="submit" class="button" disabled={add.busy}>
            {add.busy ? "Adding…" : "Add credential"}
          </button>
        </div>
      </form>
    </section>
  );
}

function ChangeForm(props: { sa: ServiceAccount; etag: string | undefined; myRole: string; onReload(): Promise<void>; onSaved(sa: ServiceAccount, etag: string | undefined): void }) {
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
      <form
        class="change-service-account"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <SaveProblem problem={save.problem} title="The service account was not saved" onReload={props.onReload} />
        <Field label="Name" name="name" value={name} onValue={setName} problem={save.problem} required maxLength={128} autoComplete="off" />
        <Field label="Description" name="description" value={description} onValue={setDescription} problem={save.problem} maxLength={1024} multiline />
        <Select label="Organizational role" name="organizationalRole" value={role} onValue={(r) => setRole(r as OrganizationalRole)} problem={save.problem} options={grantableRoles(props.myRole, sa.organizationalRole)} />
        <Checkbox label="Active (unticked: deactivated, its credentials are refused at once)" name="isActive" checked={isActive} onValue={setIsActive} />
        <WorkspaceRolesEditor field="workspaceAssignments" rows={assignments} workspaces={workspaces} problem={save.problem} words={ASSIGNMENT_WORDS} />
        <div class="buttons">
          <button type="submit" class="button" disabled={save.busy}>
            {save.busy ? "Saving…" : "Save changes"}
          </button>
        </div>
      </form>
    </section>
  );
}

function DeleteAccount(props: { sa: ServiceAccount }) {
  const { sa } = props;
  const remove = useAction(async () => {
    await call(api.DELETE("/api/v2/portal/service-accounts/{id}", { params: { path: { id: sa.id }, header: csrf() } }));
    setFlash(`${sa.name} is deleted: its credentials are refused from now on.`);
    navigate(`${BASE}/service-accounts`);
  });
  const confirming = useConfirming(remove);
  return (
    <section class="card danger-zone" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete the account</h2>
      <p class="muted">Its credentials stop working at once. Deactivate it instead to keep it for later.</p>
      {confirming.key ? (
        <Confirmation
          layout="panel"
          question={`Delete ${sa.name}?`}
          confirmLabel={`Delete ${sa.name}`}
          busyLabel="Deleting…"
          busy={remove.busy}
          problem={remove.problem}
          problemTitle="The service account was not deleted"
          confirmData={{ "data-action": "confirm-delete" }}
          onConfirm={() => void remove.run()}
          onCancel={confirming.cancel}
        >
          <p>
            Every integration using <strong>{sa.name}</strong> is refused from now on. <strong>This cannot be undone.</strong>
          </p>
        </Confirmation>
      ) : (
        <div class="buttons">
          <button type="button" class="button button-danger" data-action="delete" {...confirming.opener("delete")}>
            Delete {sa.name}…
          </button>
        </div>
      )}
    </section>
  );
}
