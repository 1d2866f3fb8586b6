import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { ifMatch, withEtag } from "../etag";
import type { paths } from "../api/openapi";
import { Confirmation, useConfirming } from "../confirmation";
import { setFlash, takeFlash } from "../flash";
import { ShowMore, usePages } from "../ui/paging";
import { BASE, Link, navigate, useLocation } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, Checkbox, Empty, Field, Notice, PageHeader, ProblemBanner, SaveProblem, Select, TableScroll, Time, useAction, useResource } from "../ui";
import { useWorkspaceRoleRows, WorkspaceRoleList, WorkspaceRolesEditor } from "../ui/workspace-roles";
import { readOrganizations, readWorkspaces, type Organization, type Workspace } from "../pages/workspaces";

type PeopleEnvelope = paths["/api/v2/portal/people"]["get"]["responses"][200]["content"]["application/json"];
export type Person = PeopleEnvelope["data"][number];
type PersonBody = NonNullable<paths["/api/v2/portal/people/{userId}"]["put"]["requestBody"]>["content"]["application/json"];
type OrganizationalRole = Person["organizationalRole"];

/** People and their roles are a UserAdmin's (and an Admin's), as the routes say. */
const USER_ADMIN = ["UserAdmin"] as const;

const ORGANIZATIONAL_ROLES: readonly { value: OrganizationalRole; label: string }[] = [
  { value: "Member", label: "Member: acts on the workspaces they hold a role on" },
  { value: "WorkspaceAdmin", label: "WorkspaceAdmin: every workspace, onboarding and settings" },
  { value: "UserAdmin", label: "UserAdmin: people and their roles" },
  { value: "AgentAdmin", label: "AgentAdmin: agents" },
  { value: "OrgContentOperator", label: "OrgContentOperator: the organization's content" },
  { value: "OrgContentAdmin", label: "OrgContentAdmin: the organization's content, and who changes it" },
  { value: "Admin", label: "Admin: everything" },
];

/** Names of organizations and workspaces for ids, from what the person may read (ids where they may not). */
function useNames() {
  const organizations = useResource(() => readOrganizations().catch(() => [] as Organization[]), []);
  const workspaces = useResource(() => readWorkspaces().catch(() => [] as Workspace[]), []);
  return {
    organizations: organizations.value ?? [],
    workspaces: workspaces.value ?? [],
    organization: (id: string) => organizations.value?.find((o) => o.id === id)?.name ?? id,
    workspace: (id: string) => workspaces.value?.find((w) => w.id === id)?.name ?? id,
  };
}

function personHref(p: Pick<Person, "userId" | "accountId">): string {
  return `${BASE}/people/${p.userId}?accountId=${p.accountId}`;
}

