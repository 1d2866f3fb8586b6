import { describe, expect, it } from "vitest";
import { approvalRequired } from "../../shared/domain/gamebooks/approval-policy";
import { actsOn, catalogueProblems } from "../../shared/domain/gamebooks/playbook-catalogue";
import { matchingRules } from "../../shared/domain/gamebooks/playbook-rules";
import { titleMatches } from "../../shared/domain/gamebooks/title-pattern";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { buildDemoGamebooks } from "../../shared/hosts/local/demo-gamebooks";
import { incidentThemes } from "../../shared/systems/vendors/simulated/incident-themes";
import { createSimulatedVendors } from "../../shared/systems/vendors/simulated/simulated-vendor";
import { sources } from "../../shared/model/sources";

const seed = "demo-gamebooks-test";
const demo = buildDemoData(seed, new Date("2026-03-01T00:00:00.000Z"));
const world = buildDemoGamebooks(seed, demo);
const [fabrikamProd] = demo.workspaces;
const byName = (name: string) => demo.workspaces.find((w) => w.name === name)!;
const catalogueOf = (workspaceId: string) => world.playbooks.filter((p) => p.workspaceId === workspaceId);
const rulesOf = (workspaceId: string) => world.rules.filter((r) => r.workspaceId === workspaceId);

describe("demo gamebook world", () => {
  it("is the same for the same seed and uses other ids for another seed", () => {
    expect(buildDemoGamebooks(seed, demo)).toEqual(world);
    const other = buildDemoGamebooks("another-seed", buildDemoData("another-seed", new Date()));
    const ids = new Set(world.playbooks.map((p) => p.id));
    expect(other.playbooks.some((p) => ids.has(p.id))).toBe(false);
  });

  it("gives every workspace a sound catalogue of at least 8 SOC playbooks under its own ids, and 3 gamebooks", () => {
    for (const workspace of demo.workspaces) {
      const catalogue = catalogueOf(workspace.id);
      const gamebooks = world.gamebooks.filter((g) => g.workspaceId === workspace.id);
      expect(catalogue.length).toBeGreaterThanOrEqual(8);
      expect(gamebooks).toHaveLength(3);
      expect(catalogueProblems(catalogue, gamebooks)).toEqual([]);
    }
    const references = catalogueOf(fabrikamProd!.id).map((p) => p.referenceId);
    for (const expected of ["disable-account", "revoke-sessions", "reset-password", "isolate-host", "block-ip", "block-domain", "collect-package", "notify-owner", "add-comment", "close-incident"]) {
      expect(references).toContain(expected);
    }
    expect(new Set(world.playbooks.map((p) => p.id)).size).toBe(world.playbooks.length);
  });

  it("marks the incident's own actions as going through the service, and undo playbooks as not recommended", () => {
    const catalogue = catalogueOf(fabrikamProd!.id);
    const byReference = (reference: string) => catalogue.find((p) => p.referenceId === reference)!;
    expect(byReference("add-comment")).toMatchObject({ action: "incident.comment", entityType: "Incident" });
    expect(byReference("close-incident")).toMatchObject({ action: "incident.close", entityType: "Incident" });
    expect(byReference("isolate-host")).toMatchObject({ action: "automation", recoverPlaybookId: byReference("release-host").id, isAdminRequired: true });
    expect(byReference("release-host").isRecommended).toBe(false);
    expect(byReference("revoke-sessions")).toMatchObject({ entityType: "User", isAdminRequired: false, isRecommended: true });
  });

  it("has rules that recommend playbooks for every kind of simulated incident, acting on that incident's entities", async () => {
    const vendors = createSimulatedVendors({ seed, workspaces: demo.workspaces, incidentsPerWorkspace: 300, owners: [], now: () => new Date("2026-03-01T00:00:00.000Z") });
    const catalogue = catalogueOf(fabrikamProd!.id);
    const matchedThemes = new Set<string>();
    let incidents = 0;
    for (const source of sources) {
      const page = await vendors.gateway(source).listIncidents({
        workspaceId: fabrikamProd!.id,
        field: "createdAt",
        from: "2000-01-01T00:00:00.000Z",
        to: "2100-01-01T00:00:00.000Z",
        limit: 100,
      });
      for (const incident of page.items) {
        incidents++;
        const rules = matchingRules(rulesOf(fabrikamProd!.id), catalogue, incident.title);
        expect(rules.length, incident.title).toBeGreaterThan(0);
        for (const rule of rules) {
          const playbook = catalogue.find((p) => p.id === rule.playbookId)!;
          expect(incident.entities.some((e) => actsOn(playbook, e)), `${rule.playbookName} for "${incident.title}"`).toBe(true);
        }
        const theme = incidentThemes.find((t) => titleMatches(t.title.replace("{subject}", "*"), incident.title));
        if (theme) matchedThemes.add(theme.title);
      }
    }
    expect(incidents).toBeGreaterThan(100);
    expect(matchedThemes.size).toBe(incidentThemes.length);
  });

  it("matches an exact rule whatever the letter case", () => {
    const rules = matchingRules(rulesOf(fabrikamProd!.id), catalogueOf(fabrikamProd!.id), "suspicious sign-in from tor exit node");
    expect(rules.map((r) => r.playbookName)).toEqual(["Revoke user sessions", "Block IP address"]);
  });

  it("has one workspace that approves every run, and a partner setting for Northwind's admin-required runs", () => {
    const clinics = byName("northwind-sentinel-clinics");
    const northwindProd = byName("northwind-sentinel-prod");
    expect(world.workspacePolicies).toEqual([{ workspaceId: clinics.id, mode: "AllRuns" }]);
    const [partner] = world.partnerSettings;
    expect(world.partnerSettings).toHaveLength(1);

    const account = (workspace: typeof clinics) => demo.customers.find((c) => c.id === workspace.accountId) ?? demo.provider;
    const policyOf = (workspaceId: string) => world.workspacePolicies.find((p) => p.workspaceId === workspaceId)?.mode ?? null;
    const decide = (workspace: typeof clinics, isAdminRequired: boolean) =>
      approvalRequired(
        { accountId: workspace.accountId, managedByAccountId: account(workspace).managedByAccountId, playbooks: [{ isAdminRequired }], isQueued: false },
        policyOf(workspace.id),
        partner,
      );
    expect(decide(clinics, false).reasons).toEqual(["WorkspacePolicy"]);
    expect(decide(northwindProd, true).reasons).toEqual(["PartnerApproval"]);
    expect(decide(northwindProd, false).required).toBe(false);
    expect(decide(fabrikamProd!, true).required).toBe(false);
    expect(decide(byName("contoso-soc-internal"), true).required).toBe(false);
  });
});
