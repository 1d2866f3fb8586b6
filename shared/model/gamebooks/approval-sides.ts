import type { AccountRecord } from "../organizations/account";

/**
 * The two sides of a managed workspace that approval can ask for: its own organization (a customer)
 * and the service provider that manages it. A managing provider's partner setting is the provider's
 * demand, so only the provider's people can meet it; a two-sided policy asks for one person of each.
 * A workspace of an organization nobody manages has one side only: its organization's own kind.
 */
export const approvalSides = ["Customer", "Provider"] as const;

export type ApprovalSide = (typeof approvalSides)[number];

/**
 * The side a person registered in `personAccountId` decides for on a workspace of `workspaceAccount`:
 * the managing provider's people are `Provider`; the workspace's own organization's people are
 * `Customer`, or `Provider` when that organization is itself a service provider (its own workspaces).
 * Null for anyone else (the pipeline has refused them before: the workspace is not theirs).
 */
export function sideOf(personAccountId: string, workspaceAccount: Pick<AccountRecord, "id" | "kind" | "managedByAccountId">): ApprovalSide | null {
  const id = personAccountId.toLowerCase();
  if (workspaceAccount.managedByAccountId !== null && id === workspaceAccount.managedByAccountId.toLowerCase()) return "Provider";
  if (id === workspaceAccount.id.toLowerCase()) return workspaceAccount.kind === "ServiceProvider" ? "Provider" : "Customer";
  return null;
}

/**
 * The sides a waiting run needs an approval from, as its approval record says: those recorded when it
 * started waiting, or, for runs recorded before sides were, the provider's when its partner setting
 * made it wait.
 */
export function requiredSidesOf(approval: { reasons: readonly string[]; requiredSides?: readonly ApprovalSide[] }): ApprovalSide[] {
  if (approval.requiredSides) return [...approval.requiredSides];
  return approval.reasons.includes("PartnerApproval") ? ["Provider"] : [];
}

/** The sides still missing, given the sides of the approvals so far. */
export function missingSides(required: readonly ApprovalSide[], given: readonly (ApprovalSide | undefined)[]): ApprovalSide[] {
  return required.filter((side) => !given.includes(side));
}

/** Words for a side in a sentence a person reads: "the customer's", "the provider's". */
export function sideWords(side: ApprovalSide): string {
  return side === "Customer" ? "the customer's" : "the managing provider's";
}
