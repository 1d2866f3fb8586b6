import { useEffect, useState } from "preact/hooks";
import { api, call, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { IncidentLink } from "../ui/incident-link";
import { ShowMore } from "../ui/paging";
import { WindowedRows } from "../ui/windowed-rows";
import { useMe, useSourceName } from "../session";
import { useUrlFilters } from "../url-filters";
import { Badge, CheckboxFilter, Empty, Field, Notice, PageHeader, ProblemBanner, Select, TableScroll, Time, useResource } from "../ui";
import { BulkActions } from "./incident-bulk";
import { useIncidentQueue, type IncidentSummary, type QueueQuery, type Unavailable } from "./incident-queue";
import { SharedIndicatorsPanel } from "./shared-indicators";

export type { IncidentSummary } from "./incident-queue";

type Severity = NonNullable<QueueQuery["severities"]>[number];
type Status = NonNullable<QueueQuery["statuses"]>[number];
type SourceName = NonNullable<QueueQuery["sources"]>[number];
type TimeFilter = NonNullable<QueueQuery["timeFilterSelection"]>["type"];
type Workspaces = paths["/api/v2/portal/workspaces"]["get"]["responses"][200]["content"]["application/json"]["data"];
type Organizations = paths["/api/v2/portal/organizations"]["get"]["responses"][200]["content"]["application/json"]["data"];

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
/** The queue's orders; in the URL, none means newest first. */
const ORDERS = [
  { value: "", label: "Newest first" },
  { value: "severity", label: "Severity, then newest" },
] as const;
/** Whose incidents; in the URL `me` stands for whoever opens the link, so a shared link shows each person their own. */
const ASSIGNEES = [
  { value: "", label: "Anyone" },
  { value: "me", label: "Assigned to me" },
  { value: "unassigned", label: "Unassigned" },
] as const;

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
  order: (typeof ORDERS)[number]["value"];
  assignee: (typeof ASSIGNEES)[number]["value"];
}

/** What the list shows before a person chooses: what is still to be worked. */
const OPEN_STATUSES: Status[] = ["New", "Active"];
/** In the URL, no status filter at all: every status (no `status` parameter means the open ones). */
const ANY_STATUS = "any";

const pick = <T extends string>(values: string[], allowed: readonly T[]): T[] => values.filter((v): v is T => (allowed as readonly string[]).includes(v));
/** The value of a single-choice filter if it is one of the choices, else the default (the first, ""). */
const oneOf = <T extends string>(value: string | null, choices: readonly { value: T }[]): T => choices.find((c) => c.value === value)?.value ?? choices[0]!.value;

/** The filters a URL names: a reload or a shared link shows the same list. */
function filtersOf(params: URLSearchParams): Filters {
  const statuses = params.getAll("status");
  return {
    account: params.get("customer") ?? "",
    workspace: params.get("workspace") ?? "",
    severities: pick(params.getAll("severity"), SEVERITIES),
    statuses: statuses.length === 0 ? OPEN_STATUSES : pick(statuses, STATUSES),
    sources: pick(params.getAll("source"), SOURCES),
    time: oneOf(params.get("time"), TIMES),
    query: params.get("q") ?? "",
    order: oneOf(params.get("order"), ORDERS),
    assignee: oneOf(params.get("assignee"), ASSIGNEES),
  };
}

/** The search the filters stand for; `myEmail` is the person looking, for "Assigned to me". */
function queryOf(f: Filters, myEmail: string): QueueQuery {
  return {
    ...(f.account ? { accountIds: [f.account] } : {}),
    ...(f.workspace ? { workspaceIds: [f.workspace] } : {}),
    severities: f.severities,
    statuses: f.statuses,
    sources: f.sources,
    order: f.order === "severity" ? "severity" : "newest",
    ...(f.assignee === "me" ? { assigneeEmails: [myEmail] } : f.assignee === "unassigned" ? { includeUnassigned: true } : {}),
    ...(f.time ? { timeFilterSelection: { type: f.time } } : {}),
    ...(f.query.trim() ? { query: f.query.trim() } : {}),
  };
}

