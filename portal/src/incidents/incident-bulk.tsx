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
type BulkAction = BulkBody["action"];
type BulkResult = BulkOperation["responses"][200]["content"]["application/json"]["data"];
type ItemResult = BulkResult["results"][number];
type Status = Extract<BulkAction, { type: "SetStatus" }>["status"];
type Classification = Extract<BulkAction, { type: "Close" }>["classification"];

/** The most incidents one request may name (the route's limit): a larger selection goes in several requests. */
const PER_REQUEST = 250;

type Choice = "AssignToMe" | "AssignTo" | "Unassign" | "SetStatus" | "Close";
const CHOICES: { value: Choice; label: string }[] = [
  { value: "AssignToMe", label: "Assign to me" },
  { value: "AssignTo", label: "Assign to a person" },
  { value: "Unassign", label: "Unassign" },
  { value: "SetStatus", label: "Set status" },
  { value: "Close", label: "Close" },
];
const STATUSES: { value: Status; label: string }[] = [
  { value: "Active", label: "Active" },
  { value: "New", label: "New" },
  { value: "OnHold", label: "On hold" },
  { value: "WaitingOnCustomer", label: "Waiting on customer" },
];
const CLASSIFICATIONS: { value: Classification; label: string }[] = [
  { value: "TruePositive", label: "True positive" },
  { value: "BenignPositive", label: "Benign positive" },
  { value: "FalsePositive", label: "False positive" },
  { value: "Undetermined", label: "Undetermined" },
];

interface Draft {
  choice: Choice;
  email: string;
  status: Status;
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

/** The request's action, and how the confirmation and the result say it. */
function described(draft: Draft, me: { userId: string; email: string }): { action: BulkAction; verb: string; done: string } {
  switch (draft.choice) {
    case "AssignToMe":
      return { action: { type: "Assign", userId: me.userId, email: me.email }, verb: "Assign to you", done: "assigned to you" };
    case "AssignTo":
      return { action: { type: "Assign", userId: null, email: draft.email.trim() }, verb: `Assign to ${draft.email.trim()}`, done: `assigned to ${draft.email.trim()}` };
    case "Unassign":
      return { action: { type: "Assign", userId: null, email: null }, verb: "Unassign", done: "unassigned" };
    case "SetStatus": {
      const status = labelOf(STATUSES, draft.status).toLowerCase();
      return { action: { type: "SetStatus", status: draft.status }, verb: `Set to ${status}`, done: `set to ${status}` };
    }
    case "Close": {
      const comment = draft.closingComment.trim();
      const how = labelOf(CLASSIFICATIONS, draft.classification).toLowerCase();
      return { action: { type: "Close", classification: draft.classification, ...(comment ? { closingComment: comment } : {}) }, verb: `Close as ${how}`, done: `closed as ${how}` };
    }
  }
}

/**
 * The incident list's bulk action: what to do to the selected incidents, a confirmation saying how
 * many in how many workspaces, then what came of each. Each incident is changed on its own (the
 * service reports each), so a refusal names its incident and its reason, and the rest stand.
 */
export function BulkActions(props: { selected: IncidentSummary[]; workspaceNames: Map<string, string>; onDone(): void; onClear(): void }) {
  const me = useMe();
  const { selected } = props;
  const [draft, setDraft] = useState<Draft>({ choice: "AssignToMe", email: "", status: "Active", classification: "TruePositive", closingComment: "" });
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const headingId = useId();
  const workspaces = new Set(selected.map((i) => i.incident.workspaceId)).size;
  const { action, verb, done } = described(draft, me);

  const run = useAction(async () => {
    const incidents = [...selected];
    const results: ItemResult[] = [];
    try {
      for (let i = 0; i < incidents.length; i += PER_REQUEST) {
        const chunk = incidents.slice(i, i + PER_REQUEST);
        const body: BulkBody = {
          incidents: chunk.map((s) => ({ workspaceId: s.incident.workspaceId, source: s.source, incidentId: s.incident.id, etag: s.etag })),
          action,
        };
        const answer = await call(api.POST("/api/v2/portal/incidents/bulk", { params: { header: csrf() }, body }));
        results.push(...answer.data.results);
      }
    } finally {
      // What was answered stands, even when a later request of a large selection failed.
      if (results.length > 0) {
        setOutcome({ done, incidents: incidents.slice(0, results.length), results });
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
          <p class="muted">Select incidents in the list to assign, set the status of or close them together.</p>
        ) : (
          <form
            aria-label="Action on the selected incidents"
            onSubmit={(e) => {
              e.preventDefault();
              confirming.open("bulk");
            }}
          >
            <div class="filters">
              <Select label="Action" name="action.type" value={draft.choice} options={CHOICES} onValue={(choice) => setDraft({ ...draft, choice: choice as Choice })} />
              {draft.choice === "AssignTo" && (
                <Field label="Assignee's e-mail address" name="action.email" type="email" required value={draft.email} problem={run.problem} onValue={(email) => setDraft({ ...draft, email })} />
              )}
              {draft.choice === "SetStatus" && (
                <Select label="Status" name="action.status" value={draft.status} options={STATUSES} problem={run.problem} onValue={(status) => setDraft({ ...draft, status: status as Status })} />
              )}
              {draft.choice === "Close" && (
                <Select
                  label="Classification"
                  name="action.classification"
                  value={draft.classification}
                  options={CLASSIFICATIONS}
                  problem={run.problem}
                  onValue={(classification) => setDraft({ ...draft, classification: classification as Classification })}
                />
              )}
            </div>
            {draft.choice === "Close" && (
              <Field
                label="Closing comment (optional)"
                name="action.closingComment"
                multiline
                maxLength={4000}
                value={draft.closingComment}
                problem={run.problem}
                onValue={(closingComment) => setDraft({ ...draft, closingComment })}
              />
            )}
            {confirming.key === "bulk" ? (
              <Confirmation
                layout="panel"
                question={`${verb}: ${plural(selected.length, "incident")} in ${plural(workspaces, "workspace")}?`}
                confirmLabel={`${verb}: ${plural(selected.length, "incident")}`}
                busyLabel={`Working on ${plural(selected.length, "incident")}…`}
                busy={run.busy}
                problem={run.problem}
                problemTitle="The incidents were not changed"
                onConfirm={() => void run.run()}
                onCancel={confirming.cancel}
                confirmData={{ "data-bulk-confirm": "" }}
              >
                <p>Each incident is changed on its own. One that changed since the list was read, or that you may not change, is left as it is and listed afterwards with the reason.</p>
                {(draft.choice === "SetStatus" && (draft.status === "OnHold" || draft.status === "WaitingOnCustomer")) && <p>On hold and waiting on customer pause the incidents' SLA clocks.</p>}
              </Confirmation>
            ) : (
              <div class="buttons">
                <button type="submit" class="button" data-confirms="bulk">
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
          <p>{plural(others.length, "incident was", "incidents were")} not changed:</p>
          <ul class="bulk-refusals">
            {others.map(({ result, incident }) => (
              <li data-incident-id={result.incidentId} data-workspace-id={result.workspaceId} data-code={result.problem?.code ?? ""} data-outcome={result.outcome}>
                <IncidentLink workspaceId={result.workspaceId} source={result.source} incident={incident.incident} />
                <span class="muted"> · {props.workspaceNames.get(result.workspaceId) ?? result.workspaceId}</span>
                <p>
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
