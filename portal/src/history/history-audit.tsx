import { useEffect, useState } from "preact/hooks";
import { api, call } from "../api/client";
import type { paths } from "../api/openapi";
import { IncidentLink } from "../ui/incident-link";
import { ShowMore, usePages } from "../ui/paging";
import { Link } from "../router";
import { useUrlFilters, type FilterValues } from "../url-filters";
import { DataTable, Empty, Field, ProblemBanner, Select, useResource } from "../ui";
import { exactTime } from "../time-format";
import { HistoryHeader, useWorkspaceChoices, WorkspaceFilter } from "./history";

type Query = NonNullable<paths["/api/v2/portal/audit"]["get"]["parameters"]["query"]>;
type Envelope = paths["/api/v2/portal/audit"]["get"]["responses"][200]["content"]["application/json"];
type AuditEvent = Envelope["data"][number];

const PAGE_SIZE = 50;
const ACTIONS = [
  { value: "", label: "Any action" },
  { value: "Create", label: "Create" },
  { value: "Update", label: "Update" },
  { value: "Delete", label: "Delete" },
];

/** The filters as the URL keeps them: each a query parameter, days as `yyyy-mm-dd`. */
const FILTERS = ["actor", "actorId", "account", "workspace", "type", "action", "from", "to"] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

function filtersOf(params: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ""])) as Filters;
}

/** The start of a day in the reader's time zone, as an instant; `after` days later. */
function dayStart(day: string, after = 0): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const at = new Date(`${day}T00:00:00`);
  at.setDate(at.getDate() + after);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}


/**
 * The organization's audit trail, newest first: who did what, where and when, filtered by actor,
 * organization, workspace, activity and days. Every filter lives in the URL; an event's actor and
 * activity are links that narrow the trail to them.
 */
