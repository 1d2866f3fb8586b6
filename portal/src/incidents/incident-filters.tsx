import { useEffect, useState } from "preact/hooks";
import { type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { managesCustomers, useMe, useSourceName } from "../session";
import { CheckboxFilter, Field, Select } from "../ui";
import { type QueueQuery } from "./incident-queue";

export type Severity = NonNullable<QueueQuery["severities"]>[number];
export type Status = NonNullable<QueueQuery["statuses"]>[number];
export type SourceName = NonNullable<QueueQuery["sources"]>[number];
export type TimeFilter = NonNullable<QueueQuery["timeFilterSelection"]>["type"];
export type Workspaces = paths["/api/v2/portal/workspaces"]["get"]["responses"][200]["content"]["application/json"]["data"];
export type Organizations = paths["/api/v2/portal/organizations"]["get"]["responses"][200]["content"]["application/json"]["data"];

export const SEVERITIES: Severity[] = ["High", "Medium", "Low", "Informational"];
export const STATUSES: Status[] = ["New", "Active", "Closed"];
export const SOURCES: SourceName[] = ["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF", "SourceG"];
export const TIMES: { value: TimeFilter | ""; label: string }[] = [
  { value: "", label: "Any time" },
  { value: "ThreeHours", label: "Last 3 hours" },
  { value: "TwelveHours", label: "Last 12 hours" },
  { value: "TwentyFourHours", label: "Last 24 hours" },
  { value: "FortyEightHours", label: "Last 48 hours" },
];
/** The queue's orders; in the URL, none means newest first. */
export const ORDERS = [
  { value: "", label: "Newest first" },
  { value: "severity", label: "Severity, then newest" },
] as const;
/** Whose incidents; in the URL `me` stands for whoever opens the link, so a shared link shows each person their own. */
export const ASSIGNEES = [
  { value: "", label: "Anyone" },
  { value: "me", label: "Assigned to me" },
  { value: "unassigned", label: "Unassigned" },
] as const;

export function severityTone(severity: string): "bad" | "warn" | "neutral" {
  return severity === "High" ? "bad" : severity === "Medium" ? "warn" : "neutral";
}

export interface Filters {
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
export const OPEN_STATUSES: Status[] = ["New", "Active"];
/** In the URL, no status filter at all: every status (no `status` parameter means the open ones). */
export const ANY_STATUS = "any";

export const pick = <T extends string>(values: string[], allowed: readonly T[]): T[] => values.filter((v): v is T => (allowed as readonly string[]).includes(v));
/** The value of a single-choice filter if it is one of the choices, else the default (the first, ""). */
export const oneOf = <T extends string>(value: string | null, choices: readonly { value: T }[]): T => choices.find((c) => c.value === value)?.value ?? choices[0]!.value;

/** The filters a URL names: a reload or a shared link shows the same list. */
export function filtersOf(params: URLSearchParams): Filters {
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
export function queryOf(f: Filters, myEmail: string): QueueQuery {
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
/**
 * The filters' form: a draft until "Apply filters", which puts them in the URL (the list follows the
 * URL). The draft follows the URL when it changes (back, a link).
 */
export function IncidentFilters(props: { params: URLSearchParams; urlKey: string; organizations: Organizations; workspaces: Workspaces; problem: Problem | undefined; onApply(f: Filters): void }) {
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
        {managesCustomers(me) && (
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
