import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import type { SubscriptionMap } from "../../shared/platform/config/subscription-access";
import type { CloudInventory, ResourceGroupRef } from "../../shared/systems/cloud-inventory/port";
import { createSimulatedCloudInventory } from "../../shared/systems/cloud-inventory/simulated/simulated-cloud-inventory";
import { buildSimulatedEstate, type SimulatedEstate, type SimulatedSubscription } from "../../shared/systems/cloud-inventory/simulated/simulated-estate";
import { apiErrorOf } from "../support/api-error-of";

const SEED = "cloud-contract";
const NO_SUBSCRIPTION = "00000000-0000-4000-8000-000000000000";

/**
 * The estate both adapters read: the demo organization's simulated estate (`inventory` reads it as the
 * simulated adapter does), and which account may see which subscription (the deployment's
 * CLOUD_SUBSCRIPTIONS, here each account its own).
 */
export interface CloudSystem {
  estate: SimulatedEstate;
  inventory: CloudInventory;
  visibility: SubscriptionMap;
  accounts: { provider: string; customers: string[] };
}

export interface CloudInventoryFixture {
  /** The adapter under test, reading `system`'s estate with `system.visibility`. */
  cloud: CloudInventory;
  teardown(): Promise<void>;
}

function cloudSystem(): CloudSystem {
  const demo = buildDemoData(SEED, new Date("2025-01-01T00:00:00Z"));
  const estate = buildSimulatedEstate({ seed: SEED, accounts: [demo.provider, ...demo.customers], workspaces: demo.workspaces });
  const visibility: Record<string, string[]> = {};
  for (const s of estate.subscriptions) (visibility[s.accountId] ??= []).push(s.subscriptionId);
  return {
    estate,
    inventory: createSimulatedCloudInventory(estate, visibility),
    visibility,
    accounts: { provider: demo.provider.id, customers: demo.customers.map((c) => c.id) },
  };
}

