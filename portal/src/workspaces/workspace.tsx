import { useState } from "preact/hooks";
import { api } from "../api/client";
import { withEtag } from "../etag";
import { takeFlash } from "../flash";
import { BASE, Link } from "../router";
import { hasRole, useMe } from "../session";
import { Notice, PageHeader, ProblemBanner, Time, useResource } from "../ui";
import { ApprovalPolicySection } from "./approval-policy";
import { IntegrationsSection } from "./integrations";
import { Offboarding } from "./offboarding";
import { PreAuthorizationsSection } from "./pre-authorizations";
import { SettingsForm } from "./settings-form";
import { SlaPolicySection } from "./sla-policy";
import { SourcesTable } from "./sources-table";
import { readOrganizations, WORKSPACE_ADMIN } from "./workspace-model";

/** One workspace: its settings and sources, integrations and approval policy, each changed on its own; and offboarding. */
export function WorkspacePage({ params }: { params: Record<string, string> }) {
  const me = useMe();
  const workspaceId = params.workspaceId!;
  const path = { workspaceId };
  const [notice, setNotice] = useState<string | undefined>(takeFlash);
  const workspace = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}", { params: { path } })).then((read) => ({ ...read, value: read.value.data })), [workspaceId]);
  // Read again at the person's request (after a refused change): the settings form starts over from what the server holds.
  const [fresh, setFresh] = useState(0);
  const organizations = useResource(readOrganizations, []);
  const canChange = hasRole(me, WORKSPACE_ADMIN);
  const w = workspace.value?.value;
  const organization = organizations.value?.find((o) => o.id === w?.accountId);

  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/workspaces`}>Organizations and workspaces</Link>
      </p>
      <PageHeader title={w ? `Workspace ${w.name}` : "Workspace"} />
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={workspace.problem} title="The workspace could not be read" />
      {workspace.loading && !w && <p class="muted">Loading the workspace…</p>}
      {w && (
        <>
          <dl class="facts">
            <div>
              <dt>Organization</dt>
              <dd>{organization?.name ?? w.accountId}</dd>
            </div>
            <div>
              <dt>Directory tenant</dt>
              <dd>
                <code>{w.tenantId}</code>
              </dd>
            </div>
            <div>
              <dt>Workspace id</dt>
              <dd>
                <code>{w.id}</code>
              </dd>
            </div>
            <div>
              <dt>Your role</dt>
              <dd>{w.workspaceRole ?? `Organization-wide (${me.organizationalRole})`}</dd>
            </div>
            <div>
              <dt>Onboarded</dt>
              <dd>
                <Time at={w.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Last changed</dt>
              <dd>
                <Time at={w.lastModifiedAt} />
              </dd>
            </div>
          </dl>
          <SourcesTable workspace={w} />
          {canChange && (
            <SettingsForm
              workspace={w}
              etag={workspace.value?.etag}
              key={`${w.id}:${w.lastModifiedAt}:${fresh}`}
              onReload={async () => {
                setNotice(undefined);
                await workspace.reload();
                setFresh((n) => n + 1);
              }}
              onSaved={(saved, etag) => {
                workspace.set({ value: saved, etag });
                setNotice(`The settings of ${saved.name} are saved.`);
              }}
            />
          )}
          <IntegrationsSection workspaceId={w.id} canChange={canChange} />
          {/* The policy is kept in the workspace's record: saving it gives the record a new version, which the settings form sends next. */}
          <ApprovalPolicySection workspaceId={w.id} canChange={canChange} onSaved={() => void workspace.reload()} />
          <SlaPolicySection workspaceId={w.id} canChange={canChange} onSaved={() => void workspace.reload()} />
          {/* The workspace's own organization waives its own policy: its Owner of the workspace, or its Admin. */}
          <PreAuthorizationsSection
            workspaceId={w.id}
            canChange={me.accountId === w.accountId && (me.organizationalRole === "Admin" || me.workspaceRoles.some((r) => r.workspaceId === w.id && r.role === "Owner"))}
          />
          {canChange && <Offboarding workspace={w} />}
        </>
      )}
    </section>
  );
}
