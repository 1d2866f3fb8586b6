import { describeVendorsContract, simulatedVendorWorld } from "./vendors-contract";

describeVendorsContract("simulated", async () => {
  const { vendors, clock } = simulatedVendorWorld();
  return { gateway: (source) => vendors.gateway(source), console: vendors.console, clock, teardown: async () => {} };
});
