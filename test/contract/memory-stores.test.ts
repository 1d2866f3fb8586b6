import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import { describeStoreContract } from "./store-contract";

describeStoreContract("memory", async () => ({ stores: createMemoryStores(), teardown: async () => {} }));
