import { seedDemoData } from "../../shared/hosts/local/demo-data";
import { integrationStates, switchIntegrations } from "../../shared/domain/organizations/integration-switches";
import { serviceActor } from "../../shared/platform/actor";
import { describe, expect, it } from "vitest";
import { createServices } from "../../shared/hosts/composition";
import { loadConfig } from "../../shared/platform/config/config";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import { silentLogger } from "../../shared/platform/logger";

const RESOURCE = "/subscriptions/0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e/resourceGroups/rg-soc/providers/Microsoft.OperationalInsights/workspaces/law-fabrikam";
const WS = "8d2f0c4e-1b7a-4f5e-9c3d-2a6b8e0f1c4d";
const TENANT = "3f1c9a2b-7d4e-4f6a-8b5c-1d2e3f4a5b6c";

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("workspace data systems: configuration", () => {
  it("reads the ticketing bridge, the Graph tenants and the Log Analytics workspace map", () => {
    const config = loadConfig({
      TICKETING_URL: "https://bridge.example.com/itsm",
      TICKETING_AUTH_HEADER: "Bearer t",
      DIRECTORY_LOGS_TENANT_IDS: ` ${TENANT} , 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b`,
      LOG_ANALYTICS_WORKSPACES: `${WS}=${RESOURCE}`,
      LOG_ANALYTICS_CONNECTOR_SOURCES: "AzureActiveDirectory=SourceA, Palo Alto firewalls=SourceE",
    });
    expect(config.ticketing).toEqual({ baseUrl: "https://bridge.example.com/itsm", authHeader: "Bearer t", timeoutMs: 10_000 });
    expect(config.directoryLogs).toEqual({ tenants: [TENANT, "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"], graphBaseUrl: "https://graph.microsoft.com", timeoutMs: 30_000 });
    expect(config.logAnalytics).toEqual({
      workspaces: { [WS]: RESOURCE },
      connectorSources: { AzureActiveDirectory: "SourceA", "Palo Alto firewalls": "SourceE" },
      armEndpoint: "https://management.azure.com",
      logsEndpoint: "https://api.loganalytics.io/v1",
      timeoutMs: 60_000,
    });
    expect(loadConfig({ DIRECTORY_LOGS_TENANT_IDS: "*" }).directoryLogs?.tenants).toBe("*");
    const none = loadConfig({});
    expect([none.ticketing, none.directoryLogs, none.logAnalytics]).toEqual([undefined, undefined, undefined]);
  });

  it("refuses malformed settings, naming each", () => {
    expect(() => loadConfig({ TICKETING_URL: "ftp://bridge" })).toThrow(/TICKETING_URL/);
    expect(() => loadConfig({ DIRECTORY_LOGS_TENANT_IDS: "contoso.onmicrosoft.com" })).toThrow(/DIRECTORY_LOGS_TENANT_IDS/);
    expect(() => loadConfig({ LOG_ANALYTICS_WORKSPACES: `${WS}=/subscriptions/x/resourceGroups/y` })).toThrow(/LOG_ANALYTICS_WORKSPACES/);
    expect(() => loadConfig({ LOG_ANALYTICS_WORKSPACES: `not-a-guid=${RESOURCE}` })).toThrow(/LOG_ANALYTICS_WORKSPACES/);
    expect(() => loadConfig({ LOG_ANALYTICS_CONNECTOR_SOURCES: "Office365=SourceZ" })).toThrow(/LOG_ANALYTICS_CONNECTOR_SOURCES/);
    expect(() => loadConfig({ ARM_ENDPOINT: "http://management.azure.com" })).toThrow(/ARM_ENDPOINT/);
  });
});

describe("workspace data systems: composition", () => {
  it("in Azure, disables every unconfigured system: EXTENSION_NOT_ENABLED naming it", async () => {
    const services = createServices(loadConfig({}), { logger: silentLogger });
    expect(services.ticketing.isEnabled(WS)).toBe(false);
    expect((await rejection(services.ticketing.getTicket(WS, "t"))).message).toContain("ticketing");
    expect((await rejection(services.directoryLogs.listSignIns({ tenantId: TENANT, from: "2024-06-01T00:00:00Z", to: "2024-06-02T00:00:00Z", pageSize: 10 }))).message).toContain(
      "directory logs",
    );
    expect((await rejection(services.logAnalytics.listTables(WS))).message).toContain("log analytics");
  });

  it("in Azure, uses the real adapters where configured (mapped workspaces and tenants only)", () => {
    const services = createServices(
      loadConfig({ TICKETING_URL: "https://bridge.example.com/itsm", DIRECTORY_LOGS_TENANT_IDS: TENANT, LOG_ANALYTICS_WORKSPACES: `${WS}=${RESOURCE}` }),
      { logger: silentLogger },
    );
    expect(services.ticketing.isEnabled(WS)).toBe(true);
    expect(services.directoryLogs.isEnabled(TENANT)).toBe(true);
    expect(services.directoryLogs.isEnabled("9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b")).toBe(false);
    expect(services.logAnalytics.isEnabled(WS)).toBe(true);
    expect(services.logAnalytics.isEnabled("11111111-2222-4333-8444-555555555555")).toBe(false);
  });

  it("locally, simulates every unconfigured system over the demo organization, one workspace without ticketing", async () => {
    const { services, simulated } = createLocalServices(loadConfig({}), { logger: silentLogger });
    const [first, , , clinics] = simulated.demo.workspaces;
    // The simulated ITSM has a desk for every workspace; the demo data switches clinics' ticketing off.
    expect(services.ticketing.isEnabled(clinics!.id)).toBe(true);
    await seedDemoData(services);
    const ctx = { ...services, actor: serviceActor("portal", "Portal") };
    expect(await integrationStates(ctx, first!)).toEqual({ ticketing: true, directoryLogs: true, logAnalytics: true, playbookAutomation: true });
    expect(await integrationStates(ctx, clinics!)).toEqual({ ticketing: false, directoryLogs: true, logAnalytics: true, playbookAutomation: true });
    await switchIntegrations(ctx, clinics!, { ticketing: true });
    expect((await integrationStates(ctx, clinics!)).ticketing).toBe(true);
    // Seeding again keeps a setting changed since.
    await seedDemoData(services);
    expect((await integrationStates(ctx, clinics!)).ticketing).toBe(true);
    expect(services.directoryLogs.isEnabled(first!.tenantId)).toBe(true);
    expect((await services.logAnalytics.listTables(first!.id)).success).toBe(true);
    expect(simulated.logAnalytics.events(first!.id).length).toBeGreaterThan(0);
    const to = services.now();
    const signIns = await services.directoryLogs.listSignIns({ tenantId: first!.tenantId, from: new Date(to.getTime() - 7 * 86_400_000).toISOString(), to: to.toISOString(), pageSize: 5 });
    expect(signIns.items).toHaveLength(5);
  });
});
