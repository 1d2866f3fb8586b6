import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { disabledDirectoryLogs, type DirectoryLogQuery, type DirectoryLogs } from "../../shared/systems/directory-logs/port";
import { createSimulatedDirectoryLogs } from "../../shared/systems/directory-logs/simulated/simulated-directory-logs";
import { buildDemoData } from "../../shared/hosts/local/demo-data";

const now = new Date("2024-06-05T15:30:00.000Z");
const demo = buildDemoData("seed-1", now);
const tenants = [...new Set(demo.users.map((u) => u.tenantId))].map((tenantId) => ({
  tenantId,
  users: demo.users.filter((u) => u.tenantId === tenantId).map((u) => ({ id: u.id, displayName: u.displayName, userPrincipalName: u.email })),
}));
const fabrikamTenant = demo.workspaces[0]!.tenantId;
const maria = demo.users.find((u) => u.email.startsWith("maria."))!;

function simulated(seed = "seed-1", clock = { now }) {
  return createSimulatedDirectoryLogs({ seed, tenants, now: () => clock.now });
}

const day = (from: string, to: string, extra: Partial<DirectoryLogQuery> = {}): DirectoryLogQuery => ({ tenantId: fabrikamTenant, from, to, pageSize: 1000, ...extra });

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("simulated directory logs", () => {
  const { logs } = simulated();
  const week = day("2024-05-29T00:00:00.000Z", "2024-06-05T15:30:00.000Z");

  it("gives the same sign-ins for the same seed, and others for another seed", async () => {
    const a = await logs.listSignIns(week);
    expect(a.items.length).toBeGreaterThan(50);
    expect((await simulated().logs.listSignIns(week)).items).toEqual(a.items);
    expect((await simulated("seed-2").logs.listSignIns(week)).items.map((r) => r.id)).not.toEqual(a.items.map((r) => r.id));
  });

  it("holds realistic sign-ins: successes, AADSTS failures, conditional access blocks and risky sign-ins from hostile addresses", async () => {
    const rows = (await logs.listSignIns(day("2024-05-06T00:00:00.000Z", "2024-06-05T00:00:00.000Z"))).items;
    expect(rows.some((r) => r.status.errorCode === 0)).toBe(true);
    expect(rows.some((r) => r.status.errorCode === 50126)).toBe(true);
    const blocked = rows.filter((r) => r.status.errorCode === 53003);
    expect(blocked.length).toBeGreaterThan(0);
    for (const r of blocked) expect(r.conditionalAccessStatus).toBe("failure");
    const risky = rows.filter((r) => r.riskLevelDuringSignIn === "high" || r.riskLevelDuringSignIn === "medium");
    expect(risky.length).toBeGreaterThan(0);
    for (const r of risky) {
      expect(r.ipAddress).toMatch(/^192\.0\.2\./);
      expect(r.riskEventTypes.length).toBeGreaterThan(0);
    }
    expect(rows.every((r) => r.userPrincipalName?.endsWith("@fabrikam.example"))).toBe(true);
  });

  it("lists directory audit events with initiator, targets and modified properties, the helpdesk admin acting most", async () => {
    const rows = (await logs.listDirectoryAudits(day("2024-05-20T00:00:00.000Z", "2024-06-05T00:00:00.000Z"))).items;
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.some((r) => r.initiatedBy.app !== null)).toBe(true);
    expect(rows.some((r) => r.targetResources.some((t) => t.modifiedProperties.length > 0))).toBe(true);
    const byHelpdesk = rows.filter((r) => r.initiatedBy.user?.userPrincipalName?.startsWith("helpdesk.admin@"));
    expect(byHelpdesk.length).toBeGreaterThan(rows.length / 4);
  });

  it("has nothing after now nor before the 30-day retention", async () => {
    const future = await logs.listSignIns(day("2024-06-05T15:30:00.000Z", "2024-06-07T00:00:00.000Z"));
    expect(future).toEqual({ items: [] });
    const ancient = await logs.listSignIns(day("2024-04-01T00:00:00.000Z", "2024-05-05T00:00:00.000Z"));
    expect(ancient).toEqual({ items: [] });
  });

  it("fills in a console sign-in from the directory: the user's id and name, a successful sign-in now", () => {
    const { console: directory } = simulated();
    const record = directory.addSignIn(fabrikamTenant, { userPrincipalName: maria.email, ipAddress: "192.0.2.66" });
    expect(record).toMatchObject({ userId: maria.id, userDisplayName: maria.displayName, createdDateTime: now.toISOString(), ipAddress: "192.0.2.66", status: { errorCode: 0 } });
  });

  it("a disabled integration refuses with EXTENSION_NOT_ENABLED", async () => {
    const off: DirectoryLogs = disabledDirectoryLogs();
    expect(off.isEnabled(fabrikamTenant)).toBe(false);
    expect((await rejection(off.listDirectoryAudits(week))).code).toBe("EXTENSION_NOT_ENABLED");
  });
});
