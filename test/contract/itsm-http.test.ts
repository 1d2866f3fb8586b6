import { createTicketingBridge } from "../../shared/systems/itsm/http/http-itsm";
import { startItsmBridge } from "../support/bridges/itsm-bridge-server";
import { describeItsmContract, simulatedItsmWorld } from "./itsm-contract";

const AUTH = "Bearer itsm-contract-token";

// The ticketing bridge adapter over real HTTP, against the simulated ITSM served on the ticketing
// bridge protocol (docs/ticketing-bridge.md): the same behaviour as the simulated adapter, wire included.
describeItsmContract("HTTP (ticketing bridge)", async () => {
  const { itsm, clock } = simulatedItsmWorld();
  const bridge = await startItsmBridge(itsm.system, { authHeader: AUTH });
  return {
    system: createTicketingBridge({ baseUrl: bridge.baseUrl, authHeader: AUTH, timeoutMs: 2_000 }),
    console: itsm.console,
    clock,
    teardown: () => bridge.close(),
  };
});
