import { useState } from "preact/hooks";
import { api, call } from "../api/client";
import { takeFlash } from "../flash";
import { ShowMore, usePages } from "../ui/paging";
import { BASE, Link } from "../router";
import { hasRole, useMe, type OrganizationalRole } from "../session";
import { Badge, DataTable, Empty, Field, Notice, ORGANIZATIONAL_ROLES, PageHeader, ProblemBanner, Select, Time } from "../ui";
import { WorkspaceRoleList } from "../ui/workspace-roles";
import { USER_ADMIN, useNames, personHref } from "./person-model";

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
        <DataTable label="People" caption="People of your organization" columns={["Person", "Organization", "Organizational role", "Workspace roles", "Status", "Registered"]}>
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
        </DataTable>
      )}
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}
