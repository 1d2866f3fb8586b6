import { beforeEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../shared/platform/config/config";
import { silentLogger } from "../../shared/platform/logger";
import { createLocalServices, type SimulatedSystems } from "../../shared/hosts/local/local-services";
import { seedDemoData } from "../../shared/hosts/local/demo-data";
import { seedDemoGamebooks } from "../../shared/hosts/local/demo-gamebooks";
import { reconcileWorkspace } from "../../shared/domain/reconciler/reconciler";
import { autoRunRequest, MAX_AUTO_RUN_ENTITIES } from "../../shared/domain/gamebooks/auto-run";
import { ruleProblems } from "../../shared/domain/gamebooks/gamebook-rule-list";
import type { PlaybookCatalogueRecord } from "../../shared/model/gamebooks/playbook-catalogue-record";
import type { AutoRunMessage, GamebookRunsMessage } from "../../shared/model/gamebooks/gamebook-run";
import type { OutgoingMessage } from "../../shared/platform/queue/queue";
import type { Services } from "../../shared/domain/services";
import type { Entity } from "../../shared/model/incidents/incident";

/*
 * Automation rules: which run a rule makes for an incident, and the trigger — an incident's arrival
 * as the reconciler ingests it commits one `autoRun` message with it (never for the baseline), the
 * catalogue read at most once per workspace per pass. The queue's messages are captured here, so
 * the executor never sees them (test/api/automation-rules.test.ts follows them to the run).
 */

let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);
let services: Services;
let simulated: SimulatedSystems;
let workspaceId: string;
let sent: OutgoingMessage<GamebookRunsMessage>[];

beforeEach(async () => {
  ({ services, simulated } = createLocalServices(loadConfig({ SIMULATED_INCIDENTS_PER_WORKSPACE: "20" }), { logger: silentLogger, now }));
  const { data } = await seedDemoData(services);
  await seedDemoGamebooks(services, data);
  workspaceId = data.workspaces[0]!.id;
  sent = [];
  vi.spyOn(services.events.gamebookRuns, "send").mockImplementation(async (messages) => void sent.push(...messages));
});

async function catalogue(): Promise<PlaybookCatalogueRecord> {
  return (await services.stores.playbookCatalogues.get(workspaceId))!;
}

const id = (c: PlaybookCatalogueRecord, referenceId: string) => c.playbooks.find((p) => p.referenceId === referenceId)!.id;

/** Stores an automation rule for the pattern with these playbooks (written directly: the rules page's checks are tested apart). */
async function automate(pattern: string, references: readonly string[]): Promise<void> {
  const c = await catalogue();
  await services.stores.playbookCatalogues.put({ ...c, rules: [...c.rules, ...references.map((r) => ({ workspaceId, incidentTitle: pattern, playbookId: id(c, r), autoRun: true }))] });
}

const pass = () => reconcileWorkspace(services, { workspaceId, passId: `p${clock}`, passStartedAt: now().toISOString() });
const autoRuns = () => sent.map((m) => m.body).filter((b): b is AutoRunMessage => "kind" in b && b.kind === "autoRun");

const entity = (kind: Entity["kind"], n: number): Entity => ({ id: `${kind.toLowerCase()}-${n}`, kind, name: `${kind} ${n}`, properties: {} });