const incidentKey = (i: IncidentSummary) => `${i.incident.workspaceId}/${i.source}/${i.incident.id}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The workspaces (and sources) the listing could not read: the rest of the list is still shown. */
function UnreadWorkspaces(props: { entries: Unavailable[]; more: boolean }) {
  const sourceName = useSourceName();
  return (
    <Notice kind="warn">
      <strong>Not every workspace could be read.</strong> The list shows what the others gave.
      <ul class="unread">
        {props.entries.map((u) => (
          <li data-workspace-id={u.workspaceId}>
            {u.workspaceName}
            {u.source ? `, ${sourceName(u.source)}` : ""}: {u.code}
            {u.gaveUp ? " (given up for this search)" : u.retryAfterSeconds ? ` (next try in ${u.retryAfterSeconds} s)` : ""}
          </li>
        ))}
      </ul>
      {props.more && <p>"Show more" tries them again.</p>}
    </Notice>
  );
}

/** Where the list stands, for everyone and for screen readers (a polite live region). */
function QueueStatus(props: { loading: boolean; reading: number; shown: number; more: boolean; unreadStreams: number }) {
  const text =
    props.reading > 0
      ? `Reading ${plural(props.reading, "more workspace source")}…`
      : props.loading
        ? "Loading…"
        : `${props.shown} incident(s) shown${props.more ? ", more available" : ""}` +
          // A page stops asking after a while: what it did not reach yet is still to come.
          (props.unreadStreams > 0 ? `; ${plural(props.unreadStreams, "workspace source")} not read yet` : "");
  return (
    <p class="muted" aria-live="polite" data-queue-status="">
      {text}
    </p>
  );
}

/**
 * The filters' form: a draft until "Apply filters", which puts them in the URL (the list follows the
 * URL). The draft follows the URL when it changes (back, a link).
 */
function IncidentFilters(props: { params: URLSearchParams; urlKey: string; organizations: Organizations; workspaces: Workspaces; problem: Problem | undefined; onApply(f: Filters): void }) {
  const sourceName = useSourceName();
  const me = useMe();
  const { organizations, workspaces } = props;
  const [draft, setDraft] = useState<Filters>(filtersOf(props.params));
  useEffect(() => setDraft(filtersOf(props.params)), [props.urlKey]);
  return (
    <form
      class="card filters-form"
      aria-label="Filter incidents"
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(draft);
      }}
    >
      <div class="filters">
        {/* Known from the session, not from the organizations' answer: a field that came in with it would move the form. */}
        {me.organizationAccountIds.length > 1 && (
          <Select
            label="Customer"
            name="customer"
            value={draft.account}
            options={[{ value: "", label: "All customers" }, ...organizations.map((o) => ({ value: o.id, label: o.name }))]}
            onValue={(account) => setDraft({ ...draft, account, workspace: "" })}
          />
        )}
        <Select
          label="Workspace"
          name="workspace"
          value={draft.workspace}
          options={[
            { value: "", label: "All workspaces" },
            ...workspaces.filter((w) => !draft.account || w.accountId === draft.account).map((w) => ({ value: w.id, label: w.name })),
            // A workspace named in a shared link that this person does not see stays shown as chosen, by its id.
            ...(draft.workspace && !workspaces.some((w) => w.id === draft.workspace) ? [{ value: draft.workspace, label: draft.workspace }] : []),
          ]}
          onValue={(workspace) => setDraft({ ...draft, workspace })}
        />
        <Field label="Search" name="query" type="search" value={draft.query} onValue={(query) => setDraft({ ...draft, query })} problem={props.problem} placeholder="Title, number or entity" />
        <Select label="Time" name="time" value={draft.time} options={TIMES} onValue={(time) => setDraft({ ...draft, time: oneOf(time, TIMES) })} />
        <Select label="Assignee" name="assignee" value={draft.assignee} options={ASSIGNEES} onValue={(assignee) => setDraft({ ...draft, assignee: oneOf(assignee, ASSIGNEES) })} />
        <Select label="Sort" name="order" value={draft.order} options={ORDERS} onValue={(order) => setDraft({ ...draft, order: oneOf(order, ORDERS) })} />
      </div>
      <CheckboxFilter legend="Severity" name="severity" options={SEVERITIES} values={draft.severities} onValues={(severities) => setDraft({ ...draft, severities })} />
      <CheckboxFilter legend="Status" name="status" options={STATUSES} values={draft.statuses} onValues={(statuses) => setDraft({ ...draft, statuses })} />
      <CheckboxFilter legend="Source" name="source" options={SOURCES} labelOf={sourceName} values={draft.sources} onValues={(sources) => setDraft({ ...draft, sources })} />
      <div class="buttons">
        <button type="submit" class="button">
          Apply filters
        </button>
      </div>
    </form>
  );
}

/**
 * The incidents shown, in the queue's order. Where the person acts (`actsOn`: workspaces they hold a
 * role on), each row has a checkbox for the bulk actions; elsewhere they read.
 */
function IncidentTable(props: {
  incidents: IncidentSummary[];
  workspaceNames: Map<string, string>;
  canAct: boolean;
  actsOn: Set<string>;
  selected: Map<string, IncidentSummary>;
  onSelect(incident: IncidentSummary, on: boolean): void;
  onSelectAll(on: boolean): void;
}) {
  const sourceName = useSourceName();
  const { incidents, canAct, actsOn, selected } = props;
  const selectable = canAct ? incidents.filter((i) => actsOn.has(i.incident.workspaceId)) : [];
  return (
    <TableScroll label="Incidents">
      <table class="incidents" aria-rowcount={incidents.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            {canAct && (
              <th scope="col" class="select-cell">
                <input
                  type="checkbox"
                  aria-label="Select all incidents shown"
                  data-select-all=""
                  checked={selectable.length > 0 && selectable.every((i) => selected.has(incidentKey(i)))}
                  disabled={selectable.length === 0}
                  onChange={(e) => props.onSelectAll((e.currentTarget as HTMLInputElement).checked)}
                />
              </th>
            )}
            <th scope="col">Incident</th>
            <th scope="col">Severity</th>
            <th scope="col">Status</th>
            <th scope="col">Workspace</th>
            <th scope="col">Assignee</th>
            <th scope="col">Created</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        {/* However many pages were shown, only the rows near the viewport are in the DOM. */}
        <WindowedRows
          rows={incidents}
          rowKey={incidentKey}
          columns={canAct ? 8 : 7}
          renderRow={(i, place) => (
            <tr
              {...place}
              data-workspace-id={i.incident.workspaceId}
              data-incident-id={i.incident.id}
              data-created-at={i.incident.createdAt}
              data-severity={i.incident.severity}
              data-assignee={i.assignee?.name ?? i.assignee?.email ?? ""}
            >
              {canAct && (
                <td class="select-cell">
                  {actsOn.has(i.incident.workspaceId) ? (
                    <input
                      type="checkbox"
                      aria-label={`Select #${i.incident.number} ${i.incident.title}`}
                      data-select=""
                      checked={selected.has(incidentKey(i))}
                      onChange={(e) => props.onSelect(i, (e.currentTarget as HTMLInputElement).checked)}
                    />
                  ) : (
                    <span class="visually-hidden">You hold no role on this workspace</span>
                  )}
                </td>
              )}
              <td>
                <IncidentLink workspaceId={i.incident.workspaceId} source={i.source} incident={i.incident} />
                <div class="muted">{sourceName(i.source)}</div>
              </td>
              <td>
                <Badge tone={severityTone(i.incident.severity)}>{i.incident.severity}</Badge>
              </td>
              <td>{i.serviceStatus}</td>
              <td>{props.workspaceNames.get(i.incident.workspaceId) ?? i.incident.workspaceId}</td>
              <td>{i.assignee?.name ?? i.assignee?.email ?? <span class="muted">Unassigned</span>}</td>
              <td>
                <Time at={i.incident.createdAt} />
              </td>
              <td>
                <Time at={i.lastModificationTime} />
              </td>
            </tr>
          )}
        />
      </table>
    </TableScroll>
  );
}

