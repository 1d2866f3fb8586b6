import { useState } from "preact/hooks";
import { api } from "../api/client";
import { withEtag } from "../etag";
import { BASE, Link } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, Notice, PageHeader, ProblemBanner, Time, useResource } from "../ui";
import { READERS, MANAGERS, readerNotice } from "./model";
import { SecretBox } from "./account-fields";
import { ChangeForm, DeleteAccount } from "./account-change";
import { Credentials, AddCredential } from "./credentials";

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
