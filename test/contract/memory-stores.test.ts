import { createMemoryStores } from "../../shared/store/memory/memory-stores";
import { describeStoreContract } from "./store-contract";

describeStoreContract("memory", async () => ({ stores: createMemoryStores(), teardown: async () => {} }));
