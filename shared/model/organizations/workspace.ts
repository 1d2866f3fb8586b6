import type { StoredApprovalPolicy } from "../gamebooks/approval-mode";
import type { WorkspaceSources } from "./workspace-sources";
import type { SlaPolicy } from "../incidents/sla-policy-record";
import type { PreAuthorizationRecord } from "../gamebooks/pre-authorization-record";

export interface WorkspaceRecord {
  id: string;
  name: string;
  tenantId: string;
  accountId: string;
  /**
   * The full ARM resource id of the security instance the workspace was onboarded from (its id is
   * the instance's workspace id); absent when it was onboarded by hand.
   */
  azureId?: string;
  /**
   * The workspace's own approval policy for gamebook runs; absent: `NoApproval`. Read it with
   * `approvalPolicyOf` (gamebooks/approval-policy.ts): older records hold the mode alone.
   */
  gamebookApproval?: StoredApprovalPolicy;
  /**
   * The workspace's own settings per source (whether it is on, the vendor's identifier of the
   * workspace, its own bridge); a source not named is on and served by the deployment's system.
   */
  sources?: WorkspaceSources;
  /** Time-to-resolve targets per severity (`slaPolicyOf`, incidents/sla-policy.ts); absent: none. */
  slaPolicy?: SlaPolicy;
  /**
   * Standing pre-authorizations the workspace's own organization recorded (gamebooks/pre-authorizations.ts):
   * playbooks that may run without asking until a date; absent: none.
   */
  preAuthorizations?: PreAuthorizationRecord[];
  /**
   * Set when the workspace is offboarded: the stores' reads then leave it out (every route answers
   * 404), while its audit trail stays exportable by its organization's Admins.
   */
  offboarded?: { at: string; byUserId: string; byName: string };
  /** Absent on workspaces written before they were kept with their times. */
  createdAt?: string;
  lastModifiedAt?: string;
}
