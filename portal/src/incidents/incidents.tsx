import { useState } from "preact/hooks";
import { api, call } from "../api/client";
import { ShowMore } from "../ui/paging";
import { useMe, useSourceName } from "../session";
import { useUrlFilters } from "../url-filters";
import { Empty, Notice, PageHeader, ProblemBanner, useResource } from "../ui";
import { BulkActions } from "./incident-bulk";
import { useIncidentQueue, type IncidentSummary, type Unavailable } from "./incident-queue";
import { SharedIndicatorsPanel } from "./shared-indicators";
import { IncidentTable, incidentKey } from "./incident-table";
import { ANY_STATUS, filtersOf, queryOf, IncidentFilters } from "./incident-filters";


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
