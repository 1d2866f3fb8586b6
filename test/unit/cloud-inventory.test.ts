import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../shared/platform/config/config";
import { createCloudInventory } from "../../shared/systems/cloud-inventory/configured";
import { disabledCloudInventory, type CloudInventory } from "../../shared/systems/cloud-inventory/port";
import { subscriptionAccess } from "../../shared/platform/config/subscription-access";
import { buildSimulatedEstate, type SimulatedEstate } from "../../shared/systems/cloud-inventory/simulated/simulated-estate";
import { createSimulatedCloudInventory } from "../../shared/systems/cloud-inventory/simulated/simulated-cloud-inventory";
import { resourceGroupParams, workspaceParams } from "../../shared/api/schemas/cloud-schemas";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { apiErrorOf } from "../support/api-error-of";

const A = "6f0c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c";
const B = "7a1d3b9f-6e8c-4d2f-8b7a-3c9e5f7a2b4d";
const S1 = "2b1d4c6e-8f0a-4b2c-9d3e-5f6a7b8c9d0e";
const S2 = "7c3e5a1f-2b4d-4e6f-8a0b-1c2d3e4f5a6b";

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

const refusal = apiErrorOf;

function demoEstate(seed = "secops-demo"): { estate: SimulatedEstate; demo: ReturnType<typeof buildDemoData> } {
  const demo = buildDemoData(seed, new Date("2025-01-01T00:00:00Z"));
  return { demo, estate: buildSimulatedEstate({ seed, accounts: [demo.provider, ...demo.customers], workspaces: demo.workspaces }) };
}

describe("cloud configuration", () => {
  it("reads CLOUD_SUBSCRIPTIONS as account → subscriptions, in lower case, duplicates dropped", () => {
    const config = loadConfig({ CLOUD_SUBSCRIPTIONS: JSON.stringify({ [A.toUpperCase()]: [S1.toUpperCase(), S1], [B]: [] }) });
    expect(config.cloud.subscriptions).toEqual({ [A]: [S1], [B]: [] });
  });

  it("defaults to no inventory named, the public ARM endpoint and a 15 s deadline", () => {
    expect(loadConfig({}).cloud).toEqual({ inventory: undefined, subscriptions: undefined, armEndpoint: "https://management.azure.com", timeoutMs: 15_000 });
    expect(loadConfig({ CLOUD_ARM_ENDPOINT: "https://management.usgovcloudapi.net/" }).cloud.armEndpoint).toBe("https://management.usgovcloudapi.net");
  });

  it("refuses a subscription listed under two accounts: no configuration can show one organization's to another", () => {
    expect(configError({ CLOUD_SUBSCRIPTIONS: JSON.stringify({ [A]: [S1], [B]: [S2, S1.toUpperCase()] }) })).toMatch(/CLOUD_SUBSCRIPTIONS.*listed under two accounts/);
    expect(configError({ CLOUD_SUBSCRIPTIONS: JSON.stringify({ [A]: [S1], [A.toUpperCase()]: [S2] }) })).toMatch(/listed twice/);
  });

  it.each([
    ["not JSON", "{not json"],
    ["an array", JSON.stringify([S1])],
    ["an account id that is not a GUID", JSON.stringify({ contoso: [S1] })],
    ["a subscription id that is not a GUID", JSON.stringify({ [A]: ["prod-sub"] })],
  ])("refuses CLOUD_SUBSCRIPTIONS that is %s", (_, value) => {
    expect(configError({ CLOUD_SUBSCRIPTIONS: value })).toContain("CLOUD_SUBSCRIPTIONS");
  });

  it("requires CLOUD_SUBSCRIPTIONS with CLOUD_INVENTORY=azure, an https ARM endpoint and a known inventory", () => {
    expect(configError({ CLOUD_INVENTORY: "azure" })).toContain("CLOUD_SUBSCRIPTIONS: required when CLOUD_INVENTORY=azure");
    expect(configError({ CLOUD_ARM_ENDPOINT: "http://management.azure.com" })).toContain("CLOUD_ARM_ENDPOINT");
    expect(configError({ CLOUD_INVENTORY: "simulated" })).toContain("CLOUD_INVENTORY");
    expect(loadConfig({ CLOUD_INVENTORY: "azure", CLOUD_SUBSCRIPTIONS: "{}" }).cloud.inventory).toBe("azure");
  });
});

