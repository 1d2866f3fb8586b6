import type { Config } from "../../platform/config/config";
import { ApiError } from "../../platform/errors/api-error";
import { createArmCloudInventory } from "./arm/arm-cloud-inventory";
import type { CloudInventory } from "./port";
import { subscriptionAccess } from "../../platform/config/subscription-access";

/**
 * The cloud inventory the configuration asks for: Azure Resource Manager with `CLOUD_INVENTORY=azure`,
 * none with `CLOUD_INVENTORY=disabled`; otherwise `local` (the local host's simulated estate) or,
 * without one (in Azure), none. A deployment never serves simulated cloud resources.
 */
export function createCloudInventory(config: Config, local?: () => CloudInventory): CloudInventory {
  const cloud = config.cloud;
  if (cloud.inventory === "azure") {
    return createArmCloudInventory({
      access: subscriptionAccess(cloud.subscriptions ?? {}),
      endpoint: cloud.armEndpoint,
      timeoutMs: cloud.timeoutMs,
    });
  }
  if (cloud.inventory === "disabled" || !local) return disabledCloudInventory();
  return local();
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
