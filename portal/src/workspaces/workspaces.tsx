import { useState } from "preact/hooks";
import { setFlash, takeFlash } from "../flash";
import { BASE, Link, navigate } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, DataTable, Empty, Notice, PageHeader, ProblemBanner, RefreshButton, Select, Time, useResource } from "../ui";
import { OnboardOrganization } from "./onboard-organization";
import { OnboardWorkspace } from "./onboard-workspace";
import { readOrganizations, readWorkspaces, SOURCE_NAMES, sourcesOn, WORKSPACE_ADMIN } from "./workspace-model";

/** The organizations (the provider and its customers) and their workspaces; onboarding of both. */
export function WorkspacesPage() {
  const me = useMe();
  const [notice] = useState(takeFlash);
  const organizations = useResource(readOrganizations, []);
  const workspaces = useResource(readWorkspaces, []);
  const [filter, setFilter] = useState("");
  const canChange = hasRole(me, WORKSPACE_ADMIN);
  const orgs = organizations.value ?? [];
  const own = orgs.find((o) => o.id === me.accountId);
  const orgName = (id: string) => orgs.find((o) => o.id === id)?.name ?? id;
  const list = (workspaces.value ?? []).filter((w) => !filter || w.accountId === filter);
  const count = (accountId: string) => (workspaces.value ?? []).filter((w) => w.accountId === accountId).length;
  const reload = () => Promise.all([organizations.reload(), workspaces.reload()]);

  return (
    <section>
      <PageHeader title="Organizations and workspaces">
        <RefreshButton busy={organizations.loading || workspaces.loading} onRefresh={() => void reload()} />
      </PageHeader>
      <p class="lead">Your organization, the customer organizations it manages, and the workspaces you may act on.</p>
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={organizations.problem} title="The organizations could not be read" />
      <ProblemBanner problem={workspaces.problem} title="The workspaces could not be read" />

      <h2 id="organizations-heading" class="section-heading">Organizations</h2>
      {organizations.value && orgs.length === 0 && <Empty>No organization.</Empty>}
      {orgs.length > 0 && (
        <DataTable label="Organizations" aria-labelledby="organizations-heading" columns={["Organization", "Kind", "Status", "Workspaces", "Created"]}>
          {orgs.map((o) => (
            <tr key={o.id} data-organization-id={o.id}>
              <th scope="row">
                {o.name}
                {o.id === me.accountId && <span class="muted"> (yours)</span>}
              </th>
              <td>{o.kind === "ServiceProvider" ? "Service provider" : o.managedByAccountId ? `Customer of ${orgName(o.managedByAccountId)}` : "Customer"}</td>
              <td>{o.isActive ? <Badge tone="ok">Active</Badge> : <Badge tone="bad">Deactivated</Badge>}</td>
              <td>{workspaces.value ? count(o.id) : "…"}</td>
              <td>
                <Time at={o.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <h2 id="workspaces-heading" class="section-heading">Workspaces</h2>
      {orgs.length > 1 && (
        <div class="filters">
          <Select label="Organization" name="accountId" value={filter} onValue={setFilter} options={[{ value: "", label: "All organizations" }, ...orgs.map((o) => ({ value: o.id, label: o.name }))]} />
        </div>
      )}
      {workspaces.value && list.length === 0 && <Empty>No workspace you may act on{filter ? " in this organization" : ""}.</Empty>}
      {list.length > 0 && (
        <DataTable label="Workspaces" aria-labelledby="workspaces-heading" columns={["Workspace", "Organization", "Sources on", "Your role", "Last changed"]}>
          {list.map((w) => (
            <tr key={w.id} data-workspace-id={w.id}>
              <th scope="row">
                <Link href={`${BASE}/workspaces/${w.id}`}>{w.name}</Link>
              </th>
              <td>{orgName(w.accountId)}</td>
              <td>
                {sourcesOn(w)} of {SOURCE_NAMES.length}
                {SOURCE_NAMES.some((s) => w.sources[s].bridge) && <span class="muted"> · own bridge</span>}
              </td>
              <td>{w.workspaceRole ?? <span class="muted">Organization-wide ({me.organizationalRole})</span>}</td>
              <td>
                <Time at={w.lastModifiedAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      {canChange && own?.kind === "ServiceProvider" && (
        <OnboardOrganization providerName={own.name} onCreated={() => void organizations.reload()} />
      )}
      {canChange && orgs.length > 0 && (
        <OnboardWorkspace
          organizations={orgs}
          workspaces={workspaces.value ?? []}
          onCreated={(w) => {
            setFlash(`Workspace ${w.name} is onboarded into ${orgName(w.accountId)}.`);
            navigate(`${BASE}/workspaces/${w.id}`);
          }}
        />
      )}
    </section>
  );
}
