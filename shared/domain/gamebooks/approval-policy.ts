import { z } from "zod";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import {
  approvalExpiryActions,
  approvalModes,
  DEFAULT_APPROVAL_TIMEOUT_HOURS,
  MAX_APPROVAL_TIMEOUT_HOURS,
  MIN_APPROVAL_TIMEOUT_HOURS,
  type ApprovalMode,
  type GamebookApprovalPolicy,
} from "../../model/gamebooks/approval-mode";
import type { ApprovalSide } from "../../model/gamebooks/approval-sides";
import type { RunPreAuthorization } from "../../model/gamebooks/pre-authorization-record";

/**
 * Who must approve a gamebook run before it executes (docs/contract.md §3 and §4.1 rule 4). Two settings can
 * ask for it, and either is enough: the workspace's own policy, and the approval setting of the
 * service provider that manages the workspace's account ("partner approval"). A caller's
 * `isQueued: true` asks for it too; `isQueued: false` never waives it.
 *
 * `AllRuns`: every run waits for approval. `AdminRequiredPlaybooks`: only runs with at least one
 * playbook that needs an administrator. `NoApproval`: runs are dispatched at once.
 */
export { approvalModes, approvalExpiryActions, DEFAULT_APPROVAL_TIMEOUT_HOURS, MAX_APPROVAL_TIMEOUT_HOURS, MIN_APPROVAL_TIMEOUT_HOURS } from "../../model/gamebooks/approval-mode";
export type { ApprovalMode, ApprovalExpiryAction, GamebookApprovalPolicy, StoredApprovalPolicy } from "../../model/gamebooks/approval-mode";

/** A workspace's own policy. A workspace without one is `NoApproval`. */
export interface WorkspaceApprovalPolicy {
  workspaceId: string;
  mode: ApprovalMode;
}

/** A service provider's approval setting for the customer accounts it manages. */
export interface PartnerApprovalSetting {
  /** The managing service provider's account. */
  providerAccountId: string;
  mode: ApprovalMode;
  /** The managed accounts it covers; empty means every account the provider manages. */
  accountIds: readonly string[];
}

/** What the decision needs to know about a run and where it runs. */
export interface RunForApproval {
  /** The account owning the run's workspace, and the provider managing that account (null: none). */
  accountId: string;
  managedByAccountId: string | null;
  /** From the catalogue, never from the caller. */
  playbooks: readonly { isAdminRequired: boolean }[];
  /** The caller asked for approval. */
  isQueued: boolean;
}

export type ApprovalReason = "RequestedByCaller" | "WorkspacePolicy" | "PartnerApproval";

export interface ApprovalDecision {
  required: boolean;
  /** Every reason that applies, in this order: caller, workspace, partner (for the audit record). */
  reasons: ApprovalReason[];
  /** The standing pre-authorization that waived the workspace's own policy, when one did. */
  preAuthorization?: RunPreAuthorization;
}

/**
 * The decision with the workspace's standing pre-authorizations applied: one in effect that names
 * every playbook of the run waives the workspace's own policy. It waives nothing else: the managing
 * provider's partner setting is not the workspace's to waive, and a caller who asked for approval
 * (`isQueued`) gets it.
 */
export function withPreAuthorization(decision: ApprovalDecision, preAuthorization: RunPreAuthorization | null): ApprovalDecision {
  if (!preAuthorization || !decision.reasons.includes("WorkspacePolicy")) return decision;
  const reasons = decision.reasons.filter((r) => r !== "WorkspacePolicy");
  return { required: reasons.length > 0, reasons, preAuthorization };
}

/**
 * Whether the run must wait for approval, and why. A partner setting applies only to accounts that
 * its provider manages (and, when it lists accounts, only to those).
 */
export function approvalRequired(
  run: RunForApproval,
  workspacePolicy: ApprovalMode | null | undefined,
  partnerSetting: PartnerApprovalSetting | null | undefined,
): ApprovalDecision {
  const needsAdmin = run.playbooks.some((p) => p.isAdminRequired);
  const demands = (mode: ApprovalMode) => mode === "AllRuns" || (mode === "AdminRequiredPlaybooks" && needsAdmin);
  const reasons: ApprovalReason[] = [];
  if (run.isQueued) reasons.push("RequestedByCaller");
  if (workspacePolicy && demands(workspacePolicy)) reasons.push("WorkspacePolicy");
  if (partnerSetting && partnerCovers(partnerSetting, run) && demands(partnerSetting.mode)) reasons.push("PartnerApproval");
  return { required: reasons.length > 0, reasons };
}

function partnerCovers(setting: PartnerApprovalSetting, run: RunForApproval): boolean {
  if (run.managedByAccountId === null || run.managedByAccountId !== setting.providerAccountId) return false;
  return setting.accountIds.length === 0 || setting.accountIds.includes(run.accountId);
}

