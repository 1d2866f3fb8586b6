import { createHttpPlaybookActions } from "../../shared/systems/playbook-automation/http/http-playbook-actions";
import { startPlaybookBridge } from "../support/bridges/playbook-automation-bridge-server";
import { describePlaybookAutomationContract, simulatedAutomation } from "./playbook-automation-contract";

const AUTH = "Bearer automation-contract-token";

// The HTTP playbook adapter over real HTTP, against the simulated automation served on the playbook
// bridge protocol (docs/playbook-bridge.md): the same behaviour as the simulated adapter, wire included.
describePlaybookAutomationContract("HTTP (playbook bridge)", async ({ delayMs }) => {
  const { actions, console } = simulatedAutomation(delayMs);
  const bridge = await startPlaybookBridge(actions, { authHeader: AUTH });
  return {
    actions: createHttpPlaybookActions({ baseUrl: bridge.baseUrl, authHeader: AUTH, timeoutMs: 2_000, pollIntervalMs: 10, stepWaitMs: 10_000 }),
    console,
    teardown: () => bridge.close(),
  };
});
