import { useState } from "preact/hooks";
import { api, call } from "../api/client";
import { takeFlash } from "../flash";
import { ShowMore, usePages } from "../ui/paging";
import { BASE, Link } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, DataTable, Empty, Notice, PageHeader, ProblemBanner, Time } from "../ui";
import { WorkspaceRoleList } from "../ui/workspace-roles";
import { READERS, MANAGERS, accountHref, activeCredentials, readerNotice } from "./model";

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
        <DataTable label="Service accounts" class="service-accounts" caption="Service accounts of your organization" columns={["Name", "Description", "Role", "Workspaces", "Status", "Credentials", "Last used", "Created"]}>
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
        </DataTable>
      )}
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}
