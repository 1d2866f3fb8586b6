import { describe, expect, it } from "vitest";
import { PageTokens } from "../../shared/platform/http/page-token";
import { listAcrossWorkspaces, LISTING_PAGE_TARGET, type ListingContext } from "../../shared/domain/incidents/cross-workspace-listing";
import { acrossWorkspacesQuery } from "../../shared/api/schemas/incident-listing-schemas";
import { sources } from "../../shared/model/sources";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";

const NOW = Date.parse("2026-11-20T12:00:00.000Z");

function workspaceOf(i: number): WorkspaceRecord {
  return { id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, name: `ws-${i}`, accountId: "10000000-0000-4000-8000-000000000001" } as WorkspaceRecord;
}

describe("the cross-workspace listing's vendor calls", () => {
  it("asks a page's served streams at once (one vendor latency a page), not in rounds", async () => {
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    const ctx = {
      pageTokens: new PageTokens(Buffer.alloc(32, 7)),
      person: { accountId: "10000000-0000-4000-8000-000000000001", userId: "u-1" },
      now: () => new Date(NOW),
      config: { crossWorkspaceBudgetMs: 10_000 },
      stores: { incidents: { getMany: async () => [] } },
      sources: {
        isEnabledFor: () => true,
        gateway: () => ({
          async listIncidents() {
            calls++;
            most = Math.max(most, ++inFlight);
            await new Promise((r) => setTimeout(r, 20));
            inFlight--;
            return { items: [], cursor: "more" };
          },
        }),
      },
      breakers: { failing: () => undefined, pendingMs: () => 0 },
    } as unknown as ListingContext;
    // 10 workspaces x 7 sources: more streams than a page serves (5 incidents each, 40 streams).
    const page = await listAcrossWorkspaces(ctx, Array.from({ length: 10 }, (_, i) => workspaceOf(i)), acrossWorkspacesQuery.parse({ isFirstCall: true }));
    expect(calls).toBe(LISTING_PAGE_TARGET / 5);
    expect(most).toBe(40);
    expect(page.sourcePageTokens.flatMap((e) => Object.keys(e.sourceTokens))).toHaveLength(10 * sources.length);
  });
});
