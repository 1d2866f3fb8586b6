import { EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";

// Examples of the OpenAPI document for data sources: the demo workspace fabrikam-sentinel-prod.

export const dataConnectorsExample = [
  {
    id: "1f4b9e30-cfb0-836f-97e3-581a665502ca",
    name: "Amazon Web Services S3",
    kind: "AmazonWebServicesS3",
    source: "SourceD",
    state: "Connected",
    dataTypes: ["logs"],
    tables: ["AWSCloudTrail"],
    lastLogReceivedAt: "2026-03-02T22:13:06.727Z",
    health: { status: "Healthy", reason: null, checkedAt: "2026-03-02T22:11:07.727Z" },
  },
  {
    id: "a5aacbc5-b3c9-8c82-b472-392c825e4f5b",
    name: "Microsoft 365 (formerly Office 365)",
    kind: "Office365",
    source: "SourceC",
    state: "Connected",
    dataTypes: ["exchange", "sharePoint", "teams"],
    tables: ["OfficeActivity"],
    lastLogReceivedAt: "2026-03-02T22:12:26.727Z",
    health: { status: "Healthy", reason: null, checkedAt: "2026-03-02T22:11:07.727Z" },
  },
];

export const dataSourceSummaryExample = {
  workspaces: [EXAMPLE_WORKSPACE_ID],
  sources: [
    {
      workspaceId: EXAMPLE_WORKSPACE_ID,
      workspaceName: "fabrikam-sentinel-prod",
      tenantId: "1a56243a-540f-8dc1-9b49-88d09b1389be",
      source: "SourceA",
      dataConnectorCount: 1,
    },
    {
      workspaceId: EXAMPLE_WORKSPACE_ID,
      workspaceName: "fabrikam-sentinel-prod",
      tenantId: "1a56243a-540f-8dc1-9b49-88d09b1389be",
      source: "SourceB",
      dataConnectorCount: 1,
    },
  ],
};

/** A connector that stopped sending: the kind of finding the anomaly search is for. */
export const anomalyResultExample = {
  window: { start: "2026-03-01T09:00:00.000Z", end: "2026-03-02T09:00:00.000Z" },
  workspaces: [EXAMPLE_WORKSPACE_ID],
  anomalies: [
    {
      id: "5e2a9c1f-7b3d-8e4a-b6c2-d0f8a4e1c7b9",
      workspaceId: EXAMPLE_WORKSPACE_ID,
      workspaceName: "fabrikam-sentinel-prod",
      connectorId: "1f4b9e30-cfb0-836f-97e3-581a665502ca",
      connectorName: "Amazon Web Services S3",
      source: "SourceD",
      table: "AWSCloudTrail",
      kind: "NoData",
      window: { start: "2026-03-02T03:00:00.000Z", end: "2026-03-02T09:00:00.000Z" },
      ongoing: true,
      expected: { p10: 41.2, p50: 47.9, p90: 55.3 },
      observed: 0,
      unit: "MB",
      deviationPct: -100,
      severity: "High",
      suspectedCause: { code: "ConnectorDisconnected", description: "The connector reports Disconnected since 03:00; the other tables of the workspace are ingesting." },
      baselineSamples: 7,
    },
  ],
};
