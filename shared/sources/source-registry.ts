import type { Config } from "../config";
import type { SourceGateway } from "./gateway";
import { createHttpVendorGateway } from "./http/http-vendor";
import { createSimulatedVendors, type SimulatedConsole } from "./simulated/simulated-vendor";
import { sources, type Source } from "./source";

/** The gateway of every source: bridged over HTTP where configured, simulated otherwise. */
export interface SourceRegistry {
  gateway(source: Source): SourceGateway;
  /** The simulated vendors' console, for local controls and tests. */
  simulatedConsole: SimulatedConsole;
}

export interface SimulatedWorld {
  seed: string;
  workspaces: readonly { id: string; name: string; tenantId: string }[];
  owners: readonly { userId: string; email: string; name: string }[];
}

export function createSourceRegistry(config: Config, world: SimulatedWorld, now: () => Date): SourceRegistry {
  const simulated = createSimulatedVendors({
    seed: world.seed,
    workspaces: world.workspaces,
    owners: world.owners,
    incidentsPerWorkspace: config.simulatedIncidentsPerWorkspace,
    now,
  });
  const gateways = new Map<Source, SourceGateway>(
    sources.map((source) => {
      const http = config.httpSources[source];
      return [source, http ? createHttpVendorGateway({ source, ...http }) : simulated.gateway(source)];
    }),
  );
  return {
    gateway: (source) => gateways.get(source)!,
    simulatedConsole: simulated.console,
  };
}
