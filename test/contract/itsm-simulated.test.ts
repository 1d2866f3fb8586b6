import { describeItsmContract, simulatedItsmWorld } from "./itsm-contract";

describeItsmContract("simulated", async () => {
  const { itsm, clock } = simulatedItsmWorld();
  return { system: itsm.system, console: itsm.console, clock, teardown: async () => {} };
});
