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
  /**
   * False once the organization is deactivated (portal): its own service accounts and people are
   * refused at authentication and no workspace is onboarded into it. Absent: active.
   */
  isActive?: boolean;
  /** When and by whom it was deactivated; absent while active. */
  deactivated?: { at: string; byUserId: string; byName: string };
  /** Absent on accounts written before they were kept with their times. */
  createdAt?: string;
  lastModifiedAt?: string;
}

/** Whether an account is active: only one deactivated on purpose is not. */
export function isActiveAccount(account: Pick<AccountRecord, "isActive">): boolean {
  return account.isActive !== false;
}
