import type { VendorIncident } from "../../model/incidents/incident";
import type { GamebookRunRecord, PlaybookEntryRecord, RunLink, RunMatchedRule, RunRequester, RunSubmitter } from "../../model/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { approvalExpiresAt, approvalTermsFor, type ApprovalDecision, type GamebookApprovalPolicy } from "./approval-policy";
import { matchingRules } from "./playbook-rules";
import { playbookStepId } from "./run-sequence";
import { affectedEntityOf, type PlannedPlaybook, type RunGamebookRequest } from "./run-request";
import { initialRunState } from "./run-state";

export interface NewRun {
  id: string;
  /** The trace id of the submission (the request id of the API call). */
  tracingId: string;
  now: Date;
  workspace: WorkspaceRecord;
  incident: VendorIncident;
  request: RunGamebookRequest;
  planned: readonly PlannedPlaybook[];
  catalogue: PlaybookCatalogueRecord;
  submitter: RunSubmitter;
  requestedBy: RunRequester;
  approval: ApprovalDecision;
  /** The workspace's approval policy: how long a waiting run waits, and how many must approve it. */
  policy: GamebookApprovalPolicy;
  /** Started by automation rather than by a caller. */
  isAutoRun: boolean;
  /** The run it retries, when it is a retry (`isRetryGamebook`). */
  retryOf?: RunLink | null;
  /** The run it undoes, when it is an undo (`isRecover`). */
  undoOf?: RunLink | null;
}

/** A new run (docs/contract.md §2.6): `Pending`, waiting for approval or dispatched, every playbook `Pending`. */
export function newRunRecord(input: NewRun): GamebookRunRecord {
  const { incident, planned, catalogue, workspace } = input;
  const at = input.now.toISOString();
  const state = initialRunState(
    planned.map((p) => p.sequence),
    input.approval.required,
    at,
  );
  const playbooks: PlaybookEntryRecord[] = planned.map((p, i) => {
    const entityProperties = p.entity?.properties ?? {};
    const text = (value: unknown) => (typeof value === "string" ? value : "");
    return {
      id: playbookStepId(input.id, p.sequence),
      referenceId: p.playbook.id,
      entityId: p.entity?.id ?? incident.id,
      name: p.playbook.name,
      description: p.playbook.description,
      affectedEntity: affectedEntityOf(p, incident),
      tracingId: input.tracingId,
      userObjectId: p.entity?.kind === "Account" ? text(entityProperties.directoryObjectId) : "",
      userPrincipalName: p.entity?.kind === "Account" || p.entity?.kind === "Mailbox" ? text(entityProperties.upn) || p.entity.name : "",
      internetMessageId: p.entity?.kind === "Mailbox" ? text(entityProperties.internetMessageId) : "",
      entityType: p.playbook.entityType,
      isRecommended: p.playbook.isRecommended,
      isAdminRequired: p.playbook.isAdminRequired,
      ...state.playbooks[i]!,
      parameters: { ...p.parameters },
      action: p.playbook.action,
      actionName: p.playbook.referenceId,
    };
  });
  const gamebook = catalogue.gamebooks.find(
    (g) => g.playbooks.length === planned.length && [...g.playbooks].sort((a, b) => a.sequence - b.sequence).every((gp, i) => gp.playbookId === planned[i]!.playbook.id),
  );
  const recoverIds = new Set(catalogue.playbooks.flatMap((p) => (p.recoverPlaybookId ? [p.recoverPlaybookId] : [])));
  const title = gamebook?.title ?? adHocTitle(planned);
  // Who asked: the service account, the person in the portal, or the service for an automation rule.
  const displayName = input.requestedBy.name;
  const run: GamebookRunRecord = {
    id: input.id,
    tracingId: input.tracingId,
    incidentId: incident.id,
    source: incident.source,
    // What the run acts on is the incident as its vendor holds it now, whatever the caller last read.
    incidentTitle: incident.title,
    incidentNumber: incident.number,
    isOcr: false,
    isRecover: input.undoOf ? true : planned.every((p) => recoverIds.has(p.playbook.id)),
    isAdminRequired: planned.some((p) => p.playbook.isAdminRequired),
    isAutoRun: input.isAutoRun,
    isRetryGamebook: input.retryOf ? true : false,
    isQueued: state.isQueued,
    // The service account, the person's user id, or for the service acting on its own (an automation
    // rule) the GUID its audit events carry.
    triggedByUserId: input.requestedBy.id,
    displayName,
    modificationDate: at,
    creationDate: at,
    status: state.status,
    title,
    summary: "",
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    tenantId: workspace.tenantId,
    originalGamebookId: gamebook?.id ?? "",
    originalGamebookTitle: gamebook?.title ?? "",
    playbooks,
    accountId: workspace.accountId,
    submitter: input.submitter,
    requestedBy: { ...input.requestedBy },
    matchedRule: matchedRuleOf(catalogue, incident, planned),
    retryOf: input.retryOf ? { runId: input.retryOf.runId, sequences: [...input.retryOf.sequences] } : null,
    undoOf: input.undoOf ? { runId: input.undoOf.runId, sequences: [...input.undoOf.sequences] } : null,
    cancellation: null,
    approval: {
      reasons: [...input.approval.reasons],
      decision: null,
      decidedBy: null,
      decidedAt: null,
      comment: null,
      decidedByUserId: null,
      // The terms are fixed when the run starts waiting, so that its expiry needs no policy read.
      expiresAt: input.approval.required ? approvalExpiresAt(input.policy, input.now) : null,
      ...(input.approval.required
        ? approvalTermsFor(input.policy, planned.map((p) => p.playbook), input.approval.reasons, !!input.approval.preAuthorization)
        : { requiredApprovals: 0, requiredSides: [] }),
      // What let the run past the workspace's policy, when a standing pre-authorization did.
      ...(input.approval.preAuthorization ? { preAuthorization: { ...input.approval.preAuthorization } } : {}),
      approvals: [],
      // The request keeps the policy it was made under: a later change applies to new requests only.
      ...(input.approval.required ? { policy: { ...input.policy } } : {}),
    },
    dispatchedAt: input.approval.required ? "" : at,
    searchText: searchTextOf([title, incident.title, displayName]),
  };
  return withSummary(run);
}

