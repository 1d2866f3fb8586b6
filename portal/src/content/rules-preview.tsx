import { useEffect, useRef, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import { asProblem, Badge, DataTable, Field, ProblemBanner } from "../ui";
import { type Workspace } from "../ui/workspace-select";
import { RuleInput, Preview, PREVIEW_DEBOUNCE_MS } from "./types";

export function PreviewSection({ workspace, draft }: { workspace: Workspace; draft: RuleInput[] | undefined }) {
  const [title, setTitle] = useState("");
  const [preview, setPreview] = useState<Preview | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    if (!title.trim()) {
      setPreview(undefined);
      setProblem(undefined);
      setBusy(false);
      return;
    }
    setBusy(true);
    const timer = setTimeout(() => {
      call(
        api.POST("/api/v2/portal/workspaces/{workspaceId}/gamebook-rules/preview", {
          params: { path: { workspaceId: workspace.id }, header: csrf() },
          body: draft ? { title, rules: draft } : { title },
        }),
      )
        .then((answer) => {
          if (mine !== generation.current) return;
          setPreview(answer.data);
          setProblem(undefined);
        })
        .catch((error: unknown) => {
          if (mine !== generation.current) return;
          setPreview(undefined);
          setProblem(asProblem(error));
        })
        .finally(() => {
          if (mine === generation.current) setBusy(false);
        });
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [title, draft, workspace.id]);

  const matched = preview && (preview.recommendations.length > 0 || preview.skipped.length > 0);
  const rulesMatched = preview ? [...new Map([...preview.recommendations, ...preview.skipped].map((x) => [x.because.ruleIndex, x.because])).values()] : [];
  let summary = "";
  if (busy) summary = "Looking for matching rules…";
  else if (preview && !matched) summary = "No rule matches this title.";
  else if (preview) summary = `${rulesMatched.length} rule(s) match; ${preview.recommendations.length} playbook(s) recommended.`;
  return (
    <section class="content-section" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Which playbooks match this title</h2>
      <Field
        label="Incident title"
        name="title"
        type="search"
        value={title}
        onValue={setTitle}
        maxLength={1000}
        autoComplete="off"
        problem={problem}
        hint={draft ? "Tried against your unsaved rules above." : "Tried against the saved rules, as a run on such an incident would be."}
      />
      <p aria-live="polite" class={preview && !matched ? "empty" : "muted"} data-preview-summary>
        {summary}
      </p>
      <ProblemBanner problem={problem} title="The preview did not run" />
      {preview && matched && (
        <>
          <h3>Matching rules</h3>
          <ul class="plain">
            {rulesMatched.map((b) => (
              <li key={b.ruleIndex}>
                Rule {b.ruleIndex + 1}: <code>{b.pattern}</code>
                {b.wildcards.length > 0 && <span class="muted"> · * covered {b.wildcards.map((w) => `“${w}”`).join(", ")}</span>}
                <span class="muted"> · specificity {b.specificity}</span>
              </li>
            ))}
          </ul>
          {preview.recommendations.length > 0 && (
            <DataTable label="Recommended playbooks" columns={["#", "Playbook", "Acts on", "Admin required", "Because of"]}>
              {preview.recommendations.map((r, i) => (
                <tr key={r.playbookId}>
                  <td>{i + 1}</td>
                  <th scope="row">{r.playbookName}</th>
                  <td>{r.entityType}</td>
                  <td>{r.isAdminRequired ? <Badge tone="warn">Yes</Badge> : "No"}</td>
                  <td>
                    Rule {r.because.ruleIndex + 1}: <code>{r.because.pattern}</code>
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          {preview.skipped.length > 0 && (
            <>
              <h3>Matched but not offered</h3>
              <ul>
                {preview.skipped.map((s) => (
                  <li key={`${s.because.ruleIndex}-${s.playbookId}`}>
                    <code>{s.playbookId}</code> of rule {s.because.ruleIndex + 1}: {s.reason === "SwitchedOff" ? "switched off" : "no longer in the catalogue"}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