describe("subscription access", () => {
  it("gives an organization the union of its accounts' subscriptions, and nothing of any other account", () => {
    const access = subscriptionAccess({ [A]: [S1], [B]: [S2] });
    expect([...access.visibleTo([A, B])].sort()).toEqual([S1, S2].sort());
    expect([...access.visibleTo([B.toUpperCase()])]).toEqual([S2]);
    expect(access.visibleTo(["00000000-0000-4000-8000-000000000000"]).size).toBe(0);
    expect(access.visibleTo([]).size).toBe(0);
  });
});

describe("choosing the cloud inventory", () => {
  const local = (): CloudInventory => createSimulatedCloudInventory({ subscriptions: [] });

  it("is disabled in Azure unless CLOUD_INVENTORY=azure: every call, the visibility check first, is EXTENSION_NOT_ENABLED", async () => {
    const cloud = createCloudInventory(loadConfig({}));
    for (const call of [
      () => cloud.subscriptionsVisibleTo([A]),
      () => cloud.listSubscriptions(),
      () => cloud.listResourceGroups(S1),
      () => cloud.listWorkspaces({ subscriptionId: S1, resourceGroup: "rg" }),
      () => cloud.findWorkspace({ subscriptionId: S1, resourceGroup: "rg", workspaceName: "ws-one" }),
      () => cloud.listNetworkSecurityGroups(S1),
    ]) {
      const error = await refusal(call);
      expect(error.code).toBe("EXTENSION_NOT_ENABLED");
      expect(error.status).toBe(400);
    }
  });

  it("uses the local host's simulated estate when nothing is named, and none with CLOUD_INVENTORY=disabled", async () => {
    let built = 0;
    const counting = () => (built++, local());
    expect(createCloudInventory(loadConfig({}), counting).subscriptionsVisibleTo([A]).size).toBe(0);
    expect(built).toBe(1);
    const disabled = createCloudInventory(loadConfig({ CLOUD_INVENTORY: "disabled" }), counting);
    expect((await refusal(() => disabled.subscriptionsVisibleTo([A]))).code).toBe("EXTENSION_NOT_ENABLED");
    expect(built).toBe(1);
  });

  it("uses Azure Resource Manager with CLOUD_INVENTORY=azure, on the local host too, with the configured visibility", () => {
    let built = 0;
    const cloud = createCloudInventory(loadConfig({ CLOUD_INVENTORY: "azure", CLOUD_SUBSCRIPTIONS: JSON.stringify({ [A]: [S1] }) }), () => (built++, local()));
    expect(built).toBe(0);
    expect([...cloud.subscriptionsVisibleTo([A])]).toEqual([S1]);
    expect(cloud.subscriptionsVisibleTo([B]).size).toBe(0);
  });

  it("a disabled inventory is refused as a whole", async () => {
    expect((await refusal(disabledCloudInventory().listSubscriptions())).code).toBe("EXTENSION_NOT_ENABLED");
  });
});

