import { createCloudInventory } from "../cloud-inventory/configured-inventory";
import { buildSimulatedEstate, type SimulatedEstate } from "../cloud-inventory/simulated/simulated-estate";
import { createSimulatedCloudInventory } from "../cloud-inventory/simulated/simulated-cloud-inventory";
import { createServices, type ServiceOverrides } from "../composition";
import type { Config } from "../config";
import { createPlaybookActions } from "../playbook-actions/configured-playbook-actions";
import { createSimulatedPlaybookActions, type SimulatedAutomationConsole } from "../playbook-actions/simulated/simulated-playbook-actions";
import type { Services } from "../services";
import { createSimulatedVendors, type SimulatedConsole } from "../sources/simulated/simulated-vendor";
import { createSourceRegistry } from "../sources/source-registry";
import { buildDemoData, type DemoData } from "./demo-data";

/** The simulated external systems of the local host, and the consoles that act "inside" them. */
export interface SimulatedSystems {
  /** The demo organization the simulated systems serve. */
  demo: DemoData;
  /** The vendors' consoles: create, close and delete incidents as an analyst would at the vendor. */
  vendors: SimulatedConsole;
  /** The automation backend's console: the steps it carried out, and outcomes forced for a playbook. */
  automation: SimulatedAutomationConsole;
  /** The demo organization's cloud estate (subscriptions, groups, workspaces, network security groups). */
  cloud: SimulatedEstate;
}

export interface LocalServices {
  services: Services;
  simulated: SimulatedSystems;
}

/**
 * The local host's composition: the same services as in Azure, with every external system that has
 * no real adapter configured served by its simulated adapter over the demo organization.
 */
export function createLocalServices(config: Config, overrides: ServiceOverrides = {}): LocalServices {
  const now = overrides.now ?? (() => new Date());
  const demo = buildDemoData(config.demoSeed, now(), config.demoWorkspaces);
  const vendors = createSimulatedVendors({
    seed: config.demoSeed,
    workspaces: demo.workspaces,
    owners: demo.users.map((u) => ({ userId: u.id, email: u.email, name: u.displayName })),
    incidentsPerWorkspace: config.simulatedIncidentsPerWorkspace,
    now,
  });
  const automation = createSimulatedPlaybookActions({ seed: config.demoSeed, delayMs: config.simulatedPlaybookDelayMs });
  const cloud = buildSimulatedEstate({ seed: config.demoSeed, accounts: [demo.provider, ...demo.customers], workspaces: demo.workspaces });
  const services = createServices(config, {
    ...overrides,
    now,
    sources: overrides.sources ?? createSourceRegistry(config, (source) => vendors.gateway(source)),
    playbookActions: overrides.playbookActions ?? createPlaybookActions(config, () => automation.actions),
    cloud: overrides.cloud ?? createCloudInventory(config, () => createSimulatedCloudInventory(cloud, config.cloud.subscriptions)),
  });
  return { services, simulated: { demo, vendors: vendors.console, automation: automation.console, cloud } };
}
