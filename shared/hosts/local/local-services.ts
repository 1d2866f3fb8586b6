import { createCloudInventory } from "../../systems/cloud-inventory/configured";
import { withDemoSourceNames } from "./demo-source-names";
import { buildSimulatedEstate, type SimulatedEstate } from "../../systems/cloud-inventory/simulated/simulated-estate";
import { createSimulatedCloudInventory } from "../../systems/cloud-inventory/simulated/simulated-cloud-inventory";
import { createServices, createStores, type ServiceOverrides } from "../composition";
import type { Config } from "../../platform/config/config";
import { createPlaybookActions } from "../../systems/playbook-automation/configured";
import { createSimulatedPlaybookActions, type SimulatedAutomationConsole } from "../../systems/playbook-automation/simulated/simulated-playbook-actions";
import type { Services } from "../../domain/services";
import { createSimulatedVendors, type SimulatedConsole } from "../../systems/vendors/simulated/simulated-vendor";
import { workspacesKnownToVendors } from "./vendor-tenants";
import { createSourceRegistry } from "../../systems/vendors/configured";
import { buildDemoData, type DemoData } from "./demo-data";
import { createSimulatedItsm, type ItsmConsole } from "../../systems/itsm/simulated/simulated-itsm";
import { createTicketingSystem } from "../../systems/itsm/configured";
import { createSimulatedDirectoryLogs, type DirectoryConsole } from "../../systems/directory-logs/simulated/simulated-directory-logs";
import { createDirectoryLogs } from "../../systems/directory-logs/configured";
import { createSimulatedLogAnalytics, type LogAnalyticsConsole } from "../../systems/log-analytics/simulated/simulated-log-analytics";
import { createLogAnalytics } from "../../systems/log-analytics/configured";
import { createSimulatedDocumentStore } from "../../systems/documents/simulated/simulated-documents";
import { createDocumentStore } from "../../systems/documents/configured";

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
  /** The ITSM: raise tickets, write notes as a resolver, switch ticketing per workspace. */
  itsm: ItsmConsole;
  /** The tenants' directories: sign-ins and audit events happening now. */
  directory: DirectoryConsole;
  /** The workspaces' ingestion: outages, drops, spikes and delays per connector. */
  logAnalytics: LogAnalyticsConsole;
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
    latencyMs: config.simulatedVendorLatencyMs,
    now,
  });
  const automation = createSimulatedPlaybookActions({ seed: config.demoSeed, delayMs: config.simulatedPlaybookDelayMs });
  const cloud = buildSimulatedEstate({ seed: config.demoSeed, accounts: [demo.provider, ...demo.customers], workspaces: demo.workspaces });
  // Every demo workspace has a desk; which workspaces use ticketing is their own setting (demo-data.ts).
  const itsm = createSimulatedItsm({ seed: config.demoSeed, workspaces: demo.workspaces, now });
  const directory = createSimulatedDirectoryLogs({ seed: config.demoSeed, tenants: demoTenants(demo), now });
  const logAnalytics = createSimulatedLogAnalytics({ seed: config.demoSeed, workspaces: demo.workspaces, now });
  // Each system as the composition root would choose it, with the simulation in place of the disabled
  // adapter: a configured real system wins over its simulation.
  const stores = overrides.stores ?? createStores(config, now);
  const services = createServices(withDemoSourceNames(config), {
    ...overrides,
    stores: { ...stores, workspaces: workspacesKnownToVendors(stores.workspaces, vendors.console) },
    now,
    sources: overrides.sources ?? createSourceRegistry(config, (source) => vendors.gateway(source)),
    playbookActions: overrides.playbookActions ?? createPlaybookActions(config, () => automation.actions),
    cloud: overrides.cloud ?? createCloudInventory(config, () => createSimulatedCloudInventory(cloud, config.cloud.subscriptions)),
    ticketing: overrides.ticketing ?? createTicketingSystem(config, () => itsm.system),
    directoryLogs: overrides.directoryLogs ?? createDirectoryLogs(config, () => directory.logs),
    logAnalytics: overrides.logAnalytics ?? createLogAnalytics(config, () => logAnalytics.system),
    documents: overrides.documents ?? createDocumentStore(config, createSimulatedDocumentStore),
  });
  return {
    services,
    simulated: {
      demo,
      vendors: vendors.console,
      automation: automation.console,
      cloud,
      itsm: itsm.console,
      directory: directory.console,
      logAnalytics: logAnalytics.console,
    },
  };
}

/** Each workspace's tenant with the demo users who belong to it (their e-mail is their sign-in name). */
function demoTenants(demo: DemoData) {
  const tenantIds = [...new Set(demo.workspaces.map((w) => w.tenantId))];
  return tenantIds.map((tenantId) => ({
    tenantId,
    users: demo.users.filter((u) => u.tenantId === tenantId).map((u) => ({ id: u.id, displayName: u.displayName, userPrincipalName: u.email })),
  }));
}