const byName = <T extends { name: string }>(items: readonly T[]) => [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/**
 * The behaviour every cloud inventory adapter must have, pinned once and run against each adapter.
 * Lists are compared without regard to order: the port promises none.
 */
export function describeCloudInventoryContract(name: string, setup: (system: CloudSystem) => Promise<CloudInventoryFixture>): void {
  describe(`${name} cloud inventory`, () => {
    let system: CloudSystem;
    let cloud: CloudInventory;
    let teardown: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      system = cloudSystem();
      ({ cloud, teardown } = await setup(system));
    });
    afterEach(async () => {
      await teardown?.();
      teardown = undefined;
    });

    /** The first customer's production subscription: security, monitoring, network and application groups. */
    const production = (): SimulatedSubscription => system.estate.subscriptions.find((s) => s.accountId === system.accounts.customers[0] && s.displayName.endsWith("Production"))!;
    const securityGroup = () => production().resourceGroups.find((g) => g.name.includes("-security-"))!;
    const ref = (resourceGroup: string, subscriptionId = production().subscriptionId): ResourceGroupRef => ({ subscriptionId, resourceGroup });

    it("shows an organization the subscriptions of the accounts it names, and none of any other account", () => {
      const { provider, customers } = system.accounts;
      const own = (account: string) => system.estate.subscriptions.filter((s) => s.accountId === account).map((s) => s.subscriptionId).sort();
      expect([...cloud.subscriptionsVisibleTo([customers[0]!])].sort()).toEqual(own(customers[0]!));
      expect([...cloud.subscriptionsVisibleTo([customers[0]!.toUpperCase()])].sort()).toEqual(own(customers[0]!));
      expect([...cloud.subscriptionsVisibleTo([provider, ...customers])].sort()).toEqual(system.estate.subscriptions.map((s) => s.subscriptionId).sort());
      expect(cloud.subscriptionsVisibleTo([NO_SUBSCRIPTION]).size).toBe(0);
      expect(cloud.subscriptionsVisibleTo([]).size).toBe(0);
    });

    it("lists every subscription with its name and lower-case id", async () => {
      const subscriptions = await cloud.listSubscriptions();
      expect([...subscriptions].sort((a, b) => (a.subscriptionId < b.subscriptionId ? -1 : 1))).toEqual(
        system.estate.subscriptions.map(({ subscriptionId, displayName }) => ({ subscriptionId, displayName })).sort((a, b) => (a.subscriptionId < b.subscriptionId ? -1 : 1)),
      );
      for (const s of subscriptions) expect(s.subscriptionId).toBe(s.subscriptionId.toLowerCase());
    });

    it("lists a subscription's resource groups with their ARM ids and regions, whatever the letter case of its id", async () => {
      for (const s of system.estate.subscriptions) {
        const expected = byName(s.resourceGroups.map(({ resourceId, name, location }) => ({ resourceId, name, location })));
        expect(byName(await cloud.listResourceGroups(s.subscriptionId)), s.displayName).toEqual(expected);
      }
      const s = production();
      expect(byName(await cloud.listResourceGroups(s.subscriptionId.toUpperCase()))).toEqual(byName(s.resourceGroups.map(({ resourceId, name, location }) => ({ resourceId, name, location }))));
    });

    it("lists a group's Log Analytics workspaces, onboarded or not, whatever the letter case of the group's name", async () => {
      for (const s of system.estate.subscriptions) {
        for (const g of s.resourceGroups) {
          expect(byName(await cloud.listWorkspaces(ref(g.name, s.subscriptionId))), g.resourceId).toEqual(byName(g.workspaces));
        }
      }
      const security = securityGroup();
      const listed = await cloud.listWorkspaces(ref(security.name.toUpperCase()));
      expect(byName(listed)).toEqual(byName(security.workspaces));
      expect(listed.filter((w) => w.onboarded).length).toBeGreaterThan(0);
      expect(listed.filter((w) => !w.onboarded).length).toBeGreaterThan(0);
      expect(await cloud.listWorkspaces(ref("NetworkWatcherRG"))).toEqual([]);
    });

    it("finds one workspace by name whatever its letter case, and answers undefined for a name the group does not hold", async () => {
      const security = securityGroup();
      for (const w of security.workspaces) {
        expect(await cloud.findWorkspace({ ...ref(security.name), workspaceName: w.name })).toEqual(w);
      }
      const [first] = security.workspaces;
      expect(await cloud.findWorkspace({ ...ref(security.name.toLowerCase()), subscriptionId: production().subscriptionId.toUpperCase(), workspaceName: first!.name.toUpperCase() })).toEqual(first);
      expect(await cloud.findWorkspace({ ...ref(security.name), workspaceName: "log-absent-workspace" })).toBeUndefined();
      const elsewhere = production().resourceGroups.find((g) => g.workspaces.length > 0 && g !== security)!.workspaces[0]!;
      expect(await cloud.findWorkspace({ ...ref(security.name), workspaceName: elsewhere.name })).toBeUndefined();
    });

    it("lists a subscription's network security groups across its resource groups", async () => {
      for (const s of system.estate.subscriptions) {
        expect(byName(await cloud.listNetworkSecurityGroups(s.subscriptionId)), s.displayName).toEqual(byName(s.networkSecurityGroups));
      }
      expect(new Set(production().networkSecurityGroups.map((n) => /resourceGroups\/([^/]+)\//.exec(n.resourceId)![1])).size).toBeGreaterThan(1);
    });

    it("answers NOT_FOUND for a subscription that does not exist, on every call that names one", async () => {
      for (const call of [
        () => cloud.listResourceGroups(NO_SUBSCRIPTION),
        () => cloud.listWorkspaces(ref(securityGroup().name, NO_SUBSCRIPTION)),
        () => cloud.findWorkspace({ ...ref(securityGroup().name, NO_SUBSCRIPTION), workspaceName: securityGroup().workspaces[0]!.name }),
        () => cloud.listNetworkSecurityGroups(NO_SUBSCRIPTION),
      ]) {
        const error = await apiErrorOf(call);
        expect(error.code).toBe("NOT_FOUND");
        expect(error.status).toBe(404);
      }
    });

    it("answers NOT_FOUND for a resource group the subscription does not hold, listing or finding", async () => {
      const here = new Set(production().resourceGroups.map((g) => g.name.toLowerCase()));
      const otherSubscriptionsGroup = system.estate.subscriptions.flatMap((s) => s.resourceGroups).find((g) => g.workspaces.length > 0 && !here.has(g.name.toLowerCase()))!;
      for (const group of ["rg-missing", otherSubscriptionsGroup.name]) {
        expect((await apiErrorOf(cloud.listWorkspaces(ref(group)))).code, group).toBe("NOT_FOUND");
        expect((await apiErrorOf(cloud.findWorkspace({ ...ref(group), workspaceName: otherSubscriptionsGroup.workspaces[0]!.name }))).code, group).toBe("NOT_FOUND");
      }
    });

    it("hands out answers of the caller's own: changing one changes no later answer", async () => {
      const security = structuredClone(securityGroup());
      const groups = structuredClone(production().resourceGroups).map(({ resourceId, name, location }) => ({ resourceId, name, location }));
      const nsgs = structuredClone(production().networkSecurityGroups);
      const subscriptions = system.estate.subscriptions.map((s) => s.displayName);
      const listed = await cloud.listWorkspaces(ref(security.name));
      listed[0]!.onboarded = !listed[0]!.onboarded;
      listed[0]!.name = "changed";
      const found = await cloud.findWorkspace({ ...ref(security.name), workspaceName: security.workspaces[1]!.name });
      found!.customerId = "changed";
      (await cloud.listResourceGroups(production().subscriptionId))[0]!.location = "changed";
      (await cloud.listNetworkSecurityGroups(production().subscriptionId))[0]!.name = "changed";
      (await cloud.listSubscriptions())[0]!.displayName = "changed";
      expect(byName(await cloud.listWorkspaces(ref(security.name)))).toEqual(byName(security.workspaces));
      expect(await cloud.findWorkspace({ ...ref(security.name), workspaceName: security.workspaces[1]!.name })).toEqual(security.workspaces[1]);
      expect(byName(await cloud.listResourceGroups(production().subscriptionId))).toEqual(byName(groups));
      expect(byName(await cloud.listNetworkSecurityGroups(production().subscriptionId))).toEqual(byName(nsgs));
      expect((await cloud.listSubscriptions()).map((s) => s.displayName).sort()).toEqual(subscriptions.sort());
    });
  });
}
