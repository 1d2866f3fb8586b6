import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logAnalyticsNotEnabled, type LogAnalytics } from "../../shared/systems/log-analytics/port";
import { startTestHost, type TestHost } from "../support/test-host";

/*
 * An integration switched on that the deployment cannot serve for the workspace says why: what is
 * missing and the setting that provides it, so that the workspace's administrator knows what to ask
 * the deployment's operators for.
 */

let host: TestHost;

/** A deployment with no Log Analytics workspace behind any service workspace. */
const noLogAnalytics: LogAnalytics = {
  isEnabled: () => false,
  listDataConnectors: (workspaceId) => Promise.reject(logAnalyticsNotEnabled(workspaceId)),
  ingestionVolumes: (query) => Promise.reject(logAnalyticsNotEnabled(query.workspaceId)),
  listTables: (workspaceId) => Promise.reject(logAnalyticsNotEnabled(workspaceId)),
};

beforeAll(async () => {
  host = await startTestHost({ logAnalytics: noLogAnalytics });
}, 120_000);

afterAll(async () => {
  await host?.close();
});

describe("GET /portal/workspaces/{workspaceId}/integrations", () => {
  it("says why an integration is not in effect: the setting the deployment lacks, or the workspace's own switch", async () => {
    const admin = await host.person({ organizationalRole: "Admin" });
    const ws = host.demo.workspaces[0]!.id;
    const path = `/portal/workspaces/${ws}/integrations`;
    const read = await host.portal(admin, "GET", path);
    expect(read.status).toBe(200);
    const { data } = (await read.json()) as { data: Record<string, unknown> };
    expect(data.logAnalytics).toEqual({
      switchedOn: true,
      inEffect: false,
      notInEffect: "The deployment maps no Log Analytics workspace to this workspace (LOG_ANALYTICS_WORKSPACES).",
    });
    expect(data.ticketing).toEqual({ switchedOn: true, inEffect: true, notInEffect: null });
    const off = await host.portal(admin, "PUT", path, { body: { logAnalytics: false } });
    expect(((await off.json()) as { data: Record<string, unknown> }).data.logAnalytics).toEqual({ switchedOn: false, inEffect: false, notInEffect: "Switched off for this workspace." });
  });
});
