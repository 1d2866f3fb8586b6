/**
 * Who must approve a run (approval-policy.ts): `AllRuns`, only runs with a playbook that needs an
 * administrator (`AdminRequiredPlaybooks`), or nobody (`NoApproval`).
 */
export const approvalModes = ["NoApproval", "AdminRequiredPlaybooks", "AllRuns"] as const;

export type ApprovalMode = (typeof approvalModes)[number];

/** What happens to a request nobody decided in time: it is denied. */
export const approvalExpiryActions = ["Deny"] as const;

export type ApprovalExpiryAction = (typeof approvalExpiryActions)[number];

/** How long a request waits, in hours, by default and at most (30 days). */
export const DEFAULT_APPROVAL_TIMEOUT_HOURS = 24;
export const MIN_APPROVAL_TIMEOUT_HOURS = 1;
export const MAX_APPROVAL_TIMEOUT_HOURS = 720;

/**
 * A workspace's own approval policy for gamebook runs (read it with `approvalPolicyOf`, which fills
 * in the defaults).
 */
export interface GamebookApprovalPolicy {
  mode: ApprovalMode;
  /** How long a run waits for approval before `onExpiry` applies: whole hours, 1 to 720. */
  approvalTimeoutHours: number;
  onExpiry: ApprovalExpiryAction;
  /** A run with a playbook that needs an administrator needs a second, different approver. */
  requireSecondApproverForAdminPlaybooks: boolean;
  /**
   * Two-sided approval: a run that waits needs one approver of the customer (the workspace's own
   * organization) and one of the provider that manages it. Only for a workspace of a managed organization.
   */
  twoSidedApproval: boolean;
}

/**
 * The policy as a workspace record holds it: the whole object, or, on records written before the
 * policy had more than its mode, the mode alone.
 */
export type StoredApprovalPolicy = ApprovalMode | (Pick<GamebookApprovalPolicy, "mode"> & Partial<GamebookApprovalPolicy>);

/** A service provider's approval setting for the accounts it manages (kept on the provider's account). */
export interface PartnerApprovalRecord {
  mode: ApprovalMode;
  /** The managed accounts it covers; empty means every account the provider manages. */
  accountIds: string[];
}
