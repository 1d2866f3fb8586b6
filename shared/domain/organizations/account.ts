import type { PartnerApprovalRecord } from "../gamebooks/approval-mode";

/** A customer account or a service provider that manages customer accounts. */
export interface AccountRecord {
  id: string;
  name: string;
  kind: "ServiceProvider" | "Customer";
  /** The service provider managing this account, if any. */
  managedByAccountId: string | null;
  /** A service provider's approval setting for gamebook runs in the accounts it manages; absent: none. */
  partnerApproval?: PartnerApprovalRecord;
}