describe("the run an automation rule makes", () => {
  it("runs the matching automation rules' playbooks, most specific first, each on every entity of its kind, defaults filled in by submission", async () => {
    await automate("Auto-run drill on *", ["block-ip", "revoke-sessions"]);
    await automate("Auto-run drill on FAB-WS-1", ["isolate-host"]);
    const c = await catalogue();
    const request = autoRunRequest(c, { id: "inc-1", source: "SourceA", title: "Auto-run drill on FAB-WS-1", entities: [entity("Ip", 1), entity("Account", 1), entity("Ip", 2), entity("Host", 1)] });
    expect(request!.playbooks.map((p) => [p.sequence, p.id, p.entityId])).toEqual([
      [1, id(c, "isolate-host"), "host-1"],
      [2, id(c, "block-ip"), "ip-1"],
      [3, id(c, "block-ip"), "ip-2"],
      [4, id(c, "revoke-sessions"), "account-1"],
    ]);
    expect(request).toMatchObject({ incidentId: "inc-1", source: "SourceA", isQueued: false });
    // Recommending rules of the same title run nothing by themselves.
    expect(autoRunRequest(c, { id: "inc-2", source: "SourceA", title: "Impossible travel activity for x", entities: [entity("Account", 1)] })).toBeNull();
  });

  it("acts on at most a bounded number of entities per playbook, and leaves out what has nothing to act on", async () => {
    await automate("Auto-run drill on *", ["block-ip", "isolate-host"]);
    const ips = Array.from({ length: MAX_AUTO_RUN_ENTITIES + 5 }, (_, n) => entity("Ip", n));
    const request = autoRunRequest(await catalogue(), { id: "inc-3", source: "SourceA", title: "Auto-run drill on many", entities: ips });
    expect(request!.playbooks).toHaveLength(MAX_AUTO_RUN_ENTITIES);
    expect(autoRunRequest(await catalogue(), { id: "inc-4", source: "SourceA", title: "Auto-run drill on nothing", entities: [entity("File", 1)] })).toBeNull();
  });

  it("the rules page refuses an automation rule whose playbook has a required parameter without a default", async () => {
    const c = await catalogue();
    const errors = ruleProblems([{ pattern: "Auto-run drill on *", playbookIds: [id(c, "revoke-sessions"), id(c, "add-comment")], autoRun: true }], c);
    expect(errors).toEqual({ "rules[0].autoRun": ["Add incident comment cannot run by itself: message is required and has no default."] });
    expect(ruleProblems([{ pattern: "Auto-run drill on *", playbookIds: [id(c, "add-comment")], autoRun: false }], c)).toEqual({});
  });
});

describe("the trigger: an incident's arrival", () => {
  it("commits one autoRun message with each new incident a rule matches, none for the baseline, reading the catalogue once for the pass", async () => {
    await automate("Auto-run drill on *", ["revoke-sessions", "block-ip", "isolate-host"]);
    const old = simulated.vendors.createIncident("SourceA", workspaceId, { title: "Auto-run drill on OLD-1", severity: "High" });
    clock += 1000;
    await pass(); // the baseline: what is there already is not new
    expect(autoRuns()).toEqual([]);

    clock += 60_000;
    const fresh = [1, 2, 3].map((n) => simulated.vendors.createIncident("SourceA", workspaceId, { title: `Auto-run drill on NEW-${n}`, severity: "High" }));
    const other = simulated.vendors.createIncident("SourceA", workspaceId, { title: "Ransomware note on FILESRV-9", severity: "High" });
    clock += 30_000;
    const reads = vi.spyOn(services.stores.playbookCatalogues, "get");
    const result = await pass();
    expect(result.created).toBeGreaterThanOrEqual(4);
    expect(reads).toHaveBeenCalledTimes(1);
    const ids = autoRuns().map((m) => m.incidentId);
    for (const incident of fresh) expect(ids.filter((x) => x === incident.id)).toHaveLength(incident.entities.some((e) => ["Account", "Ip", "Host"].includes(e.kind)) ? 1 : 0);
    expect(ids).not.toContain(other.id);
    expect(ids).not.toContain(old.id);
    expect(autoRuns()[0]).toEqual({ kind: "autoRun", workspaceId, source: "SourceA", incidentId: ids[0] });

    // The next pass finds the same incidents in its overlap: nothing new, no message, no catalogue read.
    sent = [];
    reads.mockClear();
    clock += 30_000;
    await pass();
    expect(autoRuns()).toEqual([]);
    expect(reads).not.toHaveBeenCalled();
  });
});