describe("the simulated estate", () => {
  it("is the same for the same seed and different for another", () => {
    expect(demoEstate("secops-demo").estate).toEqual(demoEstate("secops-demo").estate);
    const other = demoEstate("another-seed").estate;
    expect(other.subscriptions.map((s) => s.subscriptionId)).not.toEqual(demoEstate().estate.subscriptions.map((s) => s.subscriptionId));
  });

  it("gives every account a production and a development subscription of its own", () => {
    const { estate, demo } = demoEstate();
    for (const account of [demo.provider, ...demo.customers]) {
      const own = estate.subscriptions.filter((s) => s.accountId === account.id);
      expect(own.map((s) => s.displayName)).toEqual([`${account.name} - Production`, `${account.name} - Development`]);
    }
    expect(new Set(estate.subscriptions.map((s) => s.subscriptionId)).size).toBe(6);
  });

  it("holds every service workspace onboarded, its id as the workspace id, beside workspaces that are not and a security instance the service does not serve yet", () => {
    const { estate, demo } = demoEstate();
    const all = estate.subscriptions.flatMap((s) => s.resourceGroups.flatMap((g) => g.workspaces));
    const known = new Set(demo.workspaces.map((w) => w.id));
    const onboarded = all.filter((w) => w.onboarded && known.has(w.customerId!));
    expect(onboarded.map((w) => [w.customerId, w.name]).sort()).toEqual(demo.workspaces.map((w) => [w.id, w.name]).sort());
    for (const account of [demo.provider, ...demo.customers]) {
      const mine = estate.subscriptions.filter((s) => s.accountId === account.id).flatMap((s) => s.resourceGroups.flatMap((g) => g.workspaces));
      expect(mine.filter((w) => !w.onboarded).length).toBeGreaterThanOrEqual(3);
      // What the portal's onboarding offers to pick: onboarded to the security solution, not a workspace of the service.
      const notServed = mine.filter((w) => w.onboarded && !known.has(w.customerId!));
      expect(notServed.map((w) => w.name)).toEqual([`${account.name.toLowerCase().split(" ")[0]}-sentinel-dev`]);
    }
    expect(new Set(all.map((w) => w.customerId)).size).toBe(all.length);
  });

  it("uses names the API accepts, resource ids ARM would give, and real paired regions that differ between accounts", () => {
    const { estate } = demoEstate();
    const regions = new Set(["westeurope", "northeurope", "uksouth", "ukwest", "eastus", "eastus2", "centralus", "westus2", "swedencentral", "norwayeast", "germanywestcentral", "francecentral"]);
    for (const s of estate.subscriptions) {
      for (const g of s.resourceGroups) {
        expect(g.resourceId).toBe(`/subscriptions/${s.subscriptionId}/resourceGroups/${g.name}`);
        expect(regions.has(g.location), g.location).toBe(true);
        for (const w of g.workspaces) {
          expect(workspaceParams.safeParse({ subscriptionId: s.subscriptionId, resourceGroup: g.name, workspaceName: w.name }).success, w.name).toBe(true);
          expect(w.resourceId).toBe(`${g.resourceId}/providers/Microsoft.OperationalInsights/workspaces/${w.name}`);
        }
        expect(resourceGroupParams.safeParse({ subscriptionId: s.subscriptionId, resourceGroup: g.name }).success, g.name).toBe(true);
      }
      for (const n of s.networkSecurityGroups) expect(n.resourceId).toMatch(new RegExp(`^/subscriptions/${s.subscriptionId}/resourceGroups/[^/]+/providers/Microsoft\\.Network/networkSecurityGroups/${n.name}$`));
      expect(s.resourceGroups.some((g) => g.name === "NetworkWatcherRG")).toBe(true);
    }
    const primaries = new Set(estate.subscriptions.filter((s) => s.displayName.endsWith("Production")).map((s) => s.resourceGroups[0]!.location));
    expect(primaries.size).toBe(3);
  });
});

describe("the simulated cloud inventory", () => {
  const { estate, demo } = demoEstate();
  const cloud = createSimulatedCloudInventory(estate);
  const fabrikam = demo.customers[0]!;
  const prod = estate.subscriptions.find((s) => s.accountId === fabrikam.id)!;

  it("shows each account its own subscriptions, and a provider also its customers' when asked with their ids", () => {
    const own = estate.subscriptions.filter((s) => s.accountId === fabrikam.id).map((s) => s.subscriptionId);
    expect([...cloud.subscriptionsVisibleTo([fabrikam.id])].sort()).toEqual(own.sort());
    expect(cloud.subscriptionsVisibleTo([demo.provider.id, ...demo.customers.map((c) => c.id)]).size).toBe(6);
  });

  it("lets CLOUD_SUBSCRIPTIONS decide visibility in place of the estate's ownership", () => {
    const configured = createSimulatedCloudInventory(estate, { [demo.customers[1]!.id]: [prod.subscriptionId] });
    expect(configured.subscriptionsVisibleTo([fabrikam.id]).size).toBe(0);
    expect([...configured.subscriptionsVisibleTo([demo.customers[1]!.id])]).toEqual([prod.subscriptionId]);
  });
});
