import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoData } from "../../shared/hosts/local/demo-data";
import { buildDemoGamebooks, seedDemoGamebooks } from "../../shared/hosts/local/demo-gamebooks";
import { approvalPolicyOf } from "../../shared/domain/gamebooks/approval-policy";
import { slaPolicyOf } from "../../shared/domain/incidents/sla-policy";
import type { AuditEventRecord } from "../../shared/model/audit/audit-event";
import { startTestHost, type TestHost } from "../support/test-host";

/*
 * The demo seed writes what operators change in the portal through the portal's own operations, as
 * "Demo seed": checked and audited like a person's change. Seeding again, as every start on a durable
 * store does, writes nothing that is already the demo's and brings back what was changed.
 */

let host: TestHost;
const byName = (name: string) => host.demo.workspaces.find((w) => w.name === name)!;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host?.close());

async function trail(workspaceId: string): Promise<AuditEventRecord[]> {
  await host.auditSequenced(workspaceId);
  return (await host.services.stores.audit.listWorkspaceTrail(workspaceId, 0, 10_000)).map((e) => e.event);
}
const bySeed = (events: readonly AuditEventRecord[]) => events.filter((e) => e.actorName === "Demo seed").map((e) => `${e.activityType} ${e.activityAction}`);
const reseed = async () => {
  await seedDemoData(host.services);
  await seedDemoGamebooks(host.services, host.demo);
};

describe("the demo seed", () => {
  it("writes the catalogue, the approval and SLA settings and the integration switch through their operations, audited as the demo seed", async () => {
    const world = buildDemoGamebooks(host.services.config.demoSeed, host.demo);
    for (const workspace of host.demo.workspaces) {
      const catalogue = (await host.services.stores.playbookCatalogues.get(workspace.id))!;
      expect(catalogue.playbooks).toEqual(world.playbooks.filter((p) => p.workspaceId === workspace.id));
      expect(catalogue.rules).toEqual(world.rules.filter((r) => r.workspaceId === workspace.id));
    }
    const clinics = byName("northwind-sentinel-clinics");
    expect(bySeed(await trail(clinics.id))).toEqual(expect.arrayContaining(["DemoCatalogue Create", "ApprovalPolicy Update", "WorkspaceIntegrations Update", "SlaPolicy Update"]));
    expect(bySeed(await trail(byName("fabrikam-sentinel-prod").id))).toEqual(["SlaPolicy Update", "DemoCatalogue Create"]);
    for (const workspace of host.demo.workspaces) {
      expect(slaPolicyOf((await host.services.stores.workspaces.get(workspace.id))!).timeToResolveMinutes).toEqual({ Informational: null, Low: 4320, Medium: 1440, High: 240 });
    }
    expect(approvalPolicyOf((await host.services.stores.workspaces.get(clinics.id))!).mode).toBe("AllRuns");
    expect((await host.services.stores.integrations.get(clinics.id))?.value.enabled.ticketing).toBe(false);
    const provider = await host.services.stores.accounts.get(host.demo.provider.id);
    expect(provider?.partnerApproval).toEqual({ mode: "AdminRequiredPlaybooks", accountIds: [host.demo.customers[1]!.id] });
    const providerTrail = await host.services.stores.audit.listRecent(host.demo.provider.id, 1000);
    expect(providerTrail.filter((e) => e.actorName === "Demo seed" && e.activityType === "PartnerApproval")).toHaveLength(1);
  });

  it("seeded again (a restart on a durable store) writes nothing that is already the demo's", async () => {
    const before = await Promise.all(host.demo.workspaces.map(async (w) => ({ trail: (await trail(w.id)).length, catalogue: (await host.services.stores.playbookCatalogues.read(w.id))!.etag })));
    const providerBefore = (await host.services.stores.audit.listRecent(host.demo.provider.id, 1000)).length;
    await reseed();
    const after = await Promise.all(host.demo.workspaces.map(async (w) => ({ trail: (await trail(w.id)).length, catalogue: (await host.services.stores.playbookCatalogues.read(w.id))!.etag })));
    expect(after).toEqual(before);
    expect((await host.services.stores.audit.listRecent(host.demo.provider.id, 1000)).length).toBe(providerBefore);
  });

  it("brings back the demo's catalogue, approval and SLA settings changed since, audited, and keeps an integration switched since", async () => {
    const clinics = byName("northwind-sentinel-clinics");
    const workspaceAdmin = await host.person({ organizationalRole: "WorkspaceAdmin" });
    const editor = await host.person({ organizationalRole: "OrgContentAdmin", workspaceAssignments: [{ workspaceId: clinics.id, role: "Analyst" }] });
    expect((await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${clinics.id}/approval-policy`, { body: { mode: "NoApproval" } })).status).toBe(200);
    expect((await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${clinics.id}/integrations`, { body: { ticketing: true } })).status).toBe(200);
    expect((await host.portal(workspaceAdmin, "PUT", `/portal/organizations/${host.demo.provider.id}/partner-approval`, { body: { mode: "NoApproval", accountIds: [] } })).status).toBe(200);
    expect((await host.portal(editor, "PUT", `/portal/workspaces/${clinics.id}/gamebook-rules`, { body: { rules: [] } })).status).toBe(200);
    expect((await host.portal(workspaceAdmin, "PUT", `/portal/workspaces/${clinics.id}/sla-policy`, { body: { timeToResolveMinutes: { High: 60 } } })).status).toBe(200);

    await reseed();
    expect(approvalPolicyOf((await host.services.stores.workspaces.get(clinics.id))!).mode).toBe("AllRuns");
    expect((await host.services.stores.accounts.get(host.demo.provider.id))?.partnerApproval?.mode).toBe("AdminRequiredPlaybooks");
    expect((await host.services.stores.playbookCatalogues.get(clinics.id))!.rules.length).toBeGreaterThan(0);
    expect((await host.services.stores.integrations.get(clinics.id))?.value.enabled.ticketing).toBe(true);
    const seeded = bySeed(await trail(clinics.id));
    expect(slaPolicyOf((await host.services.stores.workspaces.get(clinics.id))!).timeToResolveMinutes.High).toBe(240);
    expect(seeded.slice(-3).sort()).toEqual(["ApprovalPolicy Update", "DemoCatalogue Update", "SlaPolicy Update"]);
  });
});
