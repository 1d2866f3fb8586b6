import type { Config } from "../../platform/config/config";
import { createArmCloudInventory } from "./arm/arm-cloud-inventory";
import { disabledCloudInventory, type CloudInventory } from "./port";
import { subscriptionAccess } from "../../platform/config/subscription-access";

/**
 * The cloud inventory the configuration asks for: Azure Resource Manager with `CLOUD_INVENTORY=azure`,
 * none with `CLOUD_INVENTORY=disabled`; unset, `fallback`. In Azure the fallback is the port's
 * disabled inventory (a deployment never serves simulated cloud resources); the local host passes its
 * simulated estate.
 */
export function createCloudInventory(config: Config, fallback: () => CloudInventory = disabledCloudInventory): CloudInventory {
  const cloud = config.cloud;
  if (cloud.inventory === "azure") {
    return createArmCloudInventory({
      access: subscriptionAccess(cloud.subscriptions ?? {}),
      endpoint: cloud.armEndpoint,
      timeoutMs: cloud.timeoutMs,
    });
  }
  return cloud.inventory === "disabled" ? disabledCloudInventory() : fallback();
}
