import type { ApprovalMode } from "./approval-mode";

/**
 * Who must approve a gamebook run before it executes (contract 3 and 4.1 rule 4). Two settings can
 * ask for it, and either is enough: the workspace's own policy, and the approval setting of the
 * service provider that manages the workspace's account ("partner approval"). A caller's
 * `isQueued: true` asks for it too; `isQueued: false` never waives it.
 *
 * `AllRuns`: every run waits for approval. `AdminRequiredPlaybooks`: only runs with at least one
 * playbook that needs an administrator. `NoApproval`: runs are dispatched at once.
 */
export { approvalModes } from "./approval-mode";
export type { ApprovalMode } from "./approval-mode";

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
