import { useId, useRef, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { Confirmation, useConfirming } from "../confirmation";
import { hasRole, useMe } from "../session";
import { Empty, Field, Notice, PageHeader, ProblemBanner, RefreshButton, TableScroll, Time, useAction, useResource } from "../ui";
import { useWorkspaceChoice, type Workspace } from "../ui/workspace-select";

type SopList = paths["/api/v2/portal/workspaces/{workspaceId}/sops"]["get"]["responses"][200]["content"]["application/json"]["data"];
type Sop = SopList[number];

const EDITORS = ["AgentAdmin"] as const;
/** What the file input offers; the server judges the type from the bytes whatever the name says. */
const ACCEPT = ".pdf,.docx,.md,.markdown,.txt,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document,text/markdown,text/plain";

// Made on first use, not when the portal starts: the first Intl formatter costs the page its locale data.
let sizeFormat: Intl.NumberFormat | undefined;
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  sizeFormat ??= new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
  if (bytes < 1024 * 1024) return `${sizeFormat.format(bytes / 1024)} KiB`;
  return `${sizeFormat.format(bytes / (1024 * 1024))} MiB`;
}

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
          <TableScroll label={`SOP documents of ${workspace.name}`}>
            <table class="sop-table">
              <thead>
                <tr>
                  <th scope="col">Document</th>
                  <th scope="col">Type</th>
                  <th scope="col">Size</th>
                  <th scope="col">Uploaded</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
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
                      {confirming.key === sop.id ? (
                        <Confirmation
                          layout="inline"
                          question={`Delete ${sop.title}?`}
                          confirmLabel="Yes, delete"
                          busyLabel="Deleting…"
                          busy={remove.busy}
                          onConfirm={() => void remove.run(sop)}
                          onCancel={confirming.cancel}
                        />
                      ) : (
                        <div class="buttons buttons-tight">
                          <a class="button button-secondary" href={`/api/v2/portal/workspaces/${workspace.id}/sops/${sop.id}/content`} download={sop.fileName} aria-label={`Download ${sop.title} (${sop.fileName})`}>
                            Download
                          </a>
                          {mayEdit && (
                            <button type="button" class="button button-secondary" aria-label={`Delete ${sop.title}`} {...confirming.opener(sop.id)}>
                              Delete…
                            </button>
                          )}
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>
    </>
  );
}

interface Progress {
  loaded: number;
  total: number;
}

/** The problem of an upload's answer: the server's problem JSON, or one that says what happened. */
function problemOf(xhr: XMLHttpRequest): Problem {
  try {
    const body = JSON.parse(xhr.responseText) as Partial<Problem>;
    if (body && typeof body.code === "string") return { ...body, status: xhr.status, code: body.code };
  } catch {
    // Not JSON: described below.
  }
  return { status: xhr.status, code: "UNEXPECTED_RESPONSE", detail: `The service answered ${xhr.status}.` };
}

function titleOf(problem: Problem): string {
  if (problem.status === 413) return "The file is too large";
  if (problem.status === 415) return "This kind of file is not accepted";
  if (problem.status === 0 && problem.code === "UPLOAD_ABORTED") return "The upload was cancelled";
  return "The document was not uploaded";
}

/**
 * Uploads with `XMLHttpRequest`, whose `upload.onprogress` reports how much has been sent (fetch
 * cannot); the same headers as the typed client's changes: the CSRF token, and JSON answers.
 */
function upload(workspaceId: string, form: FormData, onProgress: (p: Progress) => void, xhrRef: { current: XMLHttpRequest | null }): Promise<Sop> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhrRef.current = xhr;
    xhr.open("POST", `/api/v2/portal/workspaces/${encodeURIComponent(workspaceId)}/sops`);
    xhr.withCredentials = true;
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("X-CSRF-Token", csrf()["X-CSRF-Token"]);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress({ loaded: e.loaded, total: e.total });
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve((JSON.parse(xhr.responseText) as { data: Sop }).data);
        } catch {
          reject(problemOf(xhr));
        }
      } else reject(problemOf(xhr));
    };
    xhr.onerror = () =>
      reject({
        status: 0,
        code: "NETWORK_ERROR",
        detail: "The connection closed before the service answered. If the file is large, it may be over the deployment's limit for SOP documents (10 MiB unless configured otherwise).",
      } satisfies Problem);
    xhr.onabort = () => reject({ status: 0, code: "UPLOAD_ABORTED", detail: "Nothing was stored." } satisfies Problem);
    xhr.send(form);
  });
}

