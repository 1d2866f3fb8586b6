import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { Confirmation, useConfirming } from "../confirmation";
import { IncidentLink } from "../ui/incident-link";
import { useMe } from "../session";
import { Field, ProblemBanner, Select, useAction } from "../ui";
import type { IncidentSummary } from "./incident-queue";

type BulkOperation = paths["/api/v2/portal/incidents/bulk"]["post"];
type BulkBody = NonNullable<BulkOperation["requestBody"]>["content"]["application/json"];
type BulkChanges = BulkBody["changes"];
type BulkResult = BulkOperation["responses"][200]["content"]["application/json"]["data"];
type ItemResult = BulkResult["results"][number];
type Status = NonNullable<BulkChanges["status"]>;
type Classification = NonNullable<BulkChanges["classification"]>;

/** The most incidents one request may name (the route's limit): a larger selection goes in several requests. */
const PER_REQUEST = 250;

/** "" leaves that part of the incidents as it is. */
type AssigneeChoice = "" | "Me" | "Person" | "Nobody";
const ASSIGNEE_CHOICES: { value: AssigneeChoice; label: string }[] = [
  { value: "Me", label: "Assign to me" },
  { value: "Person", label: "Assign to a person" },
  { value: "Nobody", label: "Unassign" },
  { value: "", label: "Leave as it is" },
];
const STATUSES: { value: Status | ""; label: string }[] = [
  { value: "", label: "Leave as it is" },
  { value: "Active", label: "Active" },
  { value: "New", label: "New" },
  { value: "OnHold", label: "On hold" },
  { value: "WaitingOnCustomer", label: "Waiting on customer" },
  { value: "Closed", label: "Closed" },
];
const CLASSIFICATIONS: { value: Classification; label: string }[] = [
  { value: "TruePositive", label: "True positive" },
  { value: "BenignPositive", label: "Benign positive" },
  { value: "FalsePositive", label: "False positive" },
  { value: "Undetermined", label: "Undetermined" },
];

interface Draft {
  assignee: AssigneeChoice;
  email: string;
  status: Status | "";
  classification: Classification;
  closingComment: string;
}

