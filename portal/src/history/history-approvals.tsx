import { useEffect, useState } from "preact/hooks";
import { api, call } from "../api/client";
import type { paths } from "../api/openapi";
import { ShowMore, usePages } from "../ui/paging";
import { useUrlFilters } from "../url-filters";
import { Badge, DataTable, Empty, Notice, ProblemBanner, Time } from "../ui";
import { HistoryHeader, useWorkspaceChoices, WorkspaceFilter } from "./history";
import { RequestFacts } from "../approvals/request-facts";

type Envelope = paths["/api/v2/portal/approvals/decided"]["get"]["responses"][200]["content"]["application/json"];
type DecidedApproval = Envelope["data"][number];

const PAGE_SIZE = 25;

function outcomeOf(r: DecidedApproval): { label: string; tone: "ok" | "bad" | "warn" } {
  if (r.decision?.expired) return { label: "Expired unanswered", tone: "warn" };
  if (r.decision?.outcome === "Denied") return { label: "Denied", tone: "bad" };
  return { label: "Approved", tone: "ok" };
}

export function runTone(status: string): "ok" | "warn" | "bad" | "neutral" {
  if (status === "Succeeded") return "ok";
  if (status === "Failed" || status === "Denied" || status === "Cancelled") return "bad";
  if (status === "PartiallySucceeded") return "warn";
  return "neutral";
}

/**
 * The approval requests decided in the workspaces the person sees, newest decision first: what was
 * asked and by whom, who decided and why, and what ran. The workspace filter lives in the URL.
 */
export function DecidedApprovalsPage() {
  const { params, key, apply } = useUrlFilters();
  const workspace = params.get("workspace") ?? "";
  const [draft, setDraft] = useState(workspace);
  useEffect(() => setDraft(workspace), [workspace]);
  const choices = useWorkspaceChoices();
  const { first, items, more, loadMore } = usePages(
    async (continuationToken) =>
      call(api.GET("/api/v2/portal/approvals/decided", { params: { query: { workspaceIds: workspace ? [workspace] : undefined, pageSize: PAGE_SIZE, continuationToken } } })),
    [key],
  );
  return (
    <section>
      <HistoryHeader lead="Approval requests that were approved, denied or expired in the workspaces you see, newest decision first, with what ran." />
      <form
        class="card filters-form"
        aria-label="Filter decided approvals"
        onSubmit={(e) => {
          e.preventDefault();
          apply({ workspace: draft });
        }}
      >
        <div class="filters">
          <WorkspaceFilter value={draft} onValue={setDraft} options={choices.options} />
          <div class="buttons">
            <button type="submit" class="button">
              Apply filters
            </button>
          </div>
        </div>
      </form>
      <ProblemBanner problem={first.problem} />
      <p class="muted" aria-live="polite">
        {first.loading ? "Loading…" : `${items.length} decided request(s) shown${more ? ", more available" : ""}`}
      </p>
      {!first.loading && !first.problem && items.length === 0 && <Empty>No approval request was decided in these workspaces.</Empty>}
      <ol class="cards" aria-label="Decided approval requests">
        {items.map((r) => (
          <li key={r.runId}>
            <DecidedCard request={r} />
          </li>
        ))}
      </ol>
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}

function DecidedCard({ request: r }: { request: DecidedApproval }) {
  const outcome = outcomeOf(r);
  const headingId = `decided-${r.runId}`;
  return (
    <article class="card approval" aria-labelledby={headingId} data-run-id={r.runId} data-outcome={outcome.label}>
      <header class="card-header">
        <h2 id={headingId}>{r.title}</h2>
        <Badge tone={outcome.tone}>{outcome.label}</Badge>
      </header>
      <dl class="facts">
        <RequestFacts request={r} />
        <div>
          <dt>Decided</dt>
          <dd>
            {r.decision?.by ?? "—"}, <Time at={r.decision?.at} />
          </dd>
        </div>
        {r.approvals.length > 1 && (
          <div>
            <dt>Approvals</dt>
            <dd>
              {r.approvals.map((a, i) => (
                <span>
                  {i > 0 ? " · " : ""}
                  {a.by} <Time at={a.at} />
                </span>
              ))}
            </dd>
          </div>
        )}
        <div>
          <dt>Run</dt>
          <dd>
            <Badge tone={runTone(r.run.status)}>{r.run.status}</Badge> <span class="muted">{r.run.summary}</span>
          </dd>
        </div>
      </dl>
      {r.decision?.comment && (
        <Notice>
          {r.decision.outcome === "Denied" ? "Reason" : "Comment"}: “{r.decision.comment}”
        </Notice>
      )}
      <h3>What ran</h3>
      <DataTable label={`Playbooks of ${r.title}`} columns={["#", "Playbook", "Acts on", "Outcome", "Finished", "Took"]}>
        {r.run.playbooks.map((step) => {
          const asked = r.playbooks.find((p) => p.sequence === step.sequence);
          return (
            <tr data-sequence={step.sequence} data-status={step.status}>
              <td>{step.sequence}</td>
              <td>{step.name}</td>
              <td>
                {asked ? asked.affectedEntity : "—"} {asked && <span class="muted">({asked.entityType})</span>}
              </td>
              <td>
                <Badge tone={runTone(step.status)}>{step.status}</Badge>
                {step.errorMessage && <div class="muted">{step.errorMessage}</div>}
              </td>
              <td>
                <Time at={step.finishingDate || null} />
              </td>
              <td>{step.executionTime || <span class="muted">—</span>}</td>
            </tr>
          );
        })}
      </DataTable>
    </article>
  );
}
