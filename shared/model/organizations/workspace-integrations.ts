/** The integrations a workspace may use; each is also subject to the deployment having the system. */
export const integrationNames = ["ticketing", "directoryLogs", "logAnalytics", "playbookAutomation"] as const;

export type IntegrationName = (typeof integrationNames)[number];

/**
 * A workspace's own integration switches (one document per workspace, in its partition). No document
 * means every integration is on, as far as the deployment provides it.
 */
export interface WorkspaceIntegrationsRecord {
  /** Always `integrations`: one per workspace partition. */
  id: string;
  docType: "integrations";
  workspaceId: string;
  /** Per integration; one not named (documents written before it existed) is on. */
  enabled: Partial<Record<IntegrationName, boolean>>;
  updatedAt: string;
}
