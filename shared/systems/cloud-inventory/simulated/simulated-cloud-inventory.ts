import { ApiError } from "../../../platform/errors/api-error";
import { sameName, type CloudInventory, type LogAnalyticsWorkspace, type ResourceGroupRef } from "../port";
import { subscriptionAccess, type SubscriptionMap } from "../../../platform/config/subscription-access";
import type { SimulatedEstate, SimulatedResourceGroup, SimulatedSubscription } from "./simulated-estate";

/**
 * The cloud inventory over the simulated estate of the demo organization (the local host's default).
 * It answers as ARM would: names compared without regard to case, an unknown subscription or resource
 * group is NOT_FOUND. Who sees which subscription is `subscriptions` when given (CLOUD_SUBSCRIPTIONS),
 * else the estate's own ownership: each account sees its subscriptions, a provider also its customers'.
 */
export function createSimulatedCloudInventory(estate: SimulatedEstate, subscriptions?: SubscriptionMap): CloudInventory {
  const access = subscriptionAccess(subscriptions ?? ownership(estate));
  const subscription = (subscriptionId: string): SimulatedSubscription => {
    const found = estate.subscriptions.find((s) => s.subscriptionId === subscriptionId.toLowerCase());
    if (!found) throw new ApiError("NOT_FOUND", `Subscription ${subscriptionId} was not found.`);
    return found;
  };
  const group = ({ subscriptionId, resourceGroup }: ResourceGroupRef): SimulatedResourceGroup => {
    const found = subscription(subscriptionId).resourceGroups.find((g) => sameName(g.name, resourceGroup));
    if (!found) throw new ApiError("NOT_FOUND", `Resource group ${resourceGroup} was not found in subscription ${subscriptionId}.`);
    return found;
  };
  const copy = (w: LogAnalyticsWorkspace): LogAnalyticsWorkspace => ({ ...w });

  // Async throughout, so that a refusal arrives as a rejection, as from the real adapter.
  return {
    subscriptionsVisibleTo: (accountIds) => access.visibleTo(accountIds),
    listSubscriptions: async () => estate.subscriptions.map(({ subscriptionId, displayName }) => ({ subscriptionId, displayName })),
    listResourceGroups: async (subscriptionId) =>
      subscription(subscriptionId).resourceGroups.map(({ resourceId, name, location }) => ({ resourceId, name, location })),
    listWorkspaces: async (ref) => group(ref).workspaces.map(copy),
    findWorkspace: async (ref) => {
      const found = group(ref).workspaces.find((w) => sameName(w.name, ref.workspaceName));
      return found && copy(found);
    },
    listNetworkSecurityGroups: async (subscriptionId) => subscription(subscriptionId).networkSecurityGroups.map((n) => ({ ...n })),
  };
}

/** Each account sees the subscriptions it owns in the estate. */
function ownership(estate: SimulatedEstate): SubscriptionMap {
  const map: Record<string, string[]> = {};
  for (const s of estate.subscriptions) (map[s.accountId] ??= []).push(s.subscriptionId);
  return map;
}
