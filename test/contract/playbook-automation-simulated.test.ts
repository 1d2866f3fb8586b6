import { describePlaybookAutomationContract, simulatedAutomation } from "./playbook-automation-contract";

describePlaybookAutomationContract("simulated", async ({ delayMs }) => {
  const { actions, console } = simulatedAutomation(delayMs);
  return { actions, console, teardown: async () => {} };
});
