import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { autoRunId, submitAutoRun } from "../../shared/domain/gamebooks/auto-run";
import { derivedGuid } from "../../shared/platform/ids/derived-guid";
import { stateIdOf } from "../../shared/domain/incidents/incident-state";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { outboxEvents } from "../support/outbox";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { clockPast, waitFor } from "../support/wait-for";
import { json, type Json } from "../support/json";

vi.setConfig({ testTimeout: 60_000 });

/*
 * Automation rules end to end, on both stores: set in the rules editor, triggered by an incident's
 * arrival as the reconciler ingests it, carried by the `gamebook-runs` queue to one run per incident,
 * `isAutoRun`, asked for by the service, still subject to approval.
 */

let host: TestHost;
let fabrikam: string;
let clinics: string;
let editor: TestPerson;
const PATTERN = "Auto-run drill on *";

beforeAll(async () => {
  host = await startTestHost({ env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "30", SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  fabrikam = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  editor = await host.person({ organizationalRole: "OrgContentAdmin", workspaceAssignments: [fabrikam, clinics].map((workspaceId) => ({ workspaceId, role: "Analyst" as const })) });
}, 120_000);
afterAll(() => host?.close());

async function playbookIds(workspaceId: string, references: readonly string[]): Promise<string[]> {
  const catalogue = (await host.services.stores.playbookCatalogues.get(workspaceId))!;
  return references.map((r) => catalogue.playbooks.find((p) => p.referenceId === r)!.id);
}

/** The workspace's rules with one more, through the rules editor. */
async function addRule(workspaceId: string, rule: Json): Promise<Response> {
  const current = (await json(await host.portal(editor, "GET", `/portal/workspaces/${workspaceId}/gamebook-rules`))).data;
  const rules = current.rules.map((r: Json) => ({ pattern: r.pattern, playbookIds: r.playbookIds, autoRun: r.autoRun }));
  return host.portal(editor, "PUT", `/portal/workspaces/${workspaceId}/gamebook-rules`, { body: { rules: [...rules, rule] } });
}

let lastPass: Json | undefined;
const reconcile = async () => (lastPass = (await json(await host.local("POST", "/reconcile"))).data);
const settle = () => host.services.events.inProcess!.gamebookRuns.idle({ timeoutMs: 20_000 });

/**
 * The automation rule's run of the incident, once it is there. A wait that times out says where the
 * chain stopped: the incident's state (ingested, its created event out), the last pass's summary,
 * the `gamebook-runs` queue and what it dead-lettered.
 */
async function autoRunOf(workspaceId: string, incident: VendorIncident) {
  const runId = autoRunId(workspaceId, incident);
  try {
    return await waitFor(async () => (await host.services.stores.gamebookRuns.get(workspaceId, runId))?.value, "the automation rule's run");
  } catch (error) {
    const queue = host.services.events.inProcess!.gamebookRuns;
    const state = (await host.services.stores.incidents.getMany(workspaceId, [stateIdOf(incident.source, incident.id)]))[0]?.value;
    const chain = {
      incidentState: state ? { ingestedAt: state.ingestedAt, vendorLastModificationTime: state.vendorLastModificationTime } : "not stored",
      incident: { createdAt: incident.createdAt, lastModificationTime: incident.lastModificationTime },
      lastPass,
      queue: queue.stats(),
      deadLetters: queue.deadLetters().map((d) => ({ body: d.message.body, reason: d.reason })),
    };
    throw new Error(`${(error as Error).message}; where the chain stopped: ${JSON.stringify(chain)}`, { cause: error });
  }
}

/**
 * A new SourceA incident titled for the rule, with an account (revoke-sessions acts on it), once the
 * clock has left the millisecond it was created in (so the next pass's window holds it).
 */
async function arrival(workspaceId: string, subject: string): Promise<VendorIncident> {
  for (let i = 0; i < 300; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", workspaceId, { title: `Auto-run drill on ${subject}`, severity: "High" });
    if (incident.entities.some((e) => e.kind === "Account")) {
      await clockPast(incident.lastModificationTime);
      return incident;
    }
  }
  throw new Error("no incident with an account");
}

describe("automation rules", () => {
  it("the rules editor sets autoRun on a rule, and refuses it for a playbook that needs a parameter nobody gives", async () => {
    const refused = await addRule(fabrikam, { pattern: PATTERN, playbookIds: await playbookIds(fabrikam, ["revoke-sessions", "add-comment"]), autoRun: true });
    const problem = await json(refused);
    expect([refused.status, problem.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(Object.values(problem.errors).flat()).toEqual(["Add incident comment cannot run by itself: message is required and has no default."]);
    expect(Object.keys(problem.errors)[0]).toMatch(/^rules\[\d+\]\.autoRun$/);
    for (const workspaceId of [fabrikam, clinics]) {
      const res = await addRule(workspaceId, { pattern: PATTERN, playbookIds: await playbookIds(workspaceId, ["revoke-sessions"]), autoRun: true });
      expect(res.status).toBe(200);
      expect((await json(res)).data.rules.find((r: Json) => r.pattern === PATTERN)).toMatchObject({ autoRun: true });
    }
    // The contract's rules endpoint shows the rule as it shows any.
    const contract = await json(await host.call("GET", `/workspaces/${fabrikam}/gamebooks/rules/${encodeURIComponent("Auto-run drill on X")}`));
    expect(contract.data).toEqual([expect.objectContaining({ incidentTitle: PATTERN, playbookName: "Revoke user sessions" })]);
    expect(contract.data[0]).not.toHaveProperty("autoRun");
  });

  it("a new incident a rule matches gets one run, isAutoRun, asked for by the service, dispatched where no approval is needed; the baseline gets none", async () => {
    const before = host.simulated.vendors.createIncident("SourceA", fabrikam, { title: "Auto-run drill on BASELINE", severity: "High" });
    await clockPast(before.lastModificationTime);
    await reconcile(); // the baseline: incidents already there are not new
    const incident = await arrival(fabrikam, "FAB-WS-42");
    await reconcile();
    await settle();
    const runId = autoRunId(fabrikam, incident);
    const run = await autoRunOf(fabrikam, incident);
    const accounts = incident.entities.filter((e) => e.kind === "Account").map((e) => e.id);
    expect(run).toMatchObject({ isAutoRun: true, isQueued: false, requestedBy: { kind: "Service", name: "Automation rule" }, displayName: "Automation rule" });
    expect(run.triggedByUserId).toBe(derivedGuid("actor/gamebook/Automation rule"));
    expect(run.playbooks.map((p) => [p.name, p.entityId])).toEqual(accounts.map((a) => ["Revoke user sessions", a]));
    expect((await outboxEvents(host.services, fabrikam)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === runId)).toHaveLength(1);
    expect(await host.services.stores.gamebookRuns.listForIncident(fabrikam, before.id, "SourceA", 10)).toEqual([]);
    // The arrival committed one message for it, with the incident's state.
    const messages = (await host.services.stores.outbox.list(outboxScope.workspace(fabrikam), 100_000)).filter((r) => r.kind === "message" && "kind" in r.message.body && r.message.body.incidentId === incident.id);
    expect(messages).toHaveLength(1);
  });

  it("nothing twice: a redelivered message finds its run, another pass over the incident sends nothing", async () => {
    const incident = await arrival(fabrikam, "FAB-WS-43");
    await reconcile();
    await settle();
    const runId = autoRunId(fabrikam, incident);
    await autoRunOf(fabrikam, incident);
    const message = { kind: "autoRun" as const, workspaceId: fabrikam, source: "SourceA" as const, incidentId: incident.id };
    // A redelivery (its own message id, so the queue does not drop it as a duplicate).
    await host.services.events.gamebookRuns.send([{ messageId: `redelivered-${incident.id}`, body: message }]);
    await settle();
    expect(await submitAutoRun(host.services, message)).toBe("exists");
    await reconcile();
    await settle();
    const runs = await host.services.stores.gamebookRuns.listForIncident(fabrikam, incident.id, "SourceA", 10);
    expect(runs.map((r) => r.id)).toEqual([runId]);
  });

  it("is still subject to approval: in the workspace that approves every run, it waits, with no gamebook.run.v1", async () => {
    const incident = await arrival(clinics, "CLN-WS-7");
    await reconcile();
    await settle();
    const runId = autoRunId(clinics, incident);
    const run = await autoRunOf(clinics, incident);
    expect(run).toMatchObject({ status: "Pending", isQueued: true, isAutoRun: true, approval: { reasons: ["WorkspacePolicy"] } });
    expect((await outboxEvents(host.services, clinics)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === runId)).toEqual([]);
    const owner = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: clinics, role: "Owner" }] });
    const queue = (await json(await host.portal(owner, "GET", "/portal/approvals?pageSize=200"))).data as Json[];
    expect(queue.find((r) => r.runId === runId)).toMatchObject({ requestedBy: { kind: "Service", name: "Automation rule" }, viewer: { mayApprove: true } });
  });
});
