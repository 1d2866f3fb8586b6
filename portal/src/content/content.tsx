import { useState } from "preact/hooks";
import { api } from "../api/client";
import { withEtag } from "../etag";
import { hasRole, useMe } from "../session";
import { Notice, PageHeader, useResource } from "../ui";
import { useWorkspaceChoice, type Workspace } from "../ui/workspace-select";
import { RuleInput, READERS, EDITORS } from "./types";
import { PreviewSection } from "./rules-preview";
import { RulesSection } from "./rules-section";
import { CatalogueSection } from "./catalogue-section";

/**
 * The playbook catalogue of a workspace, its gamebook rules (incident title patterns and the
 * playbooks each recommends) and a preview of which playbooks an incident title is offered.
 * `OrgContentOperator` reads; `OrgContentAdmin` (and `Admin`) changes.
 */
export function ContentPage() {
  const me = useMe();
  const { workspace, picker } = useWorkspaceChoice();
  const mayRead = hasRole(me, READERS);
  const mayEdit = hasRole(me, EDITORS);
  return (
    <section>
      <PageHeader title="Playbooks & rules" />
      <p class="lead">A workspace's playbook catalogue, the gamebook rules that recommend its playbooks for incident titles, and which playbooks a title would be offered.</p>
      {!mayRead ? (
        <Notice>The playbook catalogue and the gamebook rules are for content operators and content administrators; your role is {me.organizationalRole}.</Notice>
      ) : (
        <>
          {picker}
          {workspace && <WorkspaceContent key={workspace.id} workspace={workspace} mayEdit={mayEdit} />}
        </>
      )}
    </section>
  );
}

function WorkspaceContent({ workspace, mayEdit }: { workspace: Workspace; mayEdit: boolean }) {
  const path = { workspaceId: workspace.id };
  const catalogue = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}/playbooks", { params: { path } })), [workspace.id]);
  const rules = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}/gamebook-rules", { params: { path } })), [workspace.id]);
  const [draft, setDraft] = useState<RuleInput[] | undefined>(undefined);
  const reloadBoth = async () => {
    await Promise.all([catalogue.reload(), rules.reload()]);
  };
  return (
    <>
      <CatalogueSection workspace={workspace} catalogue={catalogue.value?.value.data} etag={catalogue.value?.etag} problem={catalogue.problem} loading={catalogue.loading} mayEdit={mayEdit} onChanged={reloadBoth} />
      <RulesSection
        workspace={workspace}
        rules={rules.value?.value.data}
        etag={rules.value?.etag}
        problem={rules.problem}
        playbooks={catalogue.value?.value.data.playbooks ?? []}
        mayEdit={mayEdit}
        onChanged={reloadBoth}
        onDraft={setDraft}
      />
      <PreviewSection workspace={workspace} draft={draft} />
    </>
  );
}
