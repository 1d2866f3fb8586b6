import { useEffect, useRef, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { Badge, DataTable, Field, Notice, ProblemBanner, SubmitForm, Time, useAction, useInterval } from "../ui";
import { type ApprovalRequest, readOne } from "./approval-requests";
import { outcomeText, policyText, RequestFacts, sideName, sidesText, statusTone } from "./request-facts";

export function ApprovalCard({ request: r, onChange }: { request: ApprovalRequest; onChange(r: ApprovalRequest): void }) {
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
      <DataTable label={`Playbooks of ${r.title}`} columns={["#", "Playbook", "Acts on", "Parameters", "Undone by"]}>
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
      </DataTable>
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
        <SubmitForm class="decision" action={approve}>
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
        </SubmitForm>
      )}
      {r.awaitingDecision && r.viewer.mayDeny && denying && (
        <SubmitForm class="decision" action={deny}>
          <Field label="Why must this not run?" name="reason" value={reason} onValue={setReason} problem={deny.problem} required maxLength={2000} multiline />
          <div class="buttons">
            <button type="submit" class="button button-danger" disabled={deny.busy || !reason.trim()}>
              {deny.busy ? "Denying…" : "Deny"}
            </button>
            <button type="button" class="button button-secondary" onClick={() => setDenying(false)}>
              Cancel
            </button>
          </div>
        </SubmitForm>
      )}
    </article>
  );
}
