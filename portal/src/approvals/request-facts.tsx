import { IncidentLink } from "../ui/incident-link";
import { Time } from "../ui";
import { type ApprovalRequest } from "./approval-requests";

export function statusTone(r: ApprovalRequest): "ok" | "warn" | "bad" | "neutral" {
  if (r.awaitingDecision) return "warn";
  if (r.status === "Denied" || r.status === "Failed" || r.status === "Cancelled") return "bad";
  if (r.status === "Succeeded" || r.status === "Running") return "ok";
  return "neutral";
}

export function outcomeText(r: ApprovalRequest): string {
  if (r.awaitingDecision) return r.approvals.length > 0 ? `Waiting for ${r.approvalsStillNeeded} more approval(s)` : "Waiting for a decision";
  if (r.decision?.expired) return "Expired without a decision";
  if (r.decision?.outcome === "Denied") return `Denied by ${r.decision.by ?? "someone"}`;
  if (r.decision?.outcome === "Approved") return `Approved by ${r.decision.by ?? "someone"} · run ${r.status}`;
  return `Run ${r.status}`;
}

export type Side = ApprovalRequest["requiredSides"][number];

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
