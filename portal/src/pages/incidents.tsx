import { useEffect, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { IncidentLink } from "../incident-link";
import { ShowMore } from "../paging";
import { useMe } from "../session";
import { useUrlFilters } from "../url-filters";
import { Badge, CheckboxFilter, Empty, Field, Notice, PageHeader, ProblemBanner, Select, TableScroll, Time, useAction, useResource } from "../ui";
import { BulkActions } from "./incident-bulk";
import { SharedIndicatorsPanel } from "./shared-indicators";

type SearchBody = paths["/api/v2/portal/incidents/search"]["post"]["requestBody"]["content"]["application/json"];
type SearchEnvelope = paths["/api/v2/portal/incidents/search"]["post"]["responses"][200]["content"]["application/json"];
type Page = SearchEnvelope["data"];
type Unavailable = SearchEnvelope["meta"]["unavailable"][number];
export type IncidentSummary = Page["incidents"][number];
type Severity = NonNullable<SearchBody["severities"]>[number];
type Status = NonNullable<SearchBody["statuses"]>[number];
type SourceName = NonNullable<SearchBody["sources"]>[number];
type TimeFilter = NonNullable<SearchBody["timeFilterSelection"]>["type"];

const SEVERITIES: Severity[] = ["High", "Medium", "Low", "Informational"];
const STATUSES: Status[] = ["New", "Active", "Closed"];
const SOURCES: SourceName[] = ["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF", "SourceG"];
const TIMES: { value: TimeFilter | ""; label: string }[] = [
  { value: "", label: "Any time" },
  { value: "ThreeHours", label: "Last 3 hours" },
  { value: "TwelveHours", label: "Last 12 hours" },
  { value: "TwentyFourHours", label: "Last 24 hours" },
  { value: "FortyEightHours", label: "Last 48 hours" },
];

export function severityTone(severity: string): "bad" | "warn" | "neutral" {
  return severity === "High" ? "bad" : severity === "Medium" ? "warn" : "neutral";
}

interface Filters {
  /** A customer (or the person's own organization): its account id, "" for all. */
  account: string;
  workspace: string;
  severities: Severity[];
  statuses: Status[];
  sources: SourceName[];
  time: TimeFilter | "";
  query: string;
}

/** What the list shows before a person chooses: what is still to be worked. */
const OPEN_STATUSES: Status[] = ["New", "Active"];
/** In the URL, no status filter at all: every status (no `status` parameter means the open ones). */
const ANY_STATUS = "any";

const pick = <T extends string>(values: string[], allowed: readonly T[]): T[] => values.filter((v): v is T => (allowed as readonly string[]).includes(v));

/** The filters a URL names: a reload or a shared link shows the same list. */
function filtersOf(params: URLSearchParams): Filters {
  const statuses = params.getAll("status");
  const time = params.get("time") ?? "";
  return {
    account: params.get("customer") ?? "",
    workspace: params.get("workspace") ?? "",
    severities: pick(params.getAll("severity"), SEVERITIES),
    statuses: statuses.length === 0 ? OPEN_STATUSES : pick(statuses, STATUSES),
    sources: pick(params.getAll("source"), SOURCES),
    time: TIMES.some((t) => t.value === time) ? (time as Filters["time"]) : "",
    query: params.get("q") ?? "",
  };
}

const keyOf = (u: Unavailable) => `${u.workspaceId}/${u.source ?? ""}`;
const incidentKey = (i: IncidentSummary) => `${i.incident.workspaceId}/${i.source}/${i.incident.id}`;

/** The workspaces (and sources) the listing could not read: the rest of the list is still shown. */
function UnreadWorkspaces(props: { entries: Unavailable[]; more: boolean }) {
  return (
    <Notice kind="warn">
      <strong>Not every workspace could be read.</strong> The list shows what the others gave.
      <ul class="unread">
        {props.entries.map((u) => (
          <li data-workspace-id={u.workspaceId}>
            {u.workspaceName}
            {u.source ? `, ${u.source}` : ""}: {u.code}
            {u.gaveUp ? " (given up for this search)" : u.retryAfterSeconds ? ` (next try in ${u.retryAfterSeconds} s)` : ""}
          </li>
        ))}
      </ul>
      {props.more && <p>"Show more" tries them again.</p>}
    </Notice>
  );
}

/**
 * Incidents across every workspace the person sees, with the contract's filters and page tokens: the
 * first page on demand, then "Show more" sends the page's tokens back until no more are available.
 * A person with a role on a workspace (Analyst or Owner: both may act) selects its incidents and acts
 * on them together; the others read.
 */
export function IncidentsPage() {
  const me = useMe();
  const actsOn = new Set(me.workspaceRoles.map((r) => r.workspaceId));
  const canAct = actsOn.size > 0;
  const [selected, setSelected] = useState<Map<string, IncidentSummary>>(new Map());
  const workspaces = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces"))).data, []);
  const names = new Map((workspaces.value ?? []).map((w) => [w.id, w.name]));
  const organizations = useResource(async () => (await call(api.GET("/api/v2/portal/organizations"))).data, []);
  const { params, key, apply } = useUrlFilters();
  const applied = filtersOf(params);
  const [draft, setDraft] = useState<Filters>(applied);
  useEffect(() => setDraft(filtersOf(params)), [key]);
  const [incidents, setIncidents] = useState<IncidentSummary[]>([]);
  const [tokens, setTokens] = useState<Page["sourcePageTokens"]>([]);
  const [more, setMore] = useState(false);
  // What the listing could not read so far, by workspace and source: the latest word on each.
  const [unread, setUnread] = useState<Map<string, Unavailable>>(new Map());

  const bodyOf = (f: Filters, first: boolean): SearchBody => ({
    ...(f.account ? { accountIds: [f.account] } : {}),
    ...(f.workspace ? { workspaceIds: [f.workspace] } : {}),
    severities: f.severities,
    statuses: f.statuses,
    sources: f.sources,
    isFirstCall: first,
    workspacePageTokens: first ? [] : tokens,
    ...(f.time ? { timeFilterSelection: { type: f.time } } : {}),
    ...(f.query.trim() ? { query: f.query.trim() } : {}),
  });
  const search = async (f: Filters, first: boolean) => {
    const { data: page, meta } = await call(api.POST("/api/v2/portal/incidents/search", { params: { header: csrf() }, body: bodyOf(f, first) }));
    setIncidents((list) => (first ? page.incidents : [...list, ...page.incidents]));
    // A new list (other filters, or read again after a change) starts with nothing selected: what was
    // selected was selected at versions that may be gone.
    if (first) setSelected(new Map());
    setUnread((known) => {
      const next = new Map(first ? [] : known);
      // A stream read since drops out; one reported again replaces what was known of it.
      for (const key of next.keys()) if (!next.get(key)!.gaveUp && !meta.unavailable.some((u) => keyOf(u) === key)) next.delete(key);
      for (const u of meta.unavailable) next.set(keyOf(u), u);
      return next;
    });
    setTokens(page.sourcePageTokens);
    setMore(page.moreIncidentsAvailable);
  };
  const first = useResource(() => search(applied, true), [key]);
  const next = useAction(() => search(applied, false));
  // Only incidents of workspaces the person holds a role on can be selected: elsewhere they read.
  const selectable = canAct ? incidents.filter((i) => actsOn.has(i.incident.workspaceId)) : [];
  const select = (incident: IncidentSummary, on: boolean) =>
    setSelected((before) => {
      const after = new Map(before);
      if (on) after.set(incidentKey(incident), incident);
      else after.delete(incidentKey(incident));
      return after;
    });
  const selectAll = (on: boolean) => setSelected(on ? new Map(selectable.map((i) => [incidentKey(i), i])) : new Map());

  return (
    <section>
      <PageHeader title="Incidents" />
      <p class="lead">Every workspace you may see, across customers and sources.</p>
      <SharedIndicatorsPanel />
      <form
        class="card filters-form"
        aria-label="Filter incidents"
        onSubmit={(e) => {
          e.preventDefault();
          apply({
            customer: draft.account,
            workspace: draft.workspace,
            severity: draft.severities,
            status: draft.statuses.length > 0 ? draft.statuses : [ANY_STATUS],
            source: draft.sources,
            time: draft.time,
            q: draft.query,
          });
        }}
      >
        <div class="filters">
          {(organizations.value?.length ?? 0) > 1 && (
            <Select
              label="Customer"
              name="customer"
              value={draft.account}
              options={[{ value: "", label: "All customers" }, ...(organizations.value ?? []).map((o) => ({ value: o.id, label: o.name }))]}
              onValue={(account) => setDraft({ ...draft, account, workspace: "" })}
            />
          )}
          <Select
            label="Workspace"
            name="workspace"
            value={draft.workspace}
            options={[
              { value: "", label: "All workspaces" },
              ...(workspaces.value ?? []).filter((w) => !draft.account || w.accountId === draft.account).map((w) => ({ value: w.id, label: w.name })),
              // A workspace named in a shared link that this person does not see stays shown as chosen, by its id.
              ...(draft.workspace && !(workspaces.value ?? []).some((w) => w.id === draft.workspace) ? [{ value: draft.workspace, label: draft.workspace }] : []),
            ]}
            onValue={(workspace) => setDraft({ ...draft, workspace })}
          />
          <Field label="Search" name="query" type="search" value={draft.query} onValue={(query) => setDraft({ ...draft, query })} problem={first.problem} placeholder="Title, number or entity" />
          <Select label="Time" name="time" value={draft.time} options={TIMES} onValue={(time) => setDraft({ ...draft, time: time as Filters["time"] })} />
        </div>
        <CheckboxFilter legend="Severity" name="severity" options={SEVERITIES} values={draft.severities} onValues={(severities) => setDraft({ ...draft, severities })} />
        <CheckboxFilter legend="Status" name="status" options={STATUSES} values={draft.statuses} onValues={(statuses) => setDraft({ ...draft, statuses })} />
        <CheckboxFilter legend="Source" name="source" options={SOURCES} values={draft.sources} onValues={(sources) => setDraft({ ...draft, sources })} />
        <div class="buttons">
          <button type="submit" class="button">
            Apply filters
          </button>
        </div>
      </form>
      <ProblemBanner problem={first.problem} />
      {unread.size > 0 && <UnreadWorkspaces entries={[...unread.values()]} more={more} />}
      <p class="muted" aria-live="polite">
        {first.loading ? "Loading…" : `${incidents.length} incident(s) shown${more ? ", more available" : ""}`}
      </p>
      {!first.loading && !first.problem && incidents.length === 0 && <Empty>No incident matches these filters.</Empty>}
      {canAct && (
        <BulkActions
          selected={[...selected.values()]}
          workspaceNames={names}
          onDone={() => void first.reload()}
          onClear={() => setSelected(new Map())}
        />
      )}
      {incidents.length > 0 && (
        <TableScroll label="Incidents">
          <table class="incidents">
            <thead>
              <tr>
                {canAct && (
                  <th scope="col" class="select-cell">
                    <input
                      type="checkbox"
                      aria-label="Select all incidents shown"
                      data-select-all=""
                      checked={selectable.length > 0 && selectable.every((i) => selected.has(incidentKey(i)))}
                      disabled={selectable.length === 0}
                      onChange={(e) => selectAll((e.currentTarget as HTMLInputElement).checked)}
                    />
                  </th>
                )}
                <th scope="col">Incident</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Workspace</th>
                <th scope="col">Assignee</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {incidents.map((i) => (
                <tr data-workspace-id={i.incident.workspaceId} data-incident-id={i.incident.id}>
                  {canAct && (
                    <td class="select-cell">
                      {actsOn.has(i.incident.workspaceId) ? (
                        <input
                          type="checkbox"
                          aria-label={`Select #${i.incident.number} ${i.incident.title}`}
                          data-select=""
                          checked={selected.has(incidentKey(i))}
                          onChange={(e) => select(i, (e.currentTarget as HTMLInputElement).checked)}
                        />
                      ) : (
                        <span class="visually-hidden">You hold no role on this workspace</span>
                      )}
                    </td>
                  )}
                  <td>
                    <IncidentLink workspaceId={i.incident.workspaceId} source={i.source} incident={i.incident} />
                    <div class="muted">{i.source}</div>
                  </td>
                  <td>
                    <Badge tone={severityTone(i.incident.severity)}>{i.incident.severity}</Badge>
                  </td>
                  <td>{i.serviceStatus}</td>
                  <td>{names.get(i.incident.workspaceId) ?? i.incident.workspaceId}</td>
                  <td>{i.assignee?.name ?? i.assignee?.email ?? <span class="muted">Unassigned</span>}</td>
                  <td>
                    <Time at={i.lastModificationTime} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <ShowMore more={more} action={next} />
    </section>
  );
}
