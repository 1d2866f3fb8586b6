import { describeDirectoryLogsContract } from "./directory-logs-contract";

describeDirectoryLogsContract("simulated", async (system) => ({ logs: system.directory.logs, teardown: async () => {} }));
