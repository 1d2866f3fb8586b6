import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { seedUnlessVendorsFail } from "../../shared/hosts/local/vendor-seeding";
import { sendJson, startFakeHttpServer, type FakeHttpServer } from "../support/fake-http-server";
import { startTestHost, type TestHost } from "../support/test-host";

/**
 * The local host starts whatever a bridged vendor does: the demo's seeding steps that read the
 * vendors are skipped, and logged, when the vendor fails them.
 */
let bridge: FakeHttpServer;
let host: TestHost;

beforeAll(async () => {
  // SourceA bridged to a vendor that answers 500 to everything.
  bridge = await startFakeHttpServer((_req, res) => sendJson(res, 500, { error: "down" }));
  host = await startTestHost({ env: { SOURCE_A_URL: bridge.origin } });
});
afterAll(async () => {
  await host?.close();
  await bridge?.close();
});

describe("seeding the demo while a bridged vendor is down", () => {
  it("skips what reads the vendor, says so in the log, and seeds the rest", async () => {
    const warn = vi.spyOn(host.services.logger, "warn");
    await seedDemoAdministration(host.services, host.demo);
    await seedUnlessVendorsFail(host.services, "the demo's gamebook runs", () => seedDemoGamebookRuns(host.services, host.demo.workspaces));
    const skipped = warn.mock.calls.filter(([message]) => message === "demo seeding skipped: a vendor failed").map(([, fields]) => fields);
    expect(skipped).toEqual([
      expect.objectContaining({ skipped: "the SOAR intake's delivery history", code: "UPSTREAM_ERROR" }),
      expect.objectContaining({ skipped: "the webhooks' week of deliveries", code: "UPSTREAM_ERROR" }),
      expect.objectContaining({ skipped: "an incident linked to a ticket", code: "UPSTREAM_ERROR" }),
      expect.objectContaining({ skipped: "the demo's gamebook runs", code: "UPSTREAM_ERROR" }),
    ]);
    // What reads no vendor is there: the demo's webhooks, the SOAR intake among them.
    const names = (await host.services.stores.webhooks.listByAccounts([host.demo.provider.id])).map((w) => w.name);
    expect(names).toContain("SOAR incident intake");
    expect(bridge.requests.length).toBeGreaterThan(0);
    warn.mockRestore();
  });

  it("still stops on a fault of the seeding itself", async () => {
    const logger = { warn: vi.fn() };
    const ctx = { logger } as unknown as Parameters<typeof seedUnlessVendorsFail>[0];
    await expect(seedUnlessVendorsFail(ctx, "a step", async () => { throw new TypeError("bug"); })).rejects.toThrow("bug");
    expect(await seedUnlessVendorsFail(ctx, "a step", async () => { throw new ApiError("TIMEOUT", "slow"); })).toBeUndefined();
    expect(logger.warn).toHaveBeenCalledWith("demo seeding skipped: a vendor failed", { skipped: "a step", code: "TIMEOUT", error: "slow" });
    expect(await seedUnlessVendorsFail(ctx, "a step", async () => 42)).toBe(42);
  });
});

