import { ApiError } from "../../platform/errors/api-error";

/**
 * The port to the cloud estate the service reads for organization administration: subscriptions,
 * resource groups, Log Analytics workspaces (and whether the security solution is onboarded on them)
 * and network security groups, as Azure Resource Manager shows them to the service's own identity.
 *
 * Adapters: the simulated estate of the demo organization (local host) and Azure Resource Manager.
 * An organization sees only the subscriptions configured for its accounts (`subscriptionsVisibleTo`);
 * callers check that before asking about a subscription. Every method fails only with an ApiError:
 * NOT_FOUND for a subscription or resource group that does not exist, RATE_LIMITED, TIMEOUT,
 * UPSTREAM_ERROR (docs/contract.md §7), and EXTENSION_NOT_ENABLED when the deployment reads no cloud.
 */
export interface CloudInventory {
  /**
   * The subscription ids (lower case) an organization may see, given its account ids (its own
   * account and the customer accounts it manages). Never includes another organization's.
   */
  subscriptionsVisibleTo(accountIds: readonly string[]): ReadonlySet<string>;
  /** Every subscription the service's identity can read, each page followed. */
  listSubscriptions(signal?: AbortSignal): Promise<CloudSubscription[]>;
  /** The resource groups of a subscription. NOT_FOUND when the subscription does not exist. */
  listResourceGroups(subscriptionId: string, signal?: AbortSignal): Promise<CloudResourceGroup[]>;
  /** The Log Analytics workspaces of a resource group, each with its onboarding state. NOT_FOUND for an unknown group. */
  listWorkspaces(group: ResourceGroupRef, signal?: AbortSignal): Promise<LogAnalyticsWorkspace[]>;
  /**
   * One workspace by name (case-insensitive, as Azure compares names), or undefined when the group
   * has none of that name. NOT_FOUND when the group itself does not exist.
   */
  findWorkspace(ref: WorkspaceRef, signal?: AbortSignal): Promise<LogAnalyticsWorkspace | undefined>;
  /** The network security groups of a subscription, across its resource groups. */
  listNetworkSecurityGroups(subscriptionId: string, signal?: AbortSignal): Promise<NetworkSecurityGroup[]>;
}

/** No cloud behind the lookups: every call, the visibility check first, is 400 EXTENSION_NOT_ENABLED. */
export function disabledCloudInventory(): CloudInventory {
  const refuse = (): never => {
    throw new ApiError("EXTENSION_NOT_ENABLED", "Cloud-resource lookups are not enabled for this deployment.");
  };
  const refuseAsync = async (): Promise<never> => refuse();
  return {
    subscriptionsVisibleTo: refuse,
    listSubscriptions: refuseAsync,
    listResourceGroups: refuseAsync,
    listWorkspaces: refuseAsync,
    findWorkspace: refuseAsync,
    listNetworkSecurityGroups: refuseAsync,
  };
}

export interface CloudSubscription {
  /** Lower-case GUID. */
  subscriptionId: string;
  displayName: string;
}

export interface CloudResourceGroup {
  /** Full ARM resource id: `/subscriptions/{id}/resourceGroups/{name}`. */
  resourceId: string;
  name: string;
  /** Azure region name, e.g. `westeurope`. */
  location: string;
}

export interface LogAnalyticsWorkspace {
  /** Full ARM resource id of the workspace. */
  resourceId: string;
  name: string;
  location: string;
  /** The workspace's own GUID (Log Analytics "workspace id"); null while it is still being created. */
  customerId: string | null;
  /** The security solution is onboarded on the workspace (a Sentinel onboarding state exists). */
  onboarded: boolean;
}

export interface NetworkSecurityGroup {
  /** Full ARM resource id of the network security group. */
  resourceId: string;
  name: string;
  location: string;
}

export interface ResourceGroupRef {
  subscriptionId: string;
  resourceGroup: string;
}

export interface WorkspaceRef extends ResourceGroupRef {
  workspaceName: string;
}

/** The ARM resource id of a resource group, as ARM spells it. */
export function resourceGroupId(subscriptionId: string, resourceGroup: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}`;
}

/** Azure compares resource group and resource names without regard to case. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
