import { createHttpVendorGateway } from "../../shared/systems/vendors/http/http-vendor";
import { startVendorBridge } from "../support/bridges/vendors-bridge-server";
import { describeVendorsContract, simulatedVendorWorld } from "./vendors-contract";

const AUTH = "Bearer vendor-contract-token";

// The generic HTTP vendor adapter over real HTTP, against the simulated vendors served on the vendor
// bridge protocol (docs/vendor-bridge.md): the same behaviour as the simulated adapter, wire included.
describeVendorsContract("HTTP (vendor bridge)", async () => {
  const { vendors, clock } = simulatedVendorWorld();
  const bridge = await startVendorBridge(vendors, { authHeader: AUTH });
  return {
    gateway: (source) => createHttpVendorGateway({ source, baseUrl: bridge.baseUrl(source), authHeader: AUTH, timeoutMs: 5_000 }),
    console: vendors.console,
    clock,
    teardown: () => bridge.close(),
  };
});