export function AuditTrailPage() {
  const { params, key, apply } = useUrlFilters();
  const applied = filtersOf(params);
  const [draft, setDraft] = useState<Filters>(applied);
  useEffect(() => setDraft(filtersOf(params)), [key]);
  const set = (name: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));
  const choices = useWorkspaceChoices();
  const organizations = useResource(async () => (await call(api.GET("/api/v2/portal/organizations"))).data, []);
  const { first, items, more, loadMore } = usePages(async (continuationToken) => {
    const query: Query = {
      actor: applied.actor || undefined,
      actorId: applied.actorId || undefined,
      accountId: applied.account || undefined,
      workspaceIds: applied.workspace ? [applied.workspace] : undefined,
      activityType: applied.type || undefined,
      activityAction: (applied.action || undefined) as Query["activityAction"],
      from: dayStart(applied.from),
      // The last day chosen is included: up to the start of the next.
      to: dayStart(applied.to, 1),
      pageSize: PAGE_SIZE,
      continuationToken,
    };
    return call(api.GET("/api/v2/portal/audit", { params: { query } }));
  }, [key]);
  /** This view with one filter set (or cleared), the others kept: what an event's links go to. */
  const narrowed = (change: FilterValues) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...applied, ...change })) if (typeof value === "string" && value) query.set(name, value);
    return `${location.pathname}?${query.toString()}`;
  };
  const filtered = FILTERS.some((name) => applied[name]);

  return (
    <section>
      <HistoryHeader lead="Who did what in your organization and its workspaces, newest first." />
      <form
        class="card filters-form"
        aria-label="Filter the audit trail"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <div class="filters">
          <Field label="Actor" name="actor" type="search" value={draft.actor} onValue={set("actor")} problem={first.problem} placeholder="Name or e-mail address" />
          <Field label="Actor id" name="actorId" value={draft.actorId} onValue={set("actorId")} problem={first.problem} />
          <Select
            label="Organization"
            name="accountId"
            value={draft.account}
            options={[{ value: "", label: "All organizations" }, ...(organizations.value ?? []).map((o) => ({ value: o.id, label: o.name }))]}
            onValue={set("account")}
            problem={first.problem}
          />
          <WorkspaceFilter value={draft.workspace} onValue={set("workspace")} options={choices.options} />
          <Field label="Activity type" name="activityType" value={draft.type} onValue={set("type")} problem={first.problem} placeholder="IncidentStatus, GamebookApproval…" />
          <Select label="Action" name="activityAction" value={draft.action} options={ACTIONS} onValue={set("action")} problem={first.problem} />
          <Field label="From (day)" name="from" type="date" value={draft.from} onValue={set("from")} problem={first.problem} />
          <Field label="To (day, included)" name="to" type="date" value={draft.to} onValue={set("to")} problem={first.problem} />
        </div>
        <div class="buttons">
          <button type="submit" class="button">
            Apply filters
          </button>
          {filtered && (
            <Link href={location.pathname} class="button button-secondary">
              Clear filters
            </Link>
          )}
        </div>
      </form>
      <ProblemBanner problem={first.problem} />
      <p class="muted" aria-live="polite">
        {first.loading ? "Loading…" : `${items.length} event(s) shown${more ? ", more to search" : ""}`}
      </p>
      {!first.loading && !first.problem && items.length === 0 && (more ? <Empty>No event found yet: "Show more" searches further back.</Empty> : <Empty>No event matches these filters.</Empty>)}
      {items.length > 0 && (
        <DataTable label="Audit events" class="audit" columns={["When", "Actor", "Activity", "Target", "Where", "What changed"]}>
          {items.map((e) => (
            <tr data-event-id={e.id} data-activity-type={e.activityType} data-actor-id={e.actorId}>
              <td>
                <time dateTime={e.timeGenerated}>{exactTime(new Date(e.timeGenerated), { seconds: true })}</time>
              </td>
              <td>
                <Link href={narrowed({ actorId: e.actorId, actor: "" })}>{e.actorName || e.actorId}</Link>
                {e.actorEmail && <div class="muted">{e.actorEmail}</div>}
              </td>
              <td>
                <Link href={narrowed({ type: e.activityType })}>{e.activityType}</Link>
                <div class="muted">{e.activityAction}</div>
              </td>
              <td>
                <Target event={e} />
              </td>
              <td>
                {e.workspaceName ?? <span class="muted">The organization</span>}
                <div class="muted">{e.accountName}</div>
              </td>
              <td>
                <Metadata text={e.metadata} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}

/** The event's target, linked to the incident's page where it is an incident or a run on one. */
function Target({ event: e }: { event: AuditEvent }) {
  const incident = e.workspaceId ? incidentOf(e) : undefined;
  return (
    <>
      <span class="muted">{e.targetResourceType}: </span>
      {incident && e.targetResourceType === "Incident" ? (
        <IncidentLink workspaceId={e.workspaceId!} source={incident.source} incident={{ id: incident.id, title: e.targetResourceName }} />
      ) : (
        e.targetResourceName || e.targetResourceId
      )}
      {incident && e.targetResourceType !== "Incident" && (
        <div>
          <IncidentLink workspaceId={e.workspaceId!} source={incident.source} incident={{ id: incident.id, title: `Its incident (${incident.source})` }} />
        </div>
      )}
    </>
  );
}

/** The incident an event is about: its target (`<source>/<id>`), or the incident its metadata names (a run's). */
function incidentOf(e: AuditEvent): { source: string; id: string } | undefined {
  if (e.targetResourceType === "Incident") {
    const at = e.targetResourceId.indexOf("/");
    return at > 0 ? { source: e.targetResourceId.slice(0, at), id: e.targetResourceId.slice(at + 1) } : undefined;
  }
  const metadata = parsed(e.metadata);
  return typeof metadata?.source === "string" && typeof metadata.incidentId === "string" ? { source: metadata.source, id: metadata.incidentId } : undefined;
}

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function Metadata({ text }: { text: string }) {
  const value = parsed(text);
  if (!value || Object.keys(value).length === 0) return <span class="muted">—</span>;
  return (
    <details class="metadata">
      <summary>Details</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}
