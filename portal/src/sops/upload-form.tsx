import { useId, useRef, useState } from "preact/hooks";
import { type Problem } from "../api/client";
import { Field, ProblemBanner } from "../ui";
import { type Workspace } from "../ui/workspace-select";
import { Sop, Progress, upload } from "../api/sop-upload";

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

export function titleOf(problem: Problem): string {
  if (problem.status === 413) return "The file is too large";
  if (problem.status === 415) return "This kind of file is not accepted";
  if (problem.status === 0 && problem.code === "UPLOAD_ABORTED") return "The upload was cancelled";
  return "The document was not uploaded";
}

export function UploadForm({ workspace, onUploaded }: { workspace: Workspace; onUploaded(sop: Sop): Promise<void> }) {
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