function UploadForm({ workspace, onUploaded }: { workspace: Workspace; onUploaded(sop: Sop): Promise<void> }) {
  const fileId = useId();
  const progressId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const xhr = useRef<XMLHttpRequest | null>(null);
  const [file, setFile] = useState<File | undefined>(undefined);
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [progress, setProgress] = useState<Progress | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const fileError = problem && (problem.target === "file" || problem.errors?.file || problem.status === 413 || problem.status === 415) ? (problem.errors?.file?.join(" ") ?? problem.detail) : undefined;

  const submit = async () => {
    if (!file) {
      setProblem({ status: 0, code: "VALIDATION_ERROR", detail: "Choose a file to upload.", target: "file" });
      fileInput.current?.focus();
      return;
    }
    const form = new FormData();
    if (title.trim()) form.append("title", title.trim());
    if (description.trim()) form.append("description", description.trim());
    form.append("file", file, file.name);
    setBusy(true);
    setProblem(undefined);
    setProgress({ loaded: 0, total: file.size });
    try {
      const sop = await upload(workspace.id, form, setProgress, xhr);
      setFile(undefined);
      setTitle("");
      setDescription("");
      if (fileInput.current) fileInput.current.value = "";
      await onUploaded(sop);
    } catch (error) {
      setProblem(error as Problem);
    } finally {
      xhr.current = null;
      setBusy(false);
      setProgress(undefined);
    }
  };

  const percent = progress && progress.total > 0 ? Math.min(100, Math.round((progress.loaded / progress.total) * 100)) : 0;
  const progressText = progress ? `${percent}% (${formatBytes(progress.loaded)} of ${formatBytes(progress.total)})` : "";
  return (
    <section class="content-section" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload a document</h2>
      <form
        class="card upload"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <ProblemBanner problem={problem} title={problem ? titleOf(problem) : undefined} />
        <div class={`field${fileError ? " field-invalid" : ""}`}>
          <label for={fileId}>File</label>
          <input
            ref={fileInput}
            id={fileId}
            type="file"
            name="file"
            accept={ACCEPT}
            required
            disabled={busy}
            aria-invalid={fileError ? "true" : undefined}
            aria-describedby={`${fileId}-hint${fileError ? ` ${fileId}-error` : ""}`}
            onChange={(e) => {
              setFile((e.currentTarget as HTMLInputElement).files?.[0]);
              setProblem(undefined);
            }}
          />
          <p class="hint" id={`${fileId}-hint`}>
            PDF, Word (.docx), Markdown or plain UTF-8 text; the type is judged from the content. At most 10 MiB unless the deployment says otherwise.
            {file && ` Chosen: ${file.name}, ${formatBytes(file.size)}.`}
          </p>
          {fileError && (
            <p class="field-error" id={`${fileId}-error`}>
              {fileError}
            </p>
          )}
        </div>
        <Field label="Title (optional)" name="title" value={title} onValue={setTitle} problem={problem} maxLength={200} hint="Default: the file name without its extension." disabled={busy} />
        <Field label="Description (optional)" name="description" value={description} onValue={setDescription} problem={problem} maxLength={2000} multiline />
        {progress && (
          <div class="field">
            <label for={progressId}>Uploading {file?.name}</label>
            <progress id={progressId} class="progress" max={100} value={percent} aria-valuetext={progressText} />
            <p class="hint" aria-live="polite">
              {percent < 100 ? progressText : "Sent; the service is checking and storing it…"}
            </p>
          </div>
        )}
        <div class="buttons">
          <button type="submit" class="button" disabled={busy}>
            {busy ? "Uploading…" : "Upload"}
          </button>
          {busy && (
            <button type="button" class="button button-secondary" onClick={() => xhr.current?.abort()}>
              Cancel the upload
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
