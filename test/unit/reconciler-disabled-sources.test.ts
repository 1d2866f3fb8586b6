import { describe, expect, it } from "vitest";
import { createServices } from "../../shared/hosts/composition";
import { loadConfig } from "../../shared/platform/config/config";
import { buildDemoData, seedDemoData } from "../../shared/hosts/local/demo-data";
import { silentLogger } from "../../shared/platform/logger";
import { reconcileWorkspace } from "../../shared/domain/reconciler/reconciler";
import { createSimulatedVendors } from "../../shared/systems/vendors/simulated/simulated-vendor";
import { createSourceRegistry } from "../../shared/systems/vendors/configured";
import { disabledSource } from "../../shared/systems/vendors/port";
import type { Source } from "../../shared/model/sources";

// In Azure a source with no bridge configured is disabled (shared/hosts/composition.ts): a pass must not
// call it, count it as a failure or take leases for it.

const config = loadConfig({ SIMULATED_INCIDENTS_PER_WORKSPACE: "20" });

function servicesWith(enabled: readonly Source[]) {
  const now = () => new Date("2025-06-01T12:00:00Z");
  const demo = buildDemoData(config.demoSeed, now());
  const vendors = createSimulatedVendors({ seed: config.demoSeed, workspaces: demo.workspaces, incidentsPerWorkspace: 20, owners: [], now });
  const calls: Source[] = [];
  // Every gateway counts its listings, in place: a disabled gateway is known by its identity.
  const sources = createSourceRegistry(config, (source) => {
    const gateway = enabled.includes(source) ? vendors.gateway(source) : disabledSource(source);
    const list = gateway.listIncidents.bind(gateway);
    gateway.listIncidents = (query) => (calls.push(source), list(query));
    return gateway;
  });
  const services = createServices(config, { now, logger: silentLogger, sources });
  return { services, calls, seed: async () => (await seedDemoData(services)).data };
}

describe("reconciler and disabled sources", () => {
  it("passes over a disabled source: no call to it, no failure, the enabled source is reconciled", async () => {
    const { services, calls, seed } = servicesWith(["SourceA"]);
    const data = await seed();
    expect(services.sources.isEnabled("SourceB")).toBe(false);
    const workspaceId = data.workspaces[0]!.id;

    const result = await reconcileWorkspace(services, { workspaceId, passId: "p1", passStartedAt: services.now().toISOString() });

    expect(result.outcome).toBe("done");
    expect(result.vendorCalls).toBeGreaterThan(0);
    expect(new Set(calls)).toEqual(new Set(["SourceA"]));
    const state = await services.stores.reconciler.get(workspaceId);
    expect(Object.keys(state!.value.watermarks)).not.toContain("SourceB");
  });

  it("with every source disabled, calls no vendor and reports no failure", async () => {
    const { services, calls, seed } = servicesWith([]);
    const data = await seed();
    const result = await reconcileWorkspace(services, { workspaceId: data.workspaces[0]!.id, passId: "p1", passStartedAt: services.now().toISOString() });
    expect(result).toMatchObject({ outcome: "done", vendorCalls: 0 });
    expect(calls).toEqual([]);
  });
});
