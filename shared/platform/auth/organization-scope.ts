import type { AccountStore } from "../store/ports";

/**
 * An organization is an account together with the customer accounts it manages (for a service
 * provider), or a single customer account. Organization endpoints see only these accounts.
 */
export async function organizationAccountIds(accounts: AccountStore, accountId: string): Promise<string[]> {
  const managed = await accounts.listManagedBy(accountId);
  return [accountId, ...managed.map((a) => a.id)];
}
