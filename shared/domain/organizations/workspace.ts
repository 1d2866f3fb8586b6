import type { StoredApprovalPolicy } from "../gamebooks/approval-mode";

export interface WorkspaceRecord {
  id: string;
  name: string;
  tenantId: string;
  accountId: string;
  /**
   * The workspace's own approval policy for gamebook runs; absent: `NoApproval`. Read it with
   * `approvalPolicyOf` (gamebooks/approval-policy.ts): older records hold the mode alone.
   */
  gamebookApproval?: StoredApprovalPolicy;
}
