import type { Classification } from "../../systems/vendors/port";

/** A workspace's agent configuration: per classification, the webhooks its card names as a custom action. */
export interface AgentConfigurationRecord {
  /** The workspace id. */
  id: string;
  workspaceId: string;
  agentName: string;
  cards: { classification: Classification; webhookIds: string[] }[];
  updatedAt: string;
}