/**
 * The rule behind the run's playbooks: among the workspace's rules matching the incident's title
 * (most specific first), the first that recommends one of them, with every playbook of the run that
 * rules of that same pattern recommend. Null when no rule recommends any of them.
 */
function matchedRuleOf(catalogue: PlaybookCatalogueRecord, incident: VendorIncident, planned: readonly PlannedPlaybook[]): RunMatchedRule | null {
  const inRun = new Set(planned.map((p) => p.playbook.id));
  const rules = matchingRules(catalogue.rules, catalogue.playbooks, incident.title).filter((r) => inRun.has(r.playbookId));
  const first = rules[0];
  if (!first) return null;
  const playbookIds = [...new Set(rules.filter((r) => r.incidentTitle === first.incidentTitle).map((r) => r.playbookId))];
  return { incidentTitle: first.incidentTitle, playbookIds };
}

/** The history's `query` matches this: titles and the submitter's name, compared in lower case. */
export function searchTextOf(parts: readonly string[]): string {
  return parts.map((p) => p.normalize("NFC").toLowerCase()).join("\n");
}

/** The history's `query` as compared with `searchText`. */
export function searchTerm(query: string): string {
  return query.normalize("NFC").trim().toLowerCase();
}

/** A title for playbooks that are not one of the catalogue's gamebooks. */
function adHocTitle(planned: readonly PlannedPlaybook[]): string {
  const names = planned.map((p) => p.playbook.name);
  return names.length <= 2 ? names.join(" and ") : `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`;
}

/** The run with a `summary` that says where it stands, in words an analyst reads in a list. */
export function withSummary<R extends GamebookRunRecord>(run: R): R {
  return { ...run, summary: summaryOf(run) };
}

function summaryOf(run: GamebookRunRecord): string {
  const n = run.playbooks.length;
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  const succeeded = run.playbooks.filter((p) => p.status === "Succeeded").length;
  const skipped = run.playbooks.filter((p) => p.status === "Skipped").length;
  const failed = run.playbooks.find((p) => p.status === "Failed");
  switch (run.status) {
    case "Pending":
      if (run.isQueued) {
        const given = run.approval.approvals?.length ?? 0;
        const progress = given > 0 ? `; ${given} of ${run.approval.requiredApprovals ?? given + 1} approvals given` : "";
        return `Waiting for approval (${describeReasons(run.approval.reasons)}${progress}); ${plural(n, "playbook")} not started.`;
      }
      return `Dispatched; ${plural(n, "playbook")} waiting for the executor.`;
    case "Running": {
      const current = run.playbooks.find((p) => p.status === "Running");
      return current ? `Running playbook ${current.sequence} of ${n}: ${current.name} on ${current.affectedEntity}.` : `${succeeded} of ${n} playbooks done.`;
    }
    case "Succeeded":
      return n === 1 ? "The playbook succeeded." : `All ${n} playbooks succeeded.`;
    case "PartiallySucceeded":
    case "Failed": {
      const head = run.status === "Failed" ? `${failed?.name ?? "A playbook"} failed` : `${succeeded} of ${n} playbooks succeeded; ${failed?.name ?? "one"} failed`;
      return `${head}${skipped > 0 ? ` and ${plural(skipped, "playbook")} after it ${skipped === 1 ? "was" : "were"} skipped` : ""}.`;
    }
    case "Denied":
      if (run.approval.expired) return `Denied: nobody decided the approval request in time (${run.approval.comment}); nothing ran.`;
      return `Denied${run.approval.decidedBy ? ` by ${run.approval.decidedBy}` : ""}; nothing ran.${run.approval.comment ? ` Reason: ${run.approval.comment}` : ""}`;
    case "Cancelled": {
      const by = run.cancellation ? ` by ${run.cancellation.by}` : "";
      const inFlight = run.playbooks.find((p) => p.status === "Running");
      const awaited = inFlight ? `; ${inFlight.name} was already running and its outcome is recorded when it ends` : "";
      return `Cancelled${by} after ${plural(succeeded, "playbook")} succeeded${awaited}.`;
    }
  }
}

function describeReasons(reasons: readonly string[]): string {
  const words: Record<string, string> = {
    RequestedByCaller: "requested by the caller",
    WorkspacePolicy: "workspace policy",
    PartnerApproval: "partner approval setting",
  };
  return reasons.length === 0 ? "requested" : reasons.map((r) => words[r] ?? r).join(", ");
}