/**
 * The incident queue: every workspace the person sees, across customers and sources, in one order
 * (newest first, or severity then newest), with the filters kept in the URL. The first page on
 * demand, then "Show more" sends the last answer's token back until the queue has no more. A person
 * with a role on a workspace (Analyst or Owner: both may act) selects its incidents and acts on them
 * together; the others read.
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
  // A new list (other filters, or read again after a change) starts with nothing selected: what was
  // selected was selected at versions that may be gone.
  const queue = useIncidentQueue(queryOf(filtersOf(params), me.email), key, () => setSelected(new Map()));
  const { first, incidents } = queue;
  const select = (incident: IncidentSummary, on: boolean) =>
    setSelected((before) => {
      const after = new Map(before);
      if (on) after.set(incidentKey(incident), incident);
      else after.delete(incidentKey(incident));
      return after;
    });
  const selectAll = (on: boolean) => setSelected(on ? new Map(incidents.filter((i) => actsOn.has(i.incident.workspaceId)).map((i) => [incidentKey(i), i])) : new Map());

  return (
    <section>
      <PageHeader title="Incidents" />
      <p class="lead">Every workspace you may see, across customers and sources.</p>
      <SharedIndicatorsPanel />
      <IncidentFilters
        params={params}
        urlKey={key}
        organizations={organizations.value ?? []}
        workspaces={workspaces.value ?? []}
        problem={first.problem}
        onApply={(f) =>
          apply({
            customer: f.account,
            workspace: f.workspace,
            severity: f.severities,
            status: f.statuses.length > 0 ? f.statuses : [ANY_STATUS],
            source: f.sources,
            time: f.time,
            q: f.query,
            assignee: f.assignee,
            order: f.order,
          })
        }
      />
      <ProblemBanner problem={first.problem} />
      <ProblemBanner problem={queue.stalled} title="The rest of this page could not be read" />
      {queue.unavailable.size > 0 && <UnreadWorkspaces entries={[...queue.unavailable.values()]} more={queue.more} />}
      <QueueStatus loading={queue.loading} reading={queue.reading} shown={incidents.length} more={queue.more} unreadStreams={queue.unreadStreams} />
      {!queue.loading && !first.problem && !queue.more && incidents.length === 0 && <Empty>No incident matches these filters.</Empty>}
      {canAct && <BulkActions selected={[...selected.values()]} workspaceNames={names} onDone={() => void first.reload()} onClear={() => setSelected(new Map())} />}
      {incidents.length > 0 && (
        <IncidentTable incidents={incidents} workspaceNames={names} canAct={canAct} actsOn={actsOn} selected={selected} onSelect={select} onSelectAll={selectAll} />
      )}
      {/* While a new list is being read, the token of the list shown is not the place to go on from. */}
      <ShowMore more={queue.more && !queue.loading} action={queue.next} />
    </section>
  );
}