/**
 * A workspace's approval policy with every setting filled in. Records written before the policy had
 * more than its mode hold the mode alone; what they lack takes its default (24 hours, deny on expiry,
 * one approver). A mode this code does not know (written by a newer version) is read as `AllRuns`:
 * an unreadable policy holds runs back rather than letting them through.
 */
export function approvalPolicyOf(workspace: Pick<WorkspaceRecord, "gamebookApproval">): GamebookApprovalPolicy {
  const stored = workspace.gamebookApproval;
  const given: Partial<GamebookApprovalPolicy> = typeof stored === "string" ? { mode: stored } : (stored ?? {});
  const hours = given.approvalTimeoutHours;
  return {
    mode: given.mode === undefined ? "NoApproval" : approvalModes.includes(given.mode) ? given.mode : "AllRuns",
    approvalTimeoutHours:
      Number.isInteger(hours) && hours! >= MIN_APPROVAL_TIMEOUT_HOURS && hours! <= MAX_APPROVAL_TIMEOUT_HOURS ? hours! : DEFAULT_APPROVAL_TIMEOUT_HOURS,
    onExpiry: "Deny",
    requireSecondApproverForAdminPlaybooks: given.requireSecondApproverForAdminPlaybooks === true,
    twoSidedApproval: given.twoSidedApproval === true,
  };
}

/** The policy as a settings page sends it: the mode, and the other settings or their defaults. */
/**
 * A policy as a settings page sends it: the mode, and whichever other settings change. A setting left
 * out keeps its current value (a workspace that never had one: its default), so that leaving one out
 * never loosens the policy (one approver instead of two, a longer wait).
 */
export const approvalPolicyInput = z.strictObject({
  mode: z.enum(approvalModes).describe("`NoApproval`, `AdminRequiredPlaybooks` or `AllRuns`."),
  approvalTimeoutHours: z
    .int()
    .min(MIN_APPROVAL_TIMEOUT_HOURS)
    .max(MAX_APPROVAL_TIMEOUT_HOURS)
    .optional()
    .describe(
      `How long a run waits for approval, in hours (${MIN_APPROVAL_TIMEOUT_HOURS} to ${MAX_APPROVAL_TIMEOUT_HOURS}; ${DEFAULT_APPROVAL_TIMEOUT_HOURS} until set). Left out: as it is.`,
    ),
  onExpiry: z.enum(approvalExpiryActions).optional().describe("What happens to a request nobody decided in time: `Deny`. Left out: as it is."),
  requireSecondApproverForAdminPlaybooks: z
    .boolean()
    .optional()
    .describe("A run with a playbook that needs an administrator needs a second, different approver (false until set). Left out: as it is."),
  twoSidedApproval: z
    .boolean()
    .optional()
    .describe(
      "Two-sided approval: a run that waits needs one approver of the customer (the workspace's own organization) and one of the provider that manages it (false until set; only for a workspace of a managed organization). Left out: as it is.",
    ),
});

/**
 * How many different people must approve a run waiting in a workspace with this policy: two when the
 * policy asks for a second approver and a playbook of the run needs an administrator, else one.
 */
export function requiredApprovalsFor(policy: GamebookApprovalPolicy, playbooks: readonly { isAdminRequired: boolean }[]): number {
  return policy.requireSecondApproverForAdminPlaybooks && playbooks.some((p) => p.isAdminRequired) ? 2 : 1;
}

/**
 * What a run that starts waiting now under this policy will need: how many different people, and
 * from which sides (`approval-sides.ts`) — both under a two-sided policy, else the provider's when its
 * partner setting is among the reasons. A two-sided run needs two people whatever else it says.
 */
export function approvalTermsFor(
  policy: GamebookApprovalPolicy,
  playbooks: readonly { isAdminRequired: boolean }[],
  reasons: readonly string[],
  preAuthorized = false,
): { requiredApprovals: number; requiredSides: ApprovalSide[] } {
  // A run the customer pre-authorized has the customer's side given: a two-sided policy asks only the provider's.
  const twoSided = policy.twoSidedApproval && !preAuthorized;
  const requiredSides: ApprovalSide[] = twoSided ? ["Customer", "Provider"] : reasons.includes("PartnerApproval") ? ["Provider"] : [];
  return { requiredApprovals: Math.max(requiredApprovalsFor(policy, playbooks), requiredSides.length), requiredSides };
}

/** When a request made at `at` under this policy expires. */
export function approvalExpiresAt(policy: GamebookApprovalPolicy, at: Date): string {
  return new Date(at.getTime() + policy.approvalTimeoutHours * 3_600_000).toISOString();
}
