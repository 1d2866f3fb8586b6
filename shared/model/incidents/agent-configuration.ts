import type { Classification } from "./incident";

/** The id of a workspace's agent configuration: one per workspace partition. */
export const AGENT_CONFIGURATION_ID = "agent-configuration";

/**
 * A workspace's agent configuration: per classification, the webhooks its card names as a custom
 * action (docs/contract.md §6.2.2). Kept in the workspace's partition, so that a change commits with its
 * audit event.
 */
export interface AgentConfigurationRecord {
  /** Always `agent-configuration`. */
  id: string;
  docType: "agentConfiguration";
  workspaceId: string;
  agentName: string;
  cards: { classification: Classification; webhookIds: string[] }[];
  updatedAt: string;
}
