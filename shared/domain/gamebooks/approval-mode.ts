/**
 * Who must approve a run (approval-policy.ts): `AllRuns`, only runs with a playbook that needs an
 * administrator (`AdminRequiredPlaybooks`), or nobody (`NoApproval`).
 */
export const approvalModes = ["NoApproval", "AdminRequiredPlaybooks", "AllRuns"] as const;

export type ApprovalMode = (typeof approvalModes)[number];

/** A service provider's approval setting for the accounts it manages (kept on the provider's account). */
export interface PartnerApprovalRecord {
  mode: ApprovalMode;
  /** The managed accounts it covers; empty means every account the provider manages. */
  accountIds: string[];
}
