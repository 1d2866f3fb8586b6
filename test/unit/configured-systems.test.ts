import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../../shared/platform/config/config";
import { createSourceRegistry } from "../../shared/systems/vendors/configured";
import { createPlaybookActions } from "../../shared/systems/playbook-automation/configured";
import { createCloudInventory } from "../../shared/systems/cloud-inventory/configured";
import { createTicketingSystem } from "../../shared/systems/itsm/configured";
import { createDirectoryLogs } from "../../shared/systems/directory-logs/configured";
import { createLogAnalytics } from "../../shared/systems/log-analytics/configured";
import { createDocumentStore } from "../../shared/systems/documents/configured";
import { createSimulatedCloudInventory } from "../../shared/systems/cloud-inventory/simulated/simulated-cloud-inventory";
import { disabledSource, type SourceGateway } from "../../shared/systems/vendors/port";
import type { Source } from "../../shared/model/sources";
import { importGraph } from "../support/import-graph";

/*
 * One way to choose an adapter: each system folder's configured.ts, `create<System>(config, fallback)`,
 * returns the real adapter when its settings are present, else `fallback` (the local host's
 * simulation), else the port's disabled adapter. The composition root calls only these.
 */

const root = join(__dirname, "../..");
const TENANT = "9b2f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const WS = "4f1e2d3c-b5a6-4978-8a9b-0c1d2e3f4a5b";
const RESOURCE = "/subscriptions/2b1d4c6e-8f0a-4b2c-9d3e-5f6a7b8c9d0e/resourceGroups/rg-sec/providers/Microsoft.OperationalInsights/workspaces/law-sec";
const ACCOUNT = "11111111-2222-4333-8444-555555555555";
const SUBSCRIPTION = "7c3e5a1f-2b4d-4e6f-8a0b-1c2d3e4f5a6b";

interface SystemCase {
  folder: string;
  /** The settings that name the real system. */
  settings: Record<string, string>;
  /** Builds the system with a fallback that counts its calls; `undefined` leaves the default. */
  create(config: Config, fallback?: () => void): unknown;
  /** Whether what was built answers (is not the disabled adapter). */
  enabled(system: unknown): boolean;
}

/** A stand-in for the simulated vendor: every method present (a copy of the disabled one is not disabled). */
const simulatedGateway = (source: Source): SourceGateway => ({ ...disabledSource(source) });

const cases: SystemCase[] = [
  {
    folder: "vendors",
    settings: { SOURCE_A_URL: "https://bridge.example.com/a" },
    create: (config, fallback) => createSourceRegistry(config, fallback && ((source) => (fallback(), simulatedGateway(source)))),
    enabled: (system) => (system as ReturnType<typeof createSourceRegistry>).isEnabled("SourceA"),
  },
  {
    folder: "playbook-automation",
    settings: { PLAYBOOK_AUTOMATION_URL: "https://bridge.example.com/automation" },
    create: (config, fallback) => createPlaybookActions(config, fallback && (() => (fallback(), { enabled: true, execute: async () => Promise.reject(new Error("simulated")), listPlaybooks: async () => [] }))),
    enabled: (system) => (system as ReturnType<typeof createPlaybookActions>).enabled,
  },
  {
    folder: "cloud-inventory",
    settings: { CLOUD_INVENTORY: "azure", CLOUD_SUBSCRIPTIONS: JSON.stringify({ [ACCOUNT]: [SUBSCRIPTION] }) },
    create: (config, fallback) => createCloudInventory(config, fallback && (() => (fallback(), createSimulatedCloudInventory({ subscriptions: [] })))),
    enabled: (system) => {
      try {
        (system as ReturnType<typeof createCloudInventory>).subscriptionsVisibleTo([ACCOUNT]);
        return true;
      } catch {
        return false;
      }
    },
  },
  {
    folder: "itsm",
    settings: { TICKETING_URL: "https://bridge.example.com/itsm" },
    create: (config, fallback) => createTicketingSystem(config, fallback && (() => (fallback(), { isEnabled: () => true }) as never)),
    enabled: (system) => (system as ReturnType<typeof createTicketingSystem>).isEnabled(WS),
  },
  {
    folder: "directory-logs",
    settings: { DIRECTORY_LOGS_TENANT_IDS: TENANT },
    create: (config, fallback) => createDirectoryLogs(config, fallback && (() => (fallback(), { isEnabled: () => true }) as never)),
    enabled: (system) => (system as ReturnType<typeof createDirectoryLogs>).isEnabled(TENANT),
  },
  {
    folder: "log-analytics",
    settings: { LOG_ANALYTICS_WORKSPACES: `${WS}=${RESOURCE}` },
    create: (config, fallback) => createLogAnalytics(config, fallback && (() => (fallback(), { isEnabled: () => true }) as never)),
    enabled: (system) => (system as ReturnType<typeof createLogAnalytics>).isEnabled(WS),
  },
  {
    folder: "documents",
    settings: { SOP_BLOB_ACCOUNT_URL: "https://sopdocs.blob.core.windows.net" },
    create: (config, fallback) => createDocumentStore(config, fallback && (() => (fallback(), { enabled: true }) as never)),
    enabled: (system) => (system as ReturnType<typeof createDocumentStore>).enabled,
  },
];

describe("choosing each external system's adapter", () => {
  it("covers every system folder", () => {
    const folders = readdirSync(join(root, "shared/systems"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(cases.map((c) => c.folder).sort()).toEqual(folders.sort());
  });

  for (const system of cases) {
    describe(system.folder, () => {
      it("without its settings is the port's disabled adapter, or the fallback when one is given", () => {
        expect(system.enabled(system.create(loadConfig({})))).toBe(false);
        let fallbacks = 0;
        expect(system.enabled(system.create(loadConfig({}), () => fallbacks++))).toBe(true);
        expect(fallbacks).toBeGreaterThan(0);
      });

      it("with its settings is the real adapter, whatever the fallback", () => {
        let fallbacks = 0;
        const built = system.create(loadConfig(system.settings), () => fallbacks++);
        expect(system.enabled(built)).toBe(true);
        // Vendors are chosen per source: the six sources without a bridge still take the fallback.
        expect(fallbacks).toBe(system.folder === "vendors" ? 6 : 0);
      });
    });
  }

  it("the composition root reaches the systems only through their configured.ts (and the ports' types)", () => {
    const imports = importGraph(root, ["shared/hosts"]).get("shared/hosts/composition.ts")!;
    const intoSystems = imports.filter((i) => !i.external && i.to.startsWith("shared/systems/"));
    expect(intoSystems.filter((i) => !i.typeOnly).map((i) => i.to).sort()).toEqual(cases.map((c) => `shared/systems/${c.folder}/configured.ts`).sort());
    expect(intoSystems.filter((i) => i.typeOnly).every((i) => i.to.endsWith("/port.ts"))).toBe(true);
  });
});
