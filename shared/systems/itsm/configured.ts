import type { Config } from "../../platform/config/config";
import { createTicketingBridge } from "./http/http-itsm";
import { disabledTicketing, type TicketingSystem } from "./port";

/**
 * The ITSM of the deployment: the ticketing bridge when `TICKETING_URL` is set, otherwise `fallback`.
 * In Azure the fallback is the port's disabled ticketing (a deployment never simulates); the local
 * host passes its simulated ITSM.
 */
export function createTicketingSystem(config: Config, fallback: () => TicketingSystem = disabledTicketing): TicketingSystem {
  return config.ticketing ? createTicketingBridge(config.ticketing) : fallback();
}
