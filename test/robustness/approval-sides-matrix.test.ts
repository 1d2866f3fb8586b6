import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Route } from "../../shared/platform/http/route";
import { allRoutes } from "../../shared/api/route-groups";
import type { OrganizationalRole, WorkspaceRole } from "../../shared/model/organizations/roles";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";

/**
 * Approvals by side, as a matrix generated from the route table: every route that decides a run
 * (`adminWithoutWorkspaceRole` under `/approvals/{runId}/`) and every route that records a standing
 * pre-authorization, against deciders of both sides of a managed customer's workspace (the
 * customer's and the provider's people, by organizational and workspace role) and runs made to wait
 * by each setting. The expectations are the role table's, written out here on their own.
 */
type Side = "Customer" | "Provider";
type Setting = "WorkspacePolicy" | "PartnerApproval" | "TwoSided";
interface Decider {
  side: Side;
  role: OrganizationalRole;
  workspaceRole?: WorkspaceRole;
  person?: TestPerson;
}

let host: TestHost;
let workspaceId: string;
let admin: TestPerson;
const routes = allRoutes().filter((r) => r.adminWithoutWorkspaceRole);
const decisionRoutes = routes.filter((r) => r.path.includes("/approvals/{runId}/"));
const recordRoutes = routes.filter((r) => r.method === "POST" && r.path.endsWith("/pre-authorizations"));
const deciders: Decider[] = (["Customer", "Provider"] as const).flatMap((side) => [
  { side, role: "Member" as const, workspaceRole: "Owner" as const },
  { side, role: "Member" as const, workspaceRole: "Analyst" as const },
  { side, role: "Admin" as const },
  { side, role: "WorkspaceAdmin" as const },
]);
const label = (r: Route, d: Decider) => `${r.method} ${r.path} as the ${d.side.toLowerCase()}'s ${d.role}${d.workspaceRole ? ` (${d.workspaceRole})` : ""}`;

beforeAll(async () => {
  host = await startTestHost({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  const workspace = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-prod")!;
  workspaceId = workspace.id;
  admin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  for (const d of deciders) {
    d.person = await host.person({
      organizationalRole: d.role,
      accountId: d.side === "Customer" ? workspace.accountId : host.demo.provider.id,
      workspaceAssignments: d.workspaceRole ? [{ workspaceId, role: d.workspaceRole }] : [],
    });
  }
}, 60_000);
afterAll(() => host?.close());

/** Makes a run wait for one setting alone (the provider's partner setting covers Northwind's admin playbooks). */
async function waitingRun(setting: Setting): Promise<string> {
  const policy = { WorkspacePolicy: { mode: "AllRuns", twoSidedApproval: false }, PartnerApproval: { mode: "NoApproval", twoSidedApproval: false }, TwoSided: { mode: "AllRuns", twoSidedApproval: true } }[setting];
  expect((await host.portal(admin, "PUT", `/portal/workspaces/${workspaceId}/approval-policy`, { body: policy })).status).toBe(200);
  return submitAccountRun(host, workspaceId, { playbook: setting === "PartnerApproval" ? "reset-password" : "revoke-sessions" });
}

const decides = (d: Decider) => d.workspaceRole === "Owner" || d.role === "Admin";

/** What the role table says a decider's request answers. */
function expected(route: Route, d: Decider, setting: Setting): { status: number; code?: string } {
  if (!decides(d)) return { status: 403, code: "INSUFFICIENT_WORKSPACE_ROLE" };
  if (route.path.endsWith("/deny")) return { status: 200 };
  if (setting === "PartnerApproval" && d.side === "Customer") return { status: 403, code: "FORBIDDEN" };
  return { status: 200 };
}

describe("approvals by side", () => {
  it("the route table has the decision and pre-authorization routes the matrix covers", () => {
    expect(decisionRoutes.map((r) => r.path.split("/").at(-1)).sort()).toEqual(["approve", "deny"]);
    expect(recordRoutes).toHaveLength(1);
  });

  for (const setting of ["WorkspacePolicy", "PartnerApproval", "TwoSided"] as const) {
    it(`decides a run made to wait by ${setting} as the role table says, for every decider of either side`, async () => {
      for (const route of decisionRoutes) {
        for (const d of deciders) {
          const runId = await waitingRun(setting);
          const body = route.path.endsWith("/deny") ? { reason: "Not now." } : {};
          const res = await host.portal(d.person!, route.method, route.path.replace("{workspaceId}", workspaceId).replace("{runId}", runId), { body });
          const problem = res.ok ? undefined : ((await res.json()) as { code: string });
          expect({ case: label(route, d), status: res.status, code: problem?.code }).toEqual({ case: label(route, d), ...expected(route, d, setting) });
        }
      }
    }, 120_000);
  }

  it("records a standing pre-authorization only as the workspace's own organization's Owner or Admin", async () => {
    const catalogue = (await host.services.stores.playbookCatalogues.get(workspaceId))!;
    const body = { playbookIds: [catalogue.playbooks[0]!.id], endsAt: new Date(Date.now() + 3_600_000).toISOString() };
    for (const route of recordRoutes) {
      for (const d of deciders) {
        const res = await host.portal(d.person!, route.method, route.path.replace("{workspaceId}", workspaceId), { body });
        const problem = res.ok ? undefined : ((await res.json()) as { code: string });
        const want = !decides(d) ? { status: 403, code: "INSUFFICIENT_WORKSPACE_ROLE" } : d.side === "Provider" ? { status: 403, code: "FORBIDDEN" } : { status: 201 };
        expect({ case: label(route, d), status: res.status, code: problem?.code }).toEqual({ case: label(route, d), ...want });
      }
    }
  });
});