/** The people of the organization, with their organizational and workspace roles. */
export function PeoplePage() {
  const me = useMe();
  const names = useNames();
  const [notice] = useState(takeFlash);
  const [accountId, setAccountId] = useState("");
  const [role, setRole] = useState("");
  const [email, setEmail] = useState("");
  const [applied, setApplied] = useState({ accountId: "", role: "", email: "" });
  const read = (continuationToken?: string) =>
    call(
      api.GET("/api/v2/portal/people", {
        params: {
          query: {
            pageSize: 100,
            continuationToken,
            accountId: applied.accountId || undefined,
            role: (applied.role || undefined) as OrganizationalRole | undefined,
            email: applied.email.trim() || undefined,
          },
        },
      }),
    );
  const { first: list, items: people, more, loadMore } = usePages(read, [applied]);
  const canChange = hasRole(me, USER_ADMIN);

  return (
    <section>
      <PageHeader title="People">
        {canChange && (
          <Link class="button" href={`${BASE}/people/new`}>
            Add a person
          </Link>
        )}
      </PageHeader>
      <p class="lead">The people registered in your organization, their organizational role and their roles on workspaces. Everyone signs in with MFA; the service refuses a session without it.</p>
      {notice && <Notice kind="success">{notice}</Notice>}
      {!canChange && <Notice>People and their roles are for UserAdmins and Admins. You are {me.organizationalRole}.</Notice>}
      <form
        class="filters"
        aria-label="Filter people"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ accountId, role, email });
        }}
      >
        {names.organizations.length > 1 && (
          <Select
            label="Organization"
            name="accountId"
            value={accountId}
            onValue={setAccountId}
            problem={list.problem}
            options={[{ value: "", label: "All organizations" }, ...names.organizations.map((o) => ({ value: o.id, label: o.name }))]}
          />
        )}
        <Select label="Organizational role" name="role" value={role} onValue={setRole} problem={list.problem} options={[{ value: "", label: "Any role" }, ...ORGANIZATIONAL_ROLES.map((r) => r.value)]} />
        <Field label="E-mail address (exact)" name="email" type="email" value={email} onValue={setEmail} problem={list.problem} autoComplete="off" />
        <div class="buttons filter-buttons">
          <button type="submit" class="button button-secondary">
            Filter
          </button>
        </div>
      </form>
      <ProblemBanner problem={list.problem} title="The people could not be read" />
      <p aria-live="polite" class="muted">
        {list.value ? `${people.length}${more ? "+" : ""} ${people.length === 1 ? "person" : "people"}` : list.loading ? "Loading…" : ""}
      </p>
      {list.value && people.length === 0 && <Empty>Nobody matches.</Empty>}
      {people.length > 0 && (
        <TableScroll label="People">
          <table>
            <caption class="visually-hidden">People of your organization</caption>
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Organization</th>
                <th scope="col">Organizational role</th>
                <th scope="col">Workspace roles</th>
                <th scope="col">Status</th>
                <th scope="col">Registered</th>
              </tr>
            </thead>
            <tbody>
              {people.map((p) => (
                <tr key={`${p.accountId}:${p.userId}`} data-user-id={p.userId}>
                  <th scope="row">
                    <Link href={personHref(p)}>{p.displayName || p.email}</Link>
                    <div class="muted">{p.email}</div>
                  </th>
                  <td>{names.organization(p.accountId)}</td>
                  <td>{p.organizationalRole}</td>
                  <td>
                    <WorkspaceRoleList roles={p.workspaceRoles.map((r) => ({ ...r, workspaceName: names.workspace(r.workspaceId) }))} />
                  </td>
                  <td>{p.isActive ? <Badge tone="ok">Active</Badge> : <Badge tone="bad">Inactive</Badge>}</td>
                  <td>
                    <Time at={p.createdAt} />
                    {p.sessionsValidFrom && (
                      <div class="muted">
                        Signed out everywhere <Time at={p.sessionsValidFrom} />
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}

/** One person (`/people/:userId`) or a new one (`/people/new`): their registration, and signing them out everywhere. */
export function PersonPage({ params }: { params: Record<string, string> }) {
  const me = useMe();
  const url = useLocation();
  const isNew = params.userId === undefined;
  const userId = params.userId ?? "";
  const accountId = url.searchParams.get("accountId") ?? undefined;
  const person = useResource(
    async () => (isNew ? undefined : withEtag(api.GET("/api/v2/portal/people/{userId}", { params: { path: { userId }, query: { accountId } } })).then((read) => ({ ...read, value: read.value.data }))),
    [userId, accountId],
  );
  // Read again at the person's request (after a refused change): the form starts over from what the server holds.
  const [fresh, setFresh] = useState(0);
  const names = useNames();
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const canChange = hasRole(me, USER_ADMIN);
  const p = person.value?.value;
  const title = isNew ? "Add a person" : p ? p.displayName || p.email : "Person";

  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/people`}>People</Link>
      </p>
      <PageHeader title={title} />
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={person.problem} title="The person could not be read" />
      {!isNew && person.loading && !p && <p class="muted">Loading…</p>}
      {p && (
        <dl class="facts">
          <div>
            <dt>E-mail</dt>
            <dd>{p.email}</dd>
          </div>
          <div>
            <dt>Organization</dt>
            <dd>{names.organization(p.accountId)}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>{p.isActive ? <Badge tone="ok">Active</Badge> : <Badge tone="bad">Inactive</Badge>}</dd>
          </div>
          <div>
            <dt>Registered</dt>
            <dd>
              <Time at={p.createdAt} />
            </dd>
          </div>
          <div>
            <dt>Last changed</dt>
            <dd>
              <Time at={p.lastModifiedAt} />
            </dd>
          </div>
          <div>
            <dt>Sessions valid from</dt>
            <dd>{p.sessionsValidFrom ? <Time at={p.sessionsValidFrom} /> : <span class="muted">Every session since sign-in</span>}</dd>
          </div>
        </dl>
      )}
      {canChange && (isNew || p) && (
        <PersonForm
          key={p ? `${p.userId}:${p.lastModifiedAt}:${fresh}` : "new"}
          person={p}
          etag={person.value?.etag}
          onReload={async () => {
            setNotice(undefined);
            await person.reload();
            setFresh((n) => n + 1);
          }}
          organizations={names.organizations}
          workspaces={names.workspaces}
          defaultAccountId={me.accountId}
          defaultTenantId={me.tenantId}
          onSaved={(saved, etag, created) => {
            if (created) {
              setFlash(`${saved.displayName} is registered as ${saved.organizationalRole}.`);
              navigate(`${BASE}/people`);
            } else {
              person.set({ value: saved, etag });
              setNotice(`The registration of ${saved.displayName} is saved.`);
            }
          }}
        />
      )}
      {canChange && p && <SignOutEverywhere person={p} onDone={(message) => { setNotice(message); void person.reload(); }} />}
    </section>
  );
}

function PersonForm(props: {
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
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
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
        <div class="buttons">
          <button type="submit" class="button" disabled={save.busy}>
            {save.busy ? "Saving…" : p ? "Save registration" : "Add person"}
          </button>
        </div>
      </form>
    </section>
  );
}

function SignOutEverywhere(props: { person: Person; onDone(message: string): void }) {
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
