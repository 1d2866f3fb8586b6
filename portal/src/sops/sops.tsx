import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { RowActions, useConfirming } from "../confirmation";
import { hasRole, useMe } from "../session";
import { DataTable, Empty, Notice, PageHeader, ProblemBanner, RefreshButton, Time, useAction, useResource } from "../ui";
import { useWorkspaceChoice, type Workspace } from "../ui/workspace-select";
import { Sop } from "../api/sop-upload";
import { formatBytes, UploadForm } from "./upload-form";

const EDITORS = ["AgentAdmin"] as const;
function kindOf(contentType: string): string {
  const type = contentType.split(";")[0]!.trim();
  if (type === "application/pdf") return "PDF";
  if (type.includes("wordprocessingml")) return "Word";
  if (type === "text/markdown") return "Markdown";
  if (type === "text/plain") return "Text";
  return type;
}

/**
 * A workspace's SOP documents (standard operating procedures analysts and agents follow): listed for
 * anyone who may act on the workspace, uploaded and deleted by `AgentAdmin` (and `Admin`).
 */
export function SopsPage() {
  const me = useMe();
  const { workspace, picker } = useWorkspaceChoice();
  return (
    <section>
      <PageHeader title="SOP documents" />
      <p class="lead">Standard operating procedures that analysts and the investigation agent follow: PDF, Word (.docx), Markdown or plain text, kept byte for byte.</p>
      {picker}
      {workspace && <WorkspaceSops key={workspace.id} workspace={workspace} mayEdit={hasRole(me, EDITORS)} />}
    </section>
  );
}

function WorkspaceSops({ workspace, mayEdit }: { workspace: Workspace; mayEdit: boolean }) {
  const path = { workspaceId: workspace.id };
  const list = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/sops", { params: { path } }))).data, [workspace.id]);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const remove = useAction(async (sop: Sop) => {
    await call(api.DELETE("/api/v2/portal/workspaces/{workspaceId}/sops/{sopId}", { params: { path: { ...path, sopId: sop.id }, header: csrf() } }));
    await list.reload();
    confirming.close();
    setNotice(`${sop.title} was deleted.`);
  });
  const confirming = useConfirming(remove);
  return (
    <>
      {mayEdit && (
        <UploadForm
          workspace={workspace}
          onUploaded={async (sop) => {
            setNotice(`${sop.title} (${sop.fileName}, ${formatBytes(sop.sizeBytes)}) was uploaded.`);
            await list.reload();
          }}
        />
      )}
      <section class="content-section" aria-labelledby="sop-list-heading">
        <div class="card-header">
          <h2 id="sop-list-heading">Documents of {workspace.name}</h2>
          <RefreshButton busy={list.loading} onRefresh={() => void list.reload()} />
        </div>
        {!mayEdit && <p class="muted">Agent administrators upload and delete documents.</p>}
        <ProblemBanner problem={list.problem} title="The documents could not be listed" />
        <ProblemBanner problem={remove.problem} title="The document was not deleted" />
        {notice && <Notice kind="success">{notice}</Notice>}
        {list.value && list.value.length === 0 && <Empty>No SOP document yet.</Empty>}
        {list.value && list.value.length > 0 && (
          <DataTable label={`SOP documents of ${workspace.name}`} class="sop-table" columns={["Document", "Type", "Size", "Uploaded", "Actions"]}>
            {list.value.map((sop) => (
              <tr key={sop.id} data-sop-id={sop.id}>
                <th scope="row" class="cell-main">
                  <strong>{sop.title}</strong>
                  <div class="muted">{sop.fileName}</div>
                  {sop.description && <div>{sop.description}</div>}
                </th>
                <td>{kindOf(sop.contentType)}</td>
                <td>
                  <span title={`${sop.sizeBytes} bytes`}>{formatBytes(sop.sizeBytes)}</span>
                </td>
                <td>
                  {sop.uploadedBy.name}, <Time at={sop.uploadedAt} />
                </td>
                <td>
                  <RowActions
                    asking={confirming.key === sop.id}
                    question={`Delete ${sop.title}?`}
                    confirmLabel="Yes, delete"
                    busyLabel="Deleting…"
                    busy={remove.busy}
                    onConfirm={() => void remove.run(sop)}
                    onCancel={confirming.cancel}
                  >
                    <a class="button button-secondary" href={`/api/v2/portal/workspaces/${workspace.id}/sops/${sop.id}/content`} download={sop.fileName} aria-label={`Download ${sop.title} (${sop.fileName})`}>
                      Download
                    </a>
                    {mayEdit && (
                      <button type="button" class="button button-secondary" aria-label={`Delete ${sop.title}`} {...confirming.opener(sop.id)}>
                        Delete…
                      </button>
                    )}
                  </RowActions>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>
  );
}

