import { useEffect, useState } from "preact/hooks";
import { useSourceName } from "../session";
import { api, call } from "../api/client";
import type { paths } from "../api/openapi";
import { IncidentLink } from "../ui/incident-link";
import { ShowMore } from "../ui/paging";
import { useUrlFilters } from "../url-filters";
import { Badge, CheckboxFilter, DataTable, Empty, Field, Notice, ProblemBanner, Time, useAction, useResource } from "../ui";
import { HistoryHeader, useWorkspaceChoices, WorkspaceFilter } from "./history";
import { runTone } from "./history-approvals";

type Query = NonNullable<paths["/api/v2/portal/gamebooks/history"]["get"]["parameters"]["query"]>;
type Envelope = paths["/api/v2/portal/gamebooks/history"]["get"]["responses"][200]["content"]["application/json"];
type Run = Envelope["data"]["runs"][number];
type Status = Run["status"];
type Unavailable = Envelope["meta"]["unavailable"][number];

const STATUSES: Status[] = ["Pending", "Running", "Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"];

interface Filters {
  workspace: string;
  statuses: Status[];
  query: string;
}

function filtersOf(params: URLSearchParams): Filters {
  return {
    workspace: params.get("workspace") ?? "",
    statuses: params.getAll("status").filter((s): s is Status => (STATUSES as string[]).includes(s)),
    query: params.get("q") ?? "",
  };
}

/**
 * Every gamebook run of the workspaces the person sees, newest first, as the contract's
 * cross-workspace history pages them: filters in the URL, "Show more" with the page's token.
 */
export function RunHistoryPage() {
  const sourceName = useSourceName();
  const { params, key, apply } = useUrlFilters();
  const applied = filtersOf(params);
  const [draft, setDraft] = useState<Filters>(applied);
  useEffect(() => setDraft(filtersOf(params)), [key]);
  const choices = useWorkspaceChoices();
  const [runs, setRuns] = useState<Run[]>([]);
  const [next, setNext] = useState<{ page: number; token: string } | undefined>(undefined);
  const [unread, setUnread] = useState<Unavailable[]>([]);

  const read = async (page: number, pageToken?: string) => {
    const query: Query = {
      workspaces: applied.workspace ? [applied.workspace] : undefined,
      statuses: applied.statuses.length > 0 ? applied.statuses : undefined,
      query: applied.query.trim() || undefined,
      currentPage: page,
      pageToken,
    };
    const { data, pagination, meta } = await call(api.GET("/api/v2/portal/gamebooks/history", { params: { query } }));
    setRuns((before) => (page === 1 ? data.runs : [...before, ...data.runs]));
    setNext(pagination?.continuationToken ? { page: page + 1, token: pagination.continuationToken } : undefined);
    setUnread(meta.unavailable);
  };
  const first = useResource(() => read(1), [key]);
  const more = useAction(() => read(next!.page, next!.token));

  return (
    <section>
      <HistoryHeader lead="Gamebook runs of every workspace you see, newest first." />
      <form
        class="card filters-form"
        aria-label="Filter gamebook runs"
        onSubmit={(e) => {
          e.preventDefault();
          apply({ workspace: draft.workspace, status: draft.statuses, q: draft.query });
        }}
      >
        <div class="filters">
          <WorkspaceFilter value={draft.workspace} onValue={(workspace) => setDraft({ ...draft, workspace })} options={choices.options} />
          <Field label="Search" name="q" type="search" value={draft.query} onValue={(query) => setDraft({ ...draft, query })} problem={first.problem} placeholder="Run, incident or requester" />
        </div>
        <CheckboxFilter legend="Status" name="status" options={STATUSES} values={draft.statuses} onValues={(statuses) => setDraft({ ...draft, statuses })} />
        <div class="buttons">
          <button type="submit" class="button">
            Apply filters
          </button>
        </div>
      </form>
      <ProblemBanner problem={first.problem} />
      {unread.length > 0 && (
        <Notice kind="warn">
          <strong>Not every workspace could be read.</strong> The list shows what the others gave; refresh the page to try them again.
          <ul class="unread">
            {unread.map((u) => (
              <li data-workspace-id={u.workspaceId}>
                {u.workspaceName}: {u.code}
              </li>
            ))}
          </ul>
        </Notice>
      )}
      <p class="muted" aria-live="polite">
        {first.loading ? "Loading…" : `${runs.length} run(s) shown${next ? ", more available" : ""}`}
      </p>
      {!first.loading && !first.problem && runs.length === 0 && <Empty>No gamebook run matches these filters.</Empty>}
      {runs.length > 0 && (
        <DataTable label="Gamebook runs" class="runs" columns={["Run", "Status", "Incident", "Workspace", "Asked by", "Created"]}>
          {runs.map((r) => (
            <tr data-run-id={r.id} data-status={r.status} data-workspace-id={r.workspaceId}>
              <td>
                <strong>{r.title}</strong>
                {r.isAutoRun && <Badge>Automation rule</Badge>} {r.isRetryGamebook && <Badge>Retry</Badge>} {r.isRecover && <Badge>Undo</Badge>}
                <div class="muted">{r.summary}</div>
              </td>
              <td>
                <Badge tone={r.isQueued ? "warn" : runTone(r.status)}>{r.isQueued ? "Waiting for approval" : r.status}</Badge>
              </td>
              <td>
                <IncidentLink workspaceId={r.workspaceId} source={r.source} incident={{ id: r.incidentId, number: r.incidentNumber, title: r.incidentTitle }} />
                <div class="muted">{sourceName(r.source)}</div>
              </td>
              <td>{choices.names.get(r.workspaceId) ?? r.workspaceName}</td>
              <td>{r.displayName}</td>
              <td>
                <Time at={r.creationDate} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ShowMore more={next !== undefined} action={more} />
    </section>
  );
}
