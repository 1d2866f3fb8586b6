import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { type Problem } from "../api/client";

/** The server's problem, in words, with its code and what to do. */
export function ProblemBanner(props: { problem: Problem | undefined; title?: string }) {
  const { problem } = props;
  if (!problem) return null;
  return (
    <div class="banner banner-error" role="alert">
      <strong>{props.title ?? problem.title ?? "Something went wrong"}</strong>
      {problem.detail && <p>{problem.detail}</p>}
      <p class="muted">
        <code>{problem.code}</code>
        {problem.status ? ` · HTTP ${problem.status}` : ""}
      </p>
    </div>
  );
}

/**
 * Whether a change was refused because the resource changed since the page read it: the `If-Match`
 * the page sent no longer matches (409 `CONFLICT` at no field; one at a field, such as a name already
 * taken, is that field's problem).
 */
export function isEditConflict(problem: Problem | undefined): boolean {
  return problem?.status === 409 && problem.code === "CONFLICT" && (problem.target === undefined || problem.target === "If-Match");
}

/**
 * A form's problem. A change made over someone else's is refused, and this says so with a button that
 * reads the resource again; until the person presses it their draft stays in the form. Any other
 * problem shows as a `ProblemBanner`.
 */
export function SaveProblem(props: { problem: Problem | undefined; title: string; onReload(): Promise<void> }) {
  const [reloading, setReloading] = useState(false);
  if (!isEditConflict(props.problem)) return <ProblemBanner problem={props.problem} title={props.title} />;
  return (
    <div class="banner banner-error edit-conflict" role="alert">
      <strong>{props.title}</strong>
      <p>Someone changed this since you opened it: reload to see their change, then make yours again.</p>
      <div class="buttons">
        <button
          type="button"
          class="button button-secondary"
          disabled={reloading}
          onClick={() => {
            setReloading(true);
            void props.onReload().finally(() => setReloading(false));
          }}
        >
          {reloading ? "Reloading…" : "Reload"}
        </button>
      </div>
    </div>
  );
}

export function Notice(props: { kind?: "success" | "info" | "warn"; children: ComponentChildren }) {
  return (
    <div class={`banner banner-${props.kind ?? "info"}`} role="status">
      {props.children}
    </div>
  );
}
