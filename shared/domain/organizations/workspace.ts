import type { ApprovalMode } from "../gamebooks/approval-mode";

export interface WorkspaceRecord {
  id: string;
  name: string;
  tenantId: string;
  accountId: string;
  /** The workspace's own approval policy for gamebook runs; absent: `NoApproval`. */
  gamebookApproval?: ApprovalMode;
}
