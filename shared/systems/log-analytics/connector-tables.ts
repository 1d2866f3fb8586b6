/**
 * Which Log Analytics tables a Microsoft Sentinel data connector writes. Sentinel's `dataConnectors`
 * resources name their data types ("alerts", "exchange"), not tables; the first-party kinds write
 * fixed tables (below), and the codeless and UI-defined ones say which tables in their own properties.
 */
const tablesByKind: Readonly<Record<string, Readonly<Record<string, string>> | string>> = {
  AzureActiveDirectory: "SecurityAlert",
  AzureAdvancedThreatProtection: "SecurityAlert",
  AzureSecurityCenter: "SecurityAlert",
  MicrosoftDefenderAdvancedThreatProtection: "SecurityAlert",
  OfficeATP: "SecurityAlert",
  OfficeIRM: "SecurityAlert",
  IOT: "SecurityAlert",
  MicrosoftCloudAppSecurity: { alerts: "SecurityAlert", discoveryLogs: "McasShadowItReporting" },
  MicrosoftThreatProtection: { incidents: "SecurityIncident", alerts: "SecurityAlert" },
  MicrosoftThreatIntelligence: "ThreatIntelligenceIndicator",
  ThreatIntelligence: "ThreatIntelligenceIndicator",
  ThreatIntelligenceTaxii: "ThreatIntelligenceIndicator",
  Office365: "OfficeActivity",
  Office365Project: "ProjectActivity",
  OfficePowerBI: "PowerBIActivity",
  Dynamics365: "Dynamics365Activity",
  AmazonWebServicesCloudTrail: "AWSCloudTrail",
  MicrosoftPurviewInformationProtection: "MicrosoftPurviewInformationProtection",
};

/** A KQL table name as Log Analytics allows it (custom tables end in `_CL`). */
export const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The properties of an ARM `dataConnectors` resource this reads. */
export interface ConnectorProperties {
  dataTypes?: Record<string, { state?: string } | undefined>;
  /** AmazonWebServicesS3, GCP. */
  destinationTable?: string;
  /** RestApiPoller (codeless connector platform). */
  dataType?: string;
  /** GenericUI, StaticUI and APIPolling connectors describe their tables here. */
  connectorUiConfig?: { dataTypes?: { name?: string }[] };
}

/** The tables the connector writes, sorted; the kind's fixed tables, else those its properties name. */
export function connectorTables(kind: string, properties: ConnectorProperties): string[] {
  const tables = new Set<string>();
  const fixed = tablesByKind[kind];
  const enabledTypes = Object.entries(properties.dataTypes ?? {}).filter(([, v]) => v?.state?.toLowerCase() !== "disabled").map(([k]) => k);
  if (typeof fixed === "string") tables.add(fixed);
  else if (fixed) for (const type of enabledTypes) if (fixed[type]) tables.add(fixed[type]);
  if (properties.destinationTable) tables.add(properties.destinationTable);
  if (properties.dataType) tables.add(properties.dataType);
  for (const type of properties.connectorUiConfig?.dataTypes ?? []) {
    // UI-defined connectors name a table, sometimes with a filter: "CommonSecurityLog (Palo Alto Networks)".
    const name = type.name?.trim().split(/\s+/)[0];
    if (name) tables.add(name);
  }
  return [...tables].filter((t) => TABLE_NAME.test(t)).sort();
}
