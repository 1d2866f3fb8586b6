import { securityInstanceValidity, type SecurityInstanceView } from "../../../domain/cloud/cloud-lookups";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import type { WorkspaceRef } from "../../../systems/cloud-inventory/port";
import type { OnboardingReason } from "./cloud-lookup-schemas";

/** Whether a security instance can be onboarded as a workspace, as the form's check and the onboarding itself see it. */
export type InstanceCheck = { instance: SecurityInstanceView; reason: null; detail: null } | { instance: SecurityInstanceView | null; reason: OnboardingReason; detail: string };

/**
 * Whether the named workspace is a security instance that can become a workspace of this service:
 * the cloud's own validation (the contract's `validate`, through the same domain operation), then
 * whether a workspace already has the instance's id — the workspace id is the instance's id
 * (docs/contract.md §2.12), and an offboarded workspace keeps its id with its audit trail, so an
 * instance is onboarded once. An unknown subscription or resource group is the lookup's 404.
 */
export async function checkSecurityInstance(ctx: Uses<"cloud" | "stores">, person: Person, ref: WorkspaceRef): Promise<InstanceCheck> {
  const validity = await securityInstanceValidity(ctx, person.organizationAccountIds, ref);
  if (validity.reason !== undefined) {
    const detail =
      validity.reason === "WorkspaceNotFound"
        ? `The resource group ${ref.resourceGroup} holds no Log Analytics workspace named ${ref.workspaceName}.`
        : `${ref.workspaceName} exists, but the security solution is not onboarded on it: onboard it in the cloud first.`;
    return { instance: null, reason: validity.reason, detail };
  }
  const { instance } = validity;
  const existing = (await ctx.stores.workspaces.read(instance.id))?.value;
  if (!existing) return { instance, reason: null, detail: null };
  // Named only when it is the person's to see; a workspace of another organization is not described.
  const named = person.organizationAccountIds.includes(existing.accountId) ? ` as ${existing.name}` : "";
  const detail = existing.offboarded
    ? `${instance.name} was onboarded${named} and offboarded since; its id stays with that workspace's audit trail, so it cannot be onboarded again.`
    : `${instance.name} is already onboarded${named}.`;
  return { instance, reason: "AlreadyOnboarded", detail };
}
