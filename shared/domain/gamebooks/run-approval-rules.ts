import { derivedGuid } from "../../platform/ids/derived-guid";
import { ApiError } from "../../platform/errors/api-error";
import type { GamebookRunRecord, RunApproval, RunApprovalEntry, RunRequester } from "../../model/gamebooks/gamebook-run";
import { approveRun, denyRun, recordApproval } from "./run-state";
import { withSummary } from "./run-record";
import { missingSides, requiredSidesOf, sideWords, type ApprovalSide } from "../../model/gamebooks/approval-sides";

/**
 * The rules of deciding a run that waits for approval, as pure functions of the run (run-approval.ts
 * commits what they answer). A person approves or denies; the expiry denies a request nobody decided
 * in time. Who asked for a run may deny it but never approve it; where two approvers are needed, the
 * second must be someone else, and the run is dispatched with the second approval.
 */

/** Who decides: the person (their user id and name) or, for an expiry, the service itself. */
export interface RunDecider {
  userId: string;
  name: string;
  /** The side the person decides for (`approval-sides.ts`); absent for the service itself. */
  side?: ApprovalSide;
}

export type ApprovalAction =
  | { kind: "Approve"; by: RunDecider; comment: string | null }
  | { kind: "Deny"; by: RunDecider; comment: string | null }
  /** Only when the request is past its `expiresAt`. */
  | { kind: "Expire"; by: RunDecider };

/**
 * `Approved`: the last approval needed, the run is dispatched. `ApprovalRecorded`: an approval that
 * is not yet enough, the run keeps waiting. `Denied` and `Expired`: the run ends `Denied`.
 */
export type ApprovalOutcome = "Approved" | "ApprovalRecorded" | "Denied" | "Expired";

/** The name the service decides under when a request expires (its audit events carry it too). */
export const APPROVAL_EXPIRY_NAME = "Approval expiry";

/** The service's own identity for expiries: the GUID its audit events carry for it (`auditRecord`). */
export const approvalExpiryDecider: RunDecider = { userId: derivedGuid(`actor/gamebook/${APPROVAL_EXPIRY_NAME}`), name: APPROVAL_EXPIRY_NAME };

/**
 * Who asked for the run. Runs stored before the requester was kept are read from their submitter: a
 * service account, or the service itself under the id its `triggedByUserId` carries.
 */
export function requesterOf(run: Pick<GamebookRunRecord, "requestedBy" | "submitter" | "triggedByUserId">): RunRequester {
  if (run.requestedBy) return run.requestedBy;
  return run.submitter.serviceAccountId
    ? { kind: "ServiceAccount", id: run.submitter.serviceAccountId, name: run.submitter.name }
    : { kind: "Service", id: run.triggedByUserId, name: run.submitter.name };
}

/** The approval terms of a run, with the meaning older runs had where they lack a field: no expiry, one approver. */
export interface ApprovalTerms {
  expiresAt: string | null;
  /** How long the request waits, in whole hours; null without an expiry. */
  timeoutHours: number | null;
  requiredApprovals: number;
  /** The sides that must each give one of them. */
  requiredSides: ApprovalSide[];
  approvals: RunApprovalEntry[];
}

export function approvalTermsOf(run: Pick<GamebookRunRecord, "approval" | "creationDate">): ApprovalTerms {
  const expiresAt = run.approval.expiresAt ?? null;
  const requiredSides = requiredSidesOf(run.approval);
  return {
    expiresAt,
    timeoutHours: expiresAt === null ? null : Math.round((Date.parse(expiresAt) - Date.parse(run.creationDate)) / 3_600_000),
    // One approval per side at least: a two-sided request needs two people whatever else it says.
    requiredApprovals: Math.max(1, run.approval.requiredApprovals ?? 1, requiredSides.length),
    requiredSides,
    approvals: [...(run.approval.approvals ?? [])],
  };
}

/**
 * Why this person's approval could not count towards the run, or null when it could: the requester
 * never approves; nobody approves twice; and when the approvals still to come are all needed for
 * sides not yet heard from, only a person of one of those sides may give the next one (a customer's
 * Owner cannot meet the managing provider's partner setting).
 */
export function approvalRefusal(run: Pick<GamebookRunRecord, "approval" | "creationDate" | "requestedBy" | "submitter" | "triggedByUserId">, by: RunDecider): { code: "FORBIDDEN" | "CONFLICT"; message: string } | null {
  if (sameId(requesterOf(run).id, by.userId)) return { code: "FORBIDDEN", message: "The person who requested a gamebook run cannot approve it: another person must." };
  const terms = approvalTermsOf(run);
  if (terms.approvals.some((a) => sameId(a.byUserId, by.userId))) return { code: "CONFLICT", message: `${by.name} has already approved this run: a second, different person must approve it.` };
  const missing = missingSides(terms.requiredSides, terms.approvals.map((a) => a.side));
  const spare = terms.requiredApprovals - terms.approvals.length - missing.length;
  if (spare <= 0 && missing.length > 0 && !(by.side && missing.includes(by.side))) {
    const why = terms.requiredSides.length > 1 ? "the workspace's policy asks for one approver of each side" : "the managing provider's partner setting made it wait";
    return { code: "FORBIDDEN", message: `This run needs ${missing.map(sideWords).join(" and ")} approval (${why}): a person of that side must approve it.` };
  }
  return null;
}

