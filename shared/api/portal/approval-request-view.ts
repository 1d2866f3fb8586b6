import type { Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { GamebookRunRecord, GamebookRunStatus, RunApprovalEntry, RunMatchedRule, RunRequester } from "../../model/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord, PlaybookEntityType } from "../../model/gamebooks/playbook-catalogue-record";
import type { ApprovalReason } from "../../domain/gamebooks/approval-policy";
import { approvalPolicyOf, type GamebookApprovalPolicy } from "../../domain/gamebooks/approval-policy";
import { isDeepStrictEqual } from "node:util";
import { approvalsNeeded, approvalTermsOf, requesterOf } from "../../domain/gamebooks/run-approval-rules";
import type { ApprovalSide } from "../../model/gamebooks/approval-sides";
import type { RunPreAuthorization } from "../../domain/gamebooks/pre-authorizations";

/**
 * What approving a run will do, for the approval queue: everything an approver weighs, read from
 * the run alone (its playbooks, their entities and parameters, the incident, the rule, the
 * requester, the terms of its approval), with the workspace's policy for how many approvals it still
 * needs and, when given, the catalogue for what each parameter means and what would undo each
 * playbook.
 */
export interface ApprovalRequestView {
  runId: string;
  workspace: { id: string; name: string };
  /** The gamebook's title, or the playbooks' names. */
  title: string;
  /** The catalogue gamebook the playbooks are; null when they are none. */
  gamebook: { id: string; title: string } | null;
  status: GamebookRunStatus;
  /** True while the run waits for a decision: only then can it be approved or denied. */
  awaitingDecision: boolean;
  incident: { id: string; source: Source; number: number; title: string };
  /** In the order they would run. */
  playbooks: ApprovalPlaybookView[];
  /** What the playbooks act on, each once, in the order the playbooks first reach it; the incident itself is `incident`. */
  entities: ApprovalEntityView[];
  /** The rule that recommended the playbooks for the incident's title; null when none did (or the run predates the record). */
  matchedRule: RunMatchedRule | null;
  requestedBy: RunRequester;
  requestedAt: string;
  /** Null for a run that waits without an expiry (it started waiting before requests expired). */
  expiresAt: string | null;
  timeoutHours: number | null;
  /** Why approval is required, in the order the decision found them. */
  reasons: { code: string; text: string }[];
  /** A playbook of the run needs an administrator. */
  isAdminRequired: boolean;
  /** The approvals given so far, in order, each with the side it was given for (null: recorded before sides were). */
  approvals: (Omit<RunApprovalEntry, "side"> & { side: ApprovalSide | null })[];
  /** The sides that must each give an approval; empty: any decider. */
  requiredSides: ApprovalSide[];
  /** The workspace's policy the request was made under (null: it never waited, or was recorded before requests kept it). */
  policy: GamebookApprovalPolicy | null;
  /** The workspace's policy has changed since the request was made: the request keeps its own. */
  policyChangedSince: boolean;
  /** The standing pre-authorization that let the run past the workspace's own policy; null when none did. */
  preAuthorization: RunPreAuthorization | null;
  /** How many different people must approve the run. */
  requiredApprovals: number;
  /** How many more approvals dispatch it; 0 once it is no longer waiting. */
  approvalsStillNeeded: number;
  /** The final decision, once there is one. */
  decision: { outcome: "Approved" | "Denied"; by: string | null; byUserId: string | null; at: string | null; comment: string | null; expired: boolean } | null;
}

export interface ApprovalPlaybookView {
  sequence: number;
  /** The catalogue playbook. */
  playbookId: string;
  name: string;
  description: string;
  entityType: PlaybookEntityType;
  /** The incident entity it acts on; the incident's id for a playbook on the incident itself. */
  entityId: string;
  /** What it acts on, by name: the UPN, host name, address, domain, URL, mailbox or file name. */
  affectedEntity: string;
  isAdminRequired: boolean;
  /** The values it would run with (declared defaults filled in), in the catalogue's order when known. */
  parameters: { name: string; value: string | number | boolean; description: string | null }[];
  /** The playbook that would undo it, when the catalogue is given and names one. */
  undoneBy: { playbookId: string; name: string } | null;
  /** The matched rule recommends it. */
  recommendedByRule: boolean;
}

export interface ApprovalEntityView {
  entityId: string;
  entityType: PlaybookEntityType;
  name: string;
  /** For a user or mailbox entity; null otherwise. */
  userPrincipalName: string | null;
  /** For a user entity, when known; null otherwise. */
  userObjectId: string | null;
  /** The sequences of the playbooks acting on it. */
  playbooks: number[];
}

const reasonTexts: Record<ApprovalReason, string> = {
  RequestedByCaller: "The requester asked for approval.",
  WorkspacePolicy: "The workspace's approval policy requires it.",
  PartnerApproval: "The managing service provider's approval setting requires it.",
};

/** The reasons a run waits (or waited) for approval, each with the words a person reads. */
export function approvalReasonViews(codes: readonly string[]): { code: string; text: string }[] {
  return codes.map((code) => ({ code, text: reasonTexts[code as ApprovalReason] ?? code }));
}

/** Where a run's approval stands: why it was needed, its terms, who approved, the final decision. */
export type ApprovalStanding = Pick<
  ApprovalRequestView,
  "awaitingDecision" | "expiresAt" | "timeoutHours" | "reasons" | "approvals" | "requiredApprovals" | "requiredSides" | "policy" | "policyChangedSince" | "preAuthorization" | "approvalsStillNeeded" | "decision"
>;

/** The approval of a run as the queue and the incident's run list show it (approvals needed by the workspace's current policy while it waits). */
export function approvalStandingOf(run: GamebookRunRecord, workspace: WorkspaceRecord): ApprovalStanding {
  const terms = approvalTermsOf(run);
  const awaitingDecision = run.status === "Pending" && run.isQueued;
  const requiredApprovals = approvalsNeeded(run);
  const { approval } = run;
  const current = approvalPolicyOf(workspace);
  return {
    awaitingDecision,
    expiresAt: terms.expiresAt,
    timeoutHours: terms.timeoutHours,
    reasons: approvalReasonViews(approval.reasons),
    approvals: terms.approvals.map((a) => ({ by: a.by, byUserId: a.byUserId, side: a.side ?? null, at: a.at, comment: a.comment })),
    requiredApprovals,
    requiredSides: terms.requiredSides,
    policy: approval.policy ? { ...approval.policy } : null,
    policyChangedSince: approval.policy ? !isDeepStrictEqual(approvalPolicyOf({ gamebookApproval: approval.policy }), current) : false,
    preAuthorization: approval.preAuthorization ? { ...approval.preAuthorization, createdBy: { ...approval.preAuthorization.createdBy } } : null,
    approvalsStillNeeded: awaitingDecision ? Math.max(0, requiredApprovals - terms.approvals.length) : 0,
    decision:
      approval.decision === null
        ? null
        : {
            outcome: approval.decision,
            by: approval.decidedBy,
            byUserId: approval.decidedByUserId ?? null,
            at: approval.decidedAt,
            comment: approval.comment,
            expired: approval.expired === true,
          },
  };
}

/** A run's playbooks in order, with their parameters and, given the catalogue, what each parameter means and what would undo each. */
export function runPlaybookViews(run: GamebookRunRecord, catalogue?: PlaybookCatalogueRecord): ApprovalPlaybookView[] {
  const catalogued = new Map((catalogue?.playbooks ?? []).map((p) => [p.id, p]));
  const matchedRule = run.matchedRule ?? null;
  return [...run.playbooks]
    .sort((a, b) => a.sequence - b.sequence)
    .map((p): ApprovalPlaybookView => {
      const known = catalogued.get(p.referenceId);
      const declared = known?.parameters ?? [];
      const names = [...declared.map((d) => d.name).filter((n) => n in p.parameters), ...Object.keys(p.parameters).filter((n) => !declared.some((d) => d.name === n))];
      const undo = known?.recoverPlaybookId ? catalogued.get(known.recoverPlaybookId) : undefined;
      return {
        sequence: p.sequence,
        playbookId: p.referenceId,
        name: p.name,
        description: p.description,
        entityType: p.entityType,
        entityId: p.entityId,
        affectedEntity: p.affectedEntity,
        isAdminRequired: p.isAdminRequired,
        parameters: names.map((name) => ({ name, value: p.parameters[name]!, description: declared.find((d) => d.name === name)?.description ?? null })),
        undoneBy: undo ? { playbookId: undo.id, name: undo.name } : null,
        recommendedByRule: matchedRule?.playbookIds.includes(p.referenceId) ?? false,
      };
    });
}

export function approvalRequestView(run: GamebookRunRecord, workspace: WorkspaceRecord, catalogue?: PlaybookCatalogueRecord): ApprovalRequestView {
  const matchedRule = run.matchedRule ?? null;
  const ordered = [...run.playbooks].sort((a, b) => a.sequence - b.sequence);

  const entities = new Map<string, ApprovalEntityView>();
  for (const p of ordered) {
    if (p.entityType === "Incident") continue;
    const seen = entities.get(p.entityId);
    if (seen) {
      seen.playbooks.push(p.sequence);
      continue;
    }
    entities.set(p.entityId, {
      entityId: p.entityId,
      entityType: p.entityType,
      name: p.affectedEntity,
      userPrincipalName: p.userPrincipalName || null,
      userObjectId: p.userObjectId || null,
      playbooks: [p.sequence],
    });
  }

  const standing = approvalStandingOf(run, workspace);
  return {
    runId: run.id,
    workspace: { id: run.workspaceId, name: workspace.name || run.workspaceName },
    title: run.title,
    gamebook: run.originalGamebookId ? { id: run.originalGamebookId, title: run.originalGamebookTitle } : null,
    status: run.status,
    awaitingDecision: standing.awaitingDecision,
    incident: { id: run.incidentId, source: run.source, number: run.incidentNumber, title: run.incidentTitle },
    playbooks: runPlaybookViews(run, catalogue),
    entities: [...entities.values()],
    matchedRule: matchedRule && { incidentTitle: matchedRule.incidentTitle, playbookIds: [...matchedRule.playbookIds] },
    requestedBy: { ...requesterOf(run) },
    requestedAt: run.creationDate,
    expiresAt: standing.expiresAt,
    timeoutHours: standing.timeoutHours,
    reasons: standing.reasons,
    isAdminRequired: run.isAdminRequired,
    approvals: standing.approvals,
    requiredApprovals: standing.requiredApprovals,
    requiredSides: standing.requiredSides,
    policy: standing.policy,
    policyChangedSince: standing.policyChangedSince,
    preAuthorization: standing.preAuthorization,
    approvalsStillNeeded: standing.approvalsStillNeeded,
    decision: standing.decision,
  };
}
