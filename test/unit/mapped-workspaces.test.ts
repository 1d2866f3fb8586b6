import { describe, expect, it } from "vitest";
import type { Principal } from "../../shared/platform/auth/principal";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import { mappedWorkspaces } from "../../shared/domain/organizations/mapped-workspaces";

const ids = { a: "00000000-0000-4000-8000-00000000000a", b: "00000000-0000-4000-8000-00000000000b", c: "00000000-0000-4000-8000-00000000000c", gone: "00000000-0000-4000-8000-0000000000ff" };

async function world() {
  const stores = createMemoryStores();
  // Names out of id order, and two alike, so that the order is visibly by name, then id.
  for (const [id, name] of [[ids.a, "zeta"], [ids.b, "alpha"], [ids.c, "alpha"]] as const) {
    await stores.workspaces.upsert({ id, name, tenantId: "t", accountId: "acct" });
  }
  const principal = { workspaceRoles: new Map([[ids.c, "Owner"], [ids.a, "Analyst"], [ids.b, "Analyst"], [ids.gone, "Owner"]]) } as unknown as Principal;
  return { stores, principal };
}

describe("mappedWorkspaces", () => {
  it("lists the workspaces the caller holds a role on and that exist, by name and then id", async () => {
    const ctx = await world();
    expect((await mappedWorkspaces(ctx)).map((w) => w.id)).toEqual([ids.b, ids.c, ids.a]);
  });

  it("keeps to the requested ones (any case), leaving out silently those the caller has no role on", async () => {
    const ctx = await world();
    expect((await mappedWorkspaces(ctx, [ids.a.toUpperCase(), ids.c, "11111111-1111-4111-8111-111111111111"])).map((w) => w.id)).toEqual([ids.c, ids.a]);
    expect(await mappedWorkspaces(ctx, [])).toEqual([]);
  });
});
