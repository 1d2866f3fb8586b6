import { describeCloudInventoryContract } from "./cloud-inventory-contract";

describeCloudInventoryContract("simulated", async (system) => ({ cloud: system.inventory, teardown: async () => {} }));
