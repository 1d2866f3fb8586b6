import type { WorkspaceStore } from "../../platform/store/ports";
import type { SimulatedConsole } from "../../systems/vendors/simulated/simulated-vendor";

/**
 * The workspace store of the local host, telling the simulated vendors of each workspace it creates:
 * a customer's vendor tenant exists before its workspace is onboarded, so a workspace onboarded
 * through the portal is one the vendors answer for (with no incident until the console raises one),
 * never an unknown workspace. Reads and other writes go straight to the store.
 */
export function workspacesKnownToVendors(store: WorkspaceStore, vendors: Pick<SimulatedConsole, "addWorkspace">): WorkspaceStore {
  return {
    get: (id) => store.get(id),
    read: (id) => store.read(id),
    getMany: (ids) => store.getMany(ids),
    listByAccounts: (accountIds) => store.listByAccounts(accountIds),
    listAll: () => store.listAll(),
    listOffboarded: (accountIds) => store.listOffboarded(accountIds),
    async create(workspace, outbox) {
      const saved = await store.create(workspace, outbox);
      vendors.addWorkspace(workspace);
      return saved;
    },
    replace: (workspace, etag, outbox) => store.replace(workspace, etag, outbox),
    async upsert(workspace) {
      await store.upsert(workspace);
      vendors.addWorkspace(workspace);
    },
  };
}