/** What was asked and what came of it, per incident, for the result panel. */
interface Outcome {
  done: string;
  incidents: IncidentSummary[];
  results: ItemResult[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const labelOf = <T extends string>(list: { value: T; label: string }[], value: T) => list.find((o) => o.value === value)?.label ?? value;

/** The request's changes, and how the confirmation and the result say them; none when the person chose to leave both as they are. */
function described(draft: Draft, me: { userId: string; email: string }): { changes: BulkChanges; verb: string; done: string } | undefined {
  const email = draft.email.trim();
  const assign = {
    "": undefined,
    Me: { assignee: { userId: me.userId, email: me.email }, verb: "assign to you", done: "assigned to you" },
    Person: { assignee: { userId: null, email }, verb: `assign to ${email}`, done: `assigned to ${email}` },
    Nobody: { assignee: { userId: null, email: null }, verb: "unassign", done: "unassigned" },
  }[draft.assignee];
  let status: { changes: Omit<BulkChanges, "assignee">; verb: string; done: string } | undefined;
  if (draft.status === "Closed") {
    const comment = draft.closingComment.trim();
    const how = labelOf(CLASSIFICATIONS, draft.classification).toLowerCase();
    status = {
      changes: { status: "Closed", classification: draft.classification, ...(comment ? { closingComment: comment } : {}) },
      verb: `close as ${how}`,
      done: `closed as ${how}`,
    };
  } else if (draft.status) {
    const label = labelOf(STATUSES, draft.status).toLowerCase();
    status = { changes: { status: draft.status }, verb: `set to ${label}`, done: `set to ${label}` };
  }
  const parts = [assign, status].filter((p) => p !== undefined);
  if (parts.length === 0) return undefined;
  const verb = parts.map((p) => p.verb).join(" and ");
  return {
    changes: { ...(assign ? { assignee: assign.assignee } : {}), ...status?.changes },
    verb: verb.charAt(0).toUpperCase() + verb.slice(1),
    done: parts.map((p) => p.done).join(" and "),
  };
}

/**
 * The incident list's bulk action: what to do to the selected incidents, a confirmation saying how
 * many in how many workspaces, then what came of each. Each incident is changed on its own (the
 * service reports each), so a refusal names its incident and its reason, and the rest stand.
 */
export function BulkActions(props: { selected: IncidentSummary[]; workspaceNames: Map<string, string>; onDone(): void; onClear(): void }) {
  const me = useMe();
  const { selected } = props;
  const [draft, setDraft] = useState<Draft>({ assignee: "Me", email: "", status: "", classification: "TruePositive", closingComment: "" });
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const headingId = useId();
  const noChangeId = useId();
  const workspaces = new Set(selected.map((i) => i.incident.workspaceId)).size;
  const asked = described(draft, me);

  const run = useAction(async () => {
    if (!asked) return;
    const incidents = [...selected];
    const results: ItemResult[] = [];
    try {
      for (let i = 0; i < incidents.length; i += PER_REQUEST) {
        const chunk = incidents.slice(i, i + PER_REQUEST);
        const body: BulkBody = {
          incidents: chunk.map((s) => ({ workspaceId: s.incident.workspaceId, source: s.source, incidentId: s.incident.id, etag: s.etag })),
          changes: asked.changes,
        };
        const answer = await call(api.POST("/api/v2/portal/incidents/bulk", { params: { header: csrf() }, body }));
        results.push(...answer.data.results);
      }
    } finally {
      // What was answered stands, even when a later request of a large selection failed.
      if (results.length > 0) {
        setOutcome({ done: asked.done, incidents: incidents.slice(0, results.length), results });
        confirming.close();
        props.onDone();
      }
    }
  });
  const confirming = useConfirming(run);

  return (
    <>
      {outcome && <BulkOutcome outcome={outcome} workspaceNames={props.workspaceNames} problem={run.problem} onDismiss={() => setOutcome(undefined)} />}
      <section class="card bulk-bar" aria-labelledby={headingId} data-bulk-bar="">
        <h2 id={headingId} aria-live="polite">
          {selected.length === 0 ? "No incident selected" : `${plural(selected.length, "incident")} selected in ${plural(workspaces, "workspace")}`}
        </h2>
        {selected.length === 0 ? (
          <p class="muted">Select incidents in the list to assign them, set their status or close them, or to assign and close them together.</p>
        ) : (
          <form
            aria-label="Changes to the selected incidents"
            onSubmit={(e) => {
              e.preventDefault();
              if (asked) confirming.open("bulk");
            }}
          >
            <div class="filters">
              <Select
                label="Assignee"
                name="changes.assignee"
                value={draft.assignee}
                options={ASSIGNEE_CHOICES}
                problem={run.problem}
                onValue={(assignee) => setDraft({ ...draft, assignee: assignee as AssigneeChoice })}
              />
              {draft.assignee === "Person" && (
                <Field label="Assignee's e-mail address" name="changes.assignee.email" type="email" required value={draft.email} problem={run.problem} onValue={(email) => setDraft({ ...draft, email })} />
              )}
              <Select label="Status" name="changes.status" value={draft.status} options={STATUSES} problem={run.problem} onValue={(status) => setDraft({ ...draft, status: status as Status | "" })} />
              {draft.status === "Closed" && (
                <Select
                  label="Classification"
                  name="changes.classification"
                  value={draft.classification}
                  options={CLASSIFICATIONS}
                  problem={run.problem}
                  onValue={(classification) => setDraft({ ...draft, classification: classification as Classification })}
                />
              )}
            </div>
            {draft.status === "Closed" && (
              <Field
                label="Closing comment (optional)"
                name="changes.closingComment"
                multiline
                maxLength={4000}
                value={draft.closingComment}
                problem={run.problem}
                onValue={(closingComment) => setDraft({ ...draft, closingComment })}
              />
            )}
            {!asked && (
              <p class="muted" id={noChangeId}>
                Choose an assignee, a status, or both.
              </p>
            )}
            {asked && confirming.key === "bulk" ? (
              <Confirmation
                layout="panel"
                question={`${asked.verb}: ${plural(selected.length, "incident")} in ${plural(workspaces, "workspace")}?`}
                confirmLabel={`${asked.verb}: ${plural(selected.length, "incident")}`}
                busyLabel={`Working on ${plural(selected.length, "incident")}…`}
                busy={run.busy}
                problem={run.problem}
                problemTitle="The incidents were not changed"
                onConfirm={() => void run.run()}
                onCancel={confirming.cancel}
                confirmData={{ "data-bulk-confirm": "" }}
              >
                <p>Each incident is changed on its own. One that changed since the list was read, or that you may not change, is left as it is and listed afterwards with the reason.</p>
                {asked.changes.assignee && asked.changes.status && (
                  <p>Each incident is assigned first, then its status is changed. If its status change is refused, it stays assigned, and the list afterwards says so.</p>
                )}
                {(draft.status === "OnHold" || draft.status === "WaitingOnCustomer") && <p>On hold and waiting on customer pause the incidents' SLA clocks.</p>}
              </Confirmation>
            ) : (
              <div class="buttons">
                <button type="submit" class="button" data-confirms="bulk" disabled={!asked} aria-describedby={asked ? undefined : noChangeId}>
                  Apply to {plural(selected.length, "incident")}…
                </button>
                <button type="button" class="button button-secondary" onClick={props.onClear}>
                  Clear the selection
                </button>
              </div>
            )}
          </form>
        )}
      </section>
    </>
  );
}

/** What came of a bulk action: how many were changed, and each incident that was not, with why. */
function BulkOutcome(props: { outcome: Outcome; workspaceNames: Map<string, string>; problem: Problem | undefined; onDismiss(): void }) {
  const { outcome } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  // The confirmation that had the focus is gone: the focus goes to what came of it.
  useEffect(() => heading.current?.focus(), [outcome]);
  const succeeded = outcome.results.filter((r) => r.outcome === "Succeeded").length;
  const others = outcome.results.flatMap((r, i) => (r.outcome === "Succeeded" ? [] : [{ result: r, incident: outcome.incidents[i]! }]));
  return (
    <section class={`card bulk-result${others.length > 0 ? " bulk-result-partial" : ""}`} aria-label="Result of the bulk action" data-bulk-result="">
      <h2 tabIndex={-1} ref={heading}>
        {succeeded} of {plural(outcome.results.length, "incident")} {outcome.done}
      </h2>
      {others.length > 0 && (
        <>
          <p>{plural(others.length, "incident was", "incidents were")} not changed as asked:</p>
          <ul class="bulk-refusals">
            {others.map(({ result, incident }) => (
              <li data-incident-id={result.incidentId} data-workspace-id={result.workspaceId} data-code={result.problem?.code ?? ""} data-outcome={result.outcome}>
                <IncidentLink workspaceId={result.workspaceId} source={result.source} incident={incident.incident} />
                <span class="muted"> · {props.workspaceNames.get(result.workspaceId) ?? result.workspaceId}</span>
                <p>
                  {madeOf(result)}
                  {result.problem?.detail ?? result.outcome} <code>{result.problem?.code ?? result.outcome}</code>
                </p>
              </li>
            ))}
          </ul>
        </>
      )}
      {/* A large selection goes in several requests: one that failed leaves the rest of it unsent. */}
      <ProblemBanner problem={props.problem} title="The rest of the selection was not sent" />
      <div class="buttons">
        <button type="button" class="button button-secondary" onClick={props.onDismiss}>
          Dismiss
        </button>
      </div>
    </section>
  );
}

const CHANGE_LABELS: Record<ItemResult["changes"][number]["change"], string> = { assignee: "assignee", status: "status" };

/** For an incident not changed as asked, what of it was made all the same (nothing is undone): "Its assignee was changed; its status was not: ". */
function madeOf(result: ItemResult): string {
  const made = result.changes.filter((c) => c.outcome === "Succeeded").map((c) => CHANGE_LABELS[c.change]);
  const unmade = result.changes.filter((c) => c.outcome !== "Succeeded").map((c) => CHANGE_LABELS[c.change]);
  return made.length === 0 ? "" : `Its ${made.join(" and ")} was changed; its ${unmade.join(" and ")} was not: `;
}
