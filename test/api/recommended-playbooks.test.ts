import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
});
afterAll(() => host?.close());

/** Incidents of the workspace from each of several sources, newest first. */
async function incidentsOf(workspaceId: string, perSource: number): Promise<{ source: string; id: string; title: string }[]> {
  const found: { source: string; id: string; title: string }[] = [];
  for (const source of ["SourceA", "SourceB", "SourceC", "SourceD"]) {
    const res = await host.call("POST", "/incidents/across-workspaces", {
      body: { isFirstCall: true, workspacePageTokens: [], sources: [source], timeFilterSelection: { type: "FortyEightHours" } },
    });
    expect(res.status).toBe(200);
    const mine = ((await json(res)).data.incidents as Json[]).filter((i) => i.incident.workspaceId === workspaceId).slice(0, perSource);
    found.push(...mine.map((i) => ({ source: i.source as string, id: i.incident.id as string, title: i.incident.title as string })));
  }
  return found;
}

describe("an incident's recommended playbooks", () => {
  it("run as the incident gives them: every recommendation of several incidents, in one run each", async () => {
    const workspace = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
    const catalogue = (await host.services.stores.playbookCatalogues.get(workspace))!;
    const incidents = await incidentsOf(workspace, 3);
    expect(incidents.length).toBeGreaterThanOrEqual(8);
    let ran = 0;
    for (const { source, id, title } of incidents) {
      const res = await host.call("GET", `/workspaces/${workspace}/incidents/${source}/${id}`);
      expect(res.status).toBe(200);
      const { gamebookCatalog } = (await json(res)).data;
      // The vendor named the actions by the automation's own names; the incident gives the catalogue's ids.
      for (const r of gamebookCatalog.recommended as Json[]) {
        const playbook = catalogue.playbooks.find((p) => p.id === r.id);
        expect(playbook, JSON.stringify(r)).toBeDefined();
        expect(r.referenceId).toBe(playbook!.referenceId);
      }
      if (gamebookCatalog.recommended.length === 0) continue;
      const playbooks = (gamebookCatalog.recommended as Json[]).map((r, i) => ({ id: r.id, sequence: i + 1, entityId: r.entityId, parameters: {} }));
      const run = await host.call("POST", `/workspaces/${workspace}/gamebooks/run`, { body: { incidentId: id, incidentTitle: title, source, playbooks } });
      expect(run.status, JSON.stringify(await run.clone().json())).toBe(200);
      ran++;
    }
    expect(ran).toBeGreaterThanOrEqual(8);
  }, 60_000);

  it("a recommendation the workspace cannot run is listed apart, with why", async () => {
    const workspace = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-stores")!.id;
    const [first] = await incidentsOf(workspace, 1);
    const read = async () => (await json(await host.call("GET", `/workspaces/${workspace}/incidents/${first!.source}/${first!.id}`))).data.gamebookCatalog;
    const before = await read();
    expect(before.unavailable).toEqual([]);
    const switchedOff = before.recommended[0];
    // The playbook switched off in the workspace's catalogue, as the portal does.
    const stored = (await host.services.stores.playbookCatalogues.get(workspace))!;
    const draft = { ...stored, playbooks: stored.playbooks.map((p) => (p.id === switchedOff.id ? { ...p, enabled: false } : p)) };
    await host.services.stores.playbookCatalogues.put(draft);
    const after = await read();
    expect(after.recommended.map((r: Json) => r.id)).not.toContain(switchedOff.id);
    expect(after.unavailable).toEqual([{ referenceId: switchedOff.referenceId, name: switchedOff.name, reason: "SwitchedOff" }]);
  });
});
