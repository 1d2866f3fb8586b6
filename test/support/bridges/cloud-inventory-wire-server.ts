import type { CloudInventory } from "../../../shared/systems/cloud-inventory/port";
import { fakeArm, type FakeEstate } from "../fake-arm";
import { startHttpsReceiver, type ReceivedRequest } from "../https-receiver";
import { readBearer } from "./stub-credential";

/**
 * A cloud estate served as Azure Resource Manager serves it, over HTTPS (the ARM SDKs send bearer
 * tokens over TLS only; the adapter trusts `certificate`): the fake ARM's routes (subscriptions,
 * resource groups, workspaces with Sentinel's onboarding state, network security groups through the
 * filtered resource list), with ARM's `value` + `nextLink` pages and error bodies. What it serves is
 * read from the cloud inventory passed to `serve` (a simulated adapter) through its own methods; the
 * estate does not change once read, as the simulated estate never does.
 */
export interface CloudInventoryWireServer {
  /** `https://127.0.0.1:<port>`: ARM's endpoint. */
  origin: string;
  /** PEM of the server's self-signed certificate. */
  certificate: string;
  /** Every request since the last `serve`. */
  requests: ReceivedRequest[];
  /** Reads `inventory`'s whole estate and serves it from now on. */
  serve(inventory: CloudInventory): Promise<void>;
  close(): Promise<void>;
}

export async function startCloudInventoryWireServer(): Promise<CloudInventoryWireServer> {
  const arm = await startHttpsReceiver();
  return {
    origin: arm.origin,
    certificate: arm.certificate,
    requests: arm.requests,
    async serve(inventory) {
      const estate = await estateOf(inventory);
      const routes = fakeArm(estate, arm.origin);
      arm.reset();
      arm.respondWith((request) => {
        if (readBearer(request.headers.authorization)?.aud !== arm.origin) {
          return { status: 401, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { code: "InvalidAuthenticationToken", message: "The access token is invalid." } }) };
        }
        return routes(request);
      });
    },
    close: () => arm.close(),
  };
}

/** The whole estate the inventory shows, in the fake ARM's terms. */
async function estateOf(inventory: CloudInventory): Promise<FakeEstate> {
  const estate: FakeEstate = { subscriptions: [], groups: {}, workspaces: {}, nsgs: {} };
  for (const { subscriptionId, displayName } of await inventory.listSubscriptions()) {
    estate.subscriptions.push({ subscriptionId, displayName });
    const groups = await inventory.listResourceGroups(subscriptionId);
    estate.groups[subscriptionId] = groups.map(({ name, location }) => ({ name, location }));
    for (const group of groups) {
      const workspaces = await inventory.listWorkspaces({ subscriptionId, resourceGroup: group.name });
      estate.workspaces[`${subscriptionId}/${group.name.toLowerCase()}`] = workspaces.map((w) => ({
        name: w.name,
        location: w.location,
        ...(w.customerId !== null && { customerId: w.customerId }),
        onboarded: w.onboarded,
      }));
    }
    estate.nsgs[subscriptionId] = (await inventory.listNetworkSecurityGroups(subscriptionId)).map((n) => ({
      group: /\/resourceGroups\/([^/]+)\//i.exec(n.resourceId)![1]!,
      name: n.name,
      location: n.location,
    }));
  }
  return estate;
}
