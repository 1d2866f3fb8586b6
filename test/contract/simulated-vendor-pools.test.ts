import { beforeEach, describe, expect, it, vi } from "vitest";
import * as entityPool from "../../shared/systems/vendors/simulated/entity-pool";
import { createSimulatedVendors } from "../../shared/systems/vendors/simulated/simulated-vendor";

// Counts the pools built, passing every call through to the real builder. This file is in the
// contract project, whose files each load their own modules: the mock must be in place before the
// simulated vendor first loads the pool builder, which the unit project's shared modules cannot promise.
vi.mock("../../shared/systems/vendors/simulated/entity-pool", async (importOriginal) => {
  const original = await importOriginal<typeof entityPool>();
  return { ...original, buildEntityPool: vi.fn(original.buildEntityPool) };
});
const built = vi.mocked(entityPool.buildEntityPool);

const T0 = Date.parse("2025-03-01T12:00:00.000Z");
const EVER = { from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z" };
const workspaces = ["alpha", "bravo", "charlie", "delta", "echo"].map((name) => ({ id: `ws-${name}`, name: `${name}-sentinel`, tenantId: `tenant-${name}` }));

function vendors(poolsKept?: number) {
  return createSimulatedVendors({ seed: "pools", workspaces, incidentsPerWorkspace: 40, owners: [], now: () => new Date(T0), ...(poolsKept === undefined ? {} : { poolsKept }) });
}

/** Every incident of a workspace at SourceA, entities included (reading one builds its workspace's pool). */
async function incidentsOf(v: ReturnType<typeof vendors>, workspaceId: string) {
  return (await v.gateway("SourceA").listIncidents({ workspaceId, field: "createdAt", ...EVER, limit: 500 })).items;
}

describe("simulated vendor: entity pools", () => {
  beforeEach(() => {
    built.mockClear();
  });

  it("keeps the pools of the most recently read workspaces only, and one rebuilt gives the same incidents", async () => {
    const kept = vendors(2);
    const first = await incidentsOf(kept, "ws-alpha");
    for (const w of workspaces) await incidentsOf(kept, w.id);
    // alpha's pool was built, kept while read again, then dropped for the others: each built once so far.
    expect(built).toHaveBeenCalledTimes(5);
    // delta and echo are the two kept: reading them builds nothing; alpha is built again, the same.
    await incidentsOf(kept, "ws-echo");
    await incidentsOf(kept, "ws-delta");
    expect(built).toHaveBeenCalledTimes(5);
    expect(await incidentsOf(kept, "ws-alpha")).toEqual(first);
    expect(built).toHaveBeenCalledTimes(6);
  });

  it("builds a workspace's pool once while it is among those kept", async () => {
    const v = vendors();
    for (let round = 0; round < 3; round++) for (const w of workspaces) await incidentsOf(v, w.id);
    expect(built).toHaveBeenCalledTimes(workspaces.length);
  });
});
