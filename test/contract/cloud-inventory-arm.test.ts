import { afterAll, beforeAll } from "vitest";
import { subscriptionAccess } from "../../shared/platform/config/subscription-access";
import { createArmCloudInventory } from "../../shared/systems/cloud-inventory/arm/arm-cloud-inventory";
import { startCloudInventoryWireServer, type CloudInventoryWireServer } from "../support/bridges/cloud-inventory-wire-server";
import { stubCredential } from "../support/bridges/stub-credential";
import { describeCloudInventoryContract } from "./cloud-inventory-contract";

// The Azure Resource Manager adapter (its real SDK clients) over HTTPS, against the simulated estate
// served as ARM serves it: both runs of the contract read the same estate.
let arm: CloudInventoryWireServer;

beforeAll(async () => {
  arm = await startCloudInventoryWireServer();
});

afterAll(async () => {
  await arm?.close();
});

describeCloudInventoryContract("Azure Resource Manager", async (system) => {
  await arm.serve(system.inventory);
  const cloud = createArmCloudInventory({
    access: subscriptionAccess(system.visibility),
    endpoint: arm.origin,
    timeoutMs: 10_000,
    credential: stubCredential(),
    ca: arm.certificate,
  });
  return { cloud, teardown: async () => {} };
});
