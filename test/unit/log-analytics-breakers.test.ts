import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { CircuitBreakers, isCircuitOpen } from "../../shared/platform/upstream/circuit-breaker";
import type { Logger } from "../../shared/platform/logger";
import { LOG_ANALYTICS_SYSTEM, withCircuitBreakers } from "../../shared/systems/log-analytics/configured";
import { logAnalyticsNotEnabled, type LogAnalytics } from "../../shared/systems/log-analytics/port";

/*
 * Every Log Analytics call of a workspace goes through the breakers of Log Analytics and of that
 * workspace (composition.ts wraps the port with withCircuitBreakers); a workspace without log
 * analytics still answers EXTENSION_NOT_ENABLED, whatever its breaker's state.
 */

const A = "4f1e2d3c-b5a6-4978-8a9b-0c1d2e3f4a5b";
const B = "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d";
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function upstream() {
  const enabled = new Set([A, B]);
  const failing = new Set<string>();
  const calls: string[] = [];
  const answer = async <T>(workspaceId: string, value: T): Promise<T> => {
    calls.push(workspaceId);
    if (!enabled.has(workspaceId)) throw logAnalyticsNotEnabled(workspaceId);
    if (failing.has(workspaceId)) throw new ApiError("UPSTREAM_ERROR", `Azure Monitor Logs failed (status 503) for ${workspaceId}.`);
    return value;
  };
  const logAnalytics: LogAnalytics = {
    isEnabled: (workspaceId) => enabled.has(workspaceId),
    listDataConnectors: (workspaceId) => answer(workspaceId, []),
    ingestionVolumes: (query) => answer(query.workspaceId, []),
    listTables: (workspaceId) => answer(workspaceId, { success: true, summary: "", tables: [] }),
  };
  return { logAnalytics, enabled, failing, calls };
}

describe("withCircuitBreakers (Log Analytics)", () => {
  it("opens a workspace's breaker after its failures, for every method, and leaves the other workspaces alone", async () => {
    const system = upstream();
    const breakers = new CircuitBreakers({ logger: quiet });
    const la = withCircuitBreakers(system.logAnalytics, breakers);
    system.failing.add(A);
    await expect(la.listDataConnectors(A)).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
    await expect(la.ingestionVolumes({ workspaceId: A, from: "", to: "" })).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
    system.calls.length = 0;

    const refused = await la.listTables(A).catch((error: unknown) => error);
    expect(isCircuitOpen(refused)).toBe(true);
    expect(refused).toMatchObject({ code: "UPSTREAM_ERROR", headers: { "Retry-After": expect.any(String) } });
    expect(system.calls).toEqual([]);
    expect(breakers.report().breakers).toEqual([expect.objectContaining({ system: LOG_ANALYTICS_SYSTEM, workspaceId: A, state: "open" })]);

    expect(await la.listDataConnectors(B)).toEqual([]);
    expect(system.calls).toEqual([B]);
  });

  it("a workspace without log analytics answers EXTENSION_NOT_ENABLED, even with its breaker open, and that answer opens nothing", async () => {
    const system = upstream();
    const breakers = new CircuitBreakers({ logger: quiet });
    const la = withCircuitBreakers(system.logAnalytics, breakers);
    system.failing.add(A);
    for (let i = 0; i < 2; i++) await la.listDataConnectors(A).catch(() => undefined);
    expect(breakers.failing({ system: LOG_ANALYTICS_SYSTEM, workspaceId: A })).toBeDefined();

    system.enabled.delete(A);
    const error = await la.listDataConnectors(A).catch((e: unknown) => e);
    expect(isCircuitOpen(error)).toBe(false);
    expect(error).toMatchObject({ code: "EXTENSION_NOT_ENABLED", target: "logAnalytics" });

    system.enabled.delete(B);
    for (let i = 0; i < 3; i++) await expect(la.listTables(B)).rejects.toMatchObject({ code: "EXTENSION_NOT_ENABLED" });
    expect(breakers.failing({ system: LOG_ANALYTICS_SYSTEM, workspaceId: B })).toBeUndefined();
    expect(la.isEnabled(B)).toBe(false);
  });
});
