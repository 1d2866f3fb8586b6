import type { Config } from "../../platform/config/config";
import { createHttpPlaybookActions } from "./http/http-playbook-actions";
import { disabledPlaybookActions, type PlaybookActions } from "./port";

/**
 * The automation backend of the deployment: the HTTP bridge when `PLAYBOOK_AUTOMATION_URL` is set,
 * otherwise `fallback`. In Azure the fallback is the port's disabled automation (a deployment never
 * simulates); the local host passes its simulated automation.
 */
export function createPlaybookActions(config: Config, fallback: () => PlaybookActions = disabledPlaybookActions): PlaybookActions {
  const bridge = config.playbookAutomation;
  return bridge ? createHttpPlaybookActions(bridge) : fallback();
}
