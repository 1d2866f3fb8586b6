import { useEffect, useRef, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { IncidentLink } from "../ui/incident-link";
import { ShowMore } from "../ui/paging";
import { Badge, Empty, Field, Notice, PageHeader, ProblemBanner, RefreshButton, TableScroll, Time, useAction, useInterval, useResource } from "../ui";

type QueueEnvelope = paths["/api/v2/portal/approvals"]["get"]["responses"][200]["content"]["application/json"];
export type ApprovalRequest = QueueEnvelope["data"][number];

/** How often the queue is read again, so that requests decided elsewhere or expired update in place. */
const REFRESH_MS = 15_000;

async function readQueue(continuationToken?: string): Promise<QueueEnvelope> {
  return call(api.GET("/api/v2/portal/approvals", { params: { query: { pageSize: 50, continuationToken } } }));
}

async function readOne(workspaceId: string, runId: string): Promise<ApprovalRequest> {
  return (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/approvals/{runId}", { params: { path: { workspaceId, runId } } }))).data;
}

/**
 * The approval queue: every run waiting for the person's decision, soonest to expire first. Entries
 * that left the queue since it was read (decided elsewhere, expired, approved here and dispatched)
 * stay where they were and show how they ended, rather than vanishing under the reader.
 */
export function ApprovalsPage() {
  const queue = useResource(() => readQueue(), []);
  const [entries, setEntries] = useState<ApprovalRequest[]>([]);
  const [more, setMore] = useState<string | undefined>(undefined);
  const known = useRef(new Map<string, ApprovalRequest>());

  useEffect(() => {
    const page = queue.value;
    if (!page) return;
    const fresh = new Map(page.data.map((r) => [r.runId, r]));
    const gone = [...known.current.values()].filter((r) => !fresh.has(r.runId) && r.awaitingDecision);
    // Those that left the queue are read one by one to show their outcome in place; one that cannot be
    // read now stays as it was shown, and is read again on the next refresh.
    void Promise.all(gone.map((r) => readOne(r.workspace.id, r.runId).catch(() => r))).then((ended) => {
      for (const r of ended) fresh.set(r.runId, r);
      const order = [...known.current.keys(), ...page.data.map((r) => r.runId)];
      const next = [...new Set(order)].map((id) => fresh.get(id) ?? known.current.get(id)!).filter(Boolean);
      known.current = new Map(next.map((r) => [r.runId, r]));
      setEntries(next);
    });
    setMore(page.pagination?.continuationToken);
  }, [queue.value]);

  useInterval(() => void queue.reload(), REFRESH_MS);

  const replace = (updated: ApprovalRequest) => {
    known.current.set(updated.runId, updated);
    setEntries((list) => list.map((r) => (r.runId === updated.runId ? updated : r)));
  };

  const loadMore = useAction(async () => {
    const page = await readQueue(more);
    for (const r of page.data) known.current.set(r.runId, r);
    setEntries([...known.current.values()]);
    setMore(page.pagination?.continuationToken);
  });

  const waiting = entries.filter((r) => r.awaitingDecision).length;
  return (
    <section>
      <PageHeader title="Approval queue">
        <RefreshButton busy={queue.loading} onRefresh={() => void queue.reload()} />
      </PageHeader>
      <p class="lead">
        Gamebook runs waiting for a decision in the workspaces you decide in, soonest to expire first. The queue refreshes every {REFRESH_MS / 1000} seconds.
      </p>
      <ProblemBanner problem={queue.problem} />
      <p aria-live="polite" class="muted">
        {queue.value ? `${waiting} waiting for a decision` : ""}
      </p>
      {queue.value && entries.length === 0 && <Empty>Nothing is waiting for your decision.</Empty>}
      <ol class="cards" aria-label="Approval requests">
        {entries.map((r) => (
          <li key={r.runId}>
            <ApprovalCard request={r} onChange={replace} />
          </li>
        ))}
      </ol>
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}

function statusTone(r: ApprovalRequest): "ok" | "warn" | "bad" | "neutral" {
  if (r.awaitingDecision) return "warn";
  if (r.status === "Denied" || r.status === "Failed" || r.status === "Cancelled") return "bad";
  if (r.status === "Succeeded" || r.status === "Running") return "ok";
  return "neutral";
}

function outcomeText(r: ApprovalRequest): string {
  if (r.awaitingDecision) return r.approvals.length > 0 ? `Waiting for ${r.approvalsStillNeeded} more approval(s)` : "Waiting for a decision";
  if (r.decision?.expired) return "Expired without a decision";
  if (r.decision?.outcome === "Denied") return `Denied by ${r.decision.by ?? "someone"}`;
  if (r.decision?.outcome === "Approved") return `Approved by ${r.decision.by ?? "someone"} · run ${r.status}`;
  return `Run ${r.status}`;
}

type Side = ApprovalRequest["requiredSides"][number];

/** A side as a person reads it on a card. */
export function sideName(side: Side): string {
  return side === "Customer" ? "customer" : "provider";
}

/** Who must approve, in words: the managing provider, or one person of each side. */
export function sidesText(sides: readonly Side[]): string {
  if (sides.length > 1) return "One person of the customer and one of the managing provider";
  return sides[0] === "Provider" ? "A person of the managing provider (its partner setting)" : "A person of the customer";
}

/** The policy a request was made under, in a line: which runs wait, for how long, and who approves. */
export function policyText(p: NonNullable<ApprovalRequest["policy"]>): string {
  const which = p.mode === "AllRuns" ? "every run waits" : p.mode === "AdminRequiredPlaybooks" ? "runs with an admin playbook wait" : "no run waits";
  const who = [p.twoSidedApproval ? "one approver of each side" : null, p.requireSecondApproverForAdminPlaybooks ? "two approvers for admin playbooks" : null].filter(Boolean).join(", ");
  return `The workspace's policy: ${which}, ${p.approvalTimeoutHours} h${who ? `, ${who}` : ""}.`;
}

/** Where a request was made and by whom: the first facts of its card, waiting or decided (History). */
export function RequestFacts({ request: r }: { request: Pick<ApprovalRequest, "workspace" | "incident" | "requestedBy" | "requestedAt"> }) {
  return (
    <>
      <div>
        <dt>Workspace</dt>
        <dd>{r.workspace.name}</dd>
      </div>
      <div>
        <dt>Incident</dt>
        <dd>
          <IncidentLink workspaceId={r.workspace.id} source={r.incident.source} incident={r.incident} /> <span class="muted">({r.incident.source})</span>
        </dd>
      </div>
      <div>
        <dt>Asked by</dt>
        <dd>
          {r.requestedBy.name} <span class="muted">({r.requestedBy.kind})</span>, <Time at={r.requestedAt} />
        </dd>
      </div>
    </>
  );
}

function ApprovalCard({ request: r, onChange }: { request: ApprovalRequest; onChange(r: ApprovalRequest): void }) {
  const [comment, setComment] = useState("");
  const [reason, setReason] = useState("");
  const [denying, setDenying] = useState(false);
  const card = useRef<HTMLElement>(null);
  // Opening the denial takes the keyboard to its reason; cancelling, back to the Deny button.
  const opened = useRef(false);
  useEffect(() => {
    if (denying) card.current?.querySelector<HTMLTextAreaElement>('textarea[name="reason"]')?.focus();
    else if (opened.current) card.current?.querySelector<HTMLButtonElement>("button.button-danger")?.focus();
    opened.current = denying;
  }, [denying]);
  const path = { workspaceId: r.workspace.id, runId: r.runId };
  const refresh = async () => onChange(await readOne(r.workspace.id, r.runId));
  const approve = useAction(async () => {
    try {
      onChange((await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/approvals/{runId}/approve", { params: { path, header: csrf() }, body: comment.trim() ? { comment: comment.trim() } : {} }))).data);
    } catch (error) {
      // Decided elsewhere or expired meanwhile: show where it stands now, with the reason.
      await refresh().catch(() => undefined);
      throw error;
    }
  });
  const deny = useAction(async () => {
    try {
      onChange((await call(api.POST("/api/v2/portal/workspaces/{workspaceId}/approvals/{runId}/deny", { params: { path, header: csrf() }, body: { reason: reason.trim() } }))).data);
    } catch (error) {
      await refresh().catch(() => undefined);
      throw error;
    }
  });
  // After an approval the run is dispatched: follow it until it leaves Pending, so the reader sees it start.
  const settled = !r.awaitingDecision && r.status !== "Pending";
  useInterval(() => {
    if (!r.awaitingDecision && !settled) void refresh().catch(() => undefined);
  }, 2000);

  const headingId = `approval-${r.runId}`;
  return (
    <article ref={card} class="card approval" aria-labelledby={headingId} data-run-id={r.runId} data-status={r.status} data-awaiting={String(r.awaitingDecision)}>
      <header class="card-header">
        <h2 id={headingId}>{r.title}</h2>
        <Badge tone={statusTone(r)}>{outcomeText(r)}</Badge>
      </header>
      <dl class="facts">
        <RequestFacts request={r} />
        <div>
          <dt>Expires</dt>
          <dd>{r.expiresAt ? <Time at={r.expiresAt} /> : "Never"}</dd>
        </div>
        <div>
          <dt>Matched rule</dt>
          <dd>{r.matchedRule ? <code>{r.matchedRule.incidentTitle}</code> : "None: chosen by hand"}</dd>
        </div>
        <div>
          <dt>Why it needs approval</dt>
          <dd>{r.reasons.map((x) => x.text).join(" ") || "—"}</dd>
        </div>
        {r.policy && (
          <div>
            <dt>Made under</dt>
            <dd>
              {policyText(r.policy)}
              {r.policyChangedSince && <span class="muted"> · the workspace's policy has changed since; this request keeps the policy it was made under</span>}
            </dd>
          </div>
        )}
        {r.preAuthorization && (
          <div>
            <dt>Pre-authorized</dt>
            <dd>
              The workspace's policy is waived by {r.preAuthorization.createdBy.name}'s standing pre-authorization, until <Time at={r.preAuthorization.endsAt} />
              {r.preAuthorization.note ? `: “${r.preAuthorization.note}”` : ""}
            </dd>
          </div>
        )}
        {r.requiredSides.length > 0 && (
          <div>
            <dt>Who must approve</dt>
            <dd>{sidesText(r.requiredSides)}</dd>
          </div>
        )}
        <div>
          <dt>Approvals</dt>
          <dd>
            {r.approvals.length} of {r.requiredApprovals}
            {r.approvals.map((a) => (
              <span class="muted">
                {" "}
                · {a.by}
                {a.side ? ` (${sideName(a.side)})` : ""} <Time at={a.at} />
                {a.comment ? `: “${a.comment}”` : ""}
              </span>
            ))}
          </dd>
        </div>
      </dl>
      <h3>What approving will do</h3>
      <TableScroll label={`Playbooks of ${r.title}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Playbook</th>
              <th scope="col">Acts on</th>
              <th scope="col">Parameters</th>
              <th scope="col">Undone by</th>
            </tr>
          </thead>
          <tbody>
            {r.playbooks.map((p) => (
              <tr>
                <td>{p.sequence}</td>
                <td>
                  <strong>{p.name}</strong> {p.isAdminRequired && <Badge tone="warn">Admin required</Badge>}
                  {p.recommendedByRule && <Badge>Recommended by rule</Badge>}
                  <div class="muted">{p.description}</div>
                </td>
                <td>
                  {p.affectedEntity} <span class="muted">({p.entityType})</span>
                </td>
                <td>
                  {p.parameters.length === 0 ? (
                    <span class="muted">None</span>
                  ) : (
                    <ul class="plain">
                      {p.parameters.map((x) => (
                        <li>
                          <code>{x.name}</code> = <code>{String(x.value)}</code>
                          {x.description && <span class="muted"> · {x.description}</span>}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>{p.undoneBy ? p.undoneBy.name : <span class="muted">No undo playbook</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {r.entities.length > 0 && (
        <p>
          <span class="muted">Entities: </span>
          {r.entities.map((e) => `${e.name} (${e.entityType})`).join(", ")}
        </p>
      )}
      {r.decision?.comment && (
        <Notice>
          {r.decision.outcome === "Denied" ? "Reason" : "Comment"}: “{r.decision.comment}”
        </Notice>
      )}
      <ProblemBanner problem={approve.problem ?? deny.problem} title="The decision was not recorded" />
      {r.awaitingDecision && !r.viewer.mayApprove && <p class="muted">{r.viewer.reason}</p>}
      {r.awaitingDecision && (r.viewer.mayApprove || r.viewer.mayDeny) && !denying && (
        <form
          class="decision"
          onSubmit={(e) => {
            e.preventDefault();
            void approve.run();
          }}
        >
          {r.viewer.mayApprove && <Field label="Comment (optional)" name="comment" value={comment} onValue={setComment} problem={approve.problem} maxLength={2000} />}
          <div class="buttons">
            {r.viewer.mayApprove && (
              <button type="submit" class="button" disabled={approve.busy}>
                {approve.busy ? "Approving…" : "Approve"}
              </button>
            )}
            <button type="button" class="button button-danger" onClick={() => setDenying(true)}>
              Deny…
            </button>
          </div>
        </form>
      )}
      {r.awaitingDecision && r.viewer.mayDeny && denying && (
        <form
          class="decision"
          onSubmit={(e) => {
            e.preventDefault();
            void deny.run();
          }}
        >
          <Field label="Why must this not run?" name="reason" value={reason} onValue={setReason} problem={deny.problem} required maxLength={2000} multiline />
          <div class="buttons">
            <button type="submit" class="button button-danger" disabled={deny.busy || !reason.trim()}>
              {deny.busy ? "Denying…" : "Deny"}
            </button>
            <button type="button" class="button button-secondary" onClick={() => setDenying(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </article>
  );
}