/**
 * How many different people must approve the run: what the policy it was made under asked when it
 * started waiting. A policy change applies to new requests only: tightening it does not hold back a
 * run already waiting, and loosening it does not take back an approval a waiting run was told it needs.
 */
export function approvalsNeeded(run: Pick<GamebookRunRecord, "approval" | "creationDate">): number {
  return approvalTermsOf(run).requiredApprovals;
}

/** Whether these approvals dispatch the run: enough of them, and one from every side it needs. */
function approvalsComplete(terms: ApprovalTerms, approvals: readonly RunApprovalEntry[], needed: number): boolean {
  return approvals.length >= needed && missingSides(terms.requiredSides, approvals.map((a) => a.side)).length === 0;
}

/** Whether the request is past its expiry at `now`; never for a run without one. */
export function isExpired(run: Pick<GamebookRunRecord, "approval">, now: Date): boolean {
  const expiresAt = run.approval.expiresAt;
  return typeof expiresAt === "string" && Date.parse(expiresAt) <= now.getTime();
}

/**
 * The run after a decision, and what the decision was. Throws `CONFLICT` when the run is not waiting
 * (decided, cancelled, dispatched), when an approval comes after the request expired, when the same
 * person approves twice, and when an expiry comes before the request's time; `FORBIDDEN` when the
 * person who asked for the run approves it.
 */
export function decideApproval<R extends GamebookRunRecord>(run: R, action: ApprovalAction, now: Date): { run: R; outcome: ApprovalOutcome } {
  const at = now.toISOString();
  const terms = approvalTermsOf(run);
  /** The run's approval record, with every field written out (older runs gain theirs here). */
  const approval = (fields: Partial<RunApproval>): RunApproval => ({
    ...run.approval,
    expiresAt: terms.expiresAt,
    requiredApprovals: terms.requiredApprovals,
    requiredSides: terms.requiredSides,
    approvals: terms.approvals,
    ...fields,
  });
  const decidedBy = (by: RunDecider) => ({ decidedBy: by.name, decidedByUserId: by.userId, decidedAt: at });
  switch (action.kind) {
    case "Expire": {
      const denied = denyRun(run, at);
      if (!isExpired(run, now)) {
        throw new ApiError("CONFLICT", `The approval request has not expired: it expires at ${terms.expiresAt ?? "no set time"}.`, { target: "expiresAt" });
      }
      const comment = `expired after ${terms.timeoutHours} h`;
      return { run: withSummary({ ...denied, approval: approval({ decision: "Denied", ...decidedBy(action.by), comment, expired: true }) }), outcome: "Expired" };
    }
    case "Deny": {
      const denied = denyRun(run, at);
      return { run: withSummary({ ...denied, approval: approval({ decision: "Denied", ...decidedBy(action.by), comment: action.comment }) }), outcome: "Denied" };
    }
    case "Approve": {
      // The run's state is checked first, so that a decided run answers as decided whoever asks.
      recordApproval(run, at);
      if (isExpired(run, now)) {
        throw new ApiError("CONFLICT", `The approval request expired at ${terms.expiresAt}: the run can no longer be approved and is denied as expired.`, {
          target: "expiresAt",
        });
      }
      const refusal = approvalRefusal(run, action.by);
      if (refusal) throw new ApiError(refusal.code, refusal.message, { target: "runId" });
      const entry: RunApprovalEntry = { by: action.by.name, byUserId: action.by.userId, ...(action.by.side ? { side: action.by.side } : {}), at, comment: action.comment };
      const approvals = [...terms.approvals, entry];
      const requiredApprovals = approvalsNeeded(run);
      if (!approvalsComplete(terms, approvals, requiredApprovals)) {
        return { run: withSummary({ ...recordApproval(run, at), approval: approval({ requiredApprovals, approvals }) }), outcome: "ApprovalRecorded" };
      }
      return {
        run: withSummary({
          ...approveRun(run, at),
          dispatchedAt: at,
          approval: approval({ decision: "Approved", ...decidedBy(action.by), comment: action.comment, requiredApprovals, approvals }),
        }),
        outcome: "Approved",
      };
    }
  }
}

/** Ids compare as GUIDs do: case-insensitively. */
function sameId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
