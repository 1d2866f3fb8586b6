import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CataloguePlaybook } from "../../shared/model/gamebooks/playbook-catalogue-record";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { simulatedAutomationCatalogue } from "../../shared/systems/playbook-automation/simulated/simulated-catalogue";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
/** fabrikam-sentinel-prod: the demo catalogue, rules for every simulated title, no approval. */
let ws: string;
let operator: TestPerson;
let editor: TestPerson;

beforeAll(async () => {
  host = await startTestHost();
  ws = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  const owns = [{ workspaceId: ws, role: "Analyst" as const }];
  operator = await host.person({ organizationalRole: "OrgContentOperator", workspaceAssignments: owns });
  editor = await host.person({ organizationalRole: "OrgContentAdmin", workspaceAssignments: owns });
});
afterAll(async () => host?.close());

const playbooksPath = (workspaceId = ws) => `/portal/workspaces/${workspaceId}/playbooks`;
const rulesPath = (workspaceId = ws) => `/portal/workspaces/${workspaceId}/gamebook-rules`;

async function catalogue(): Promise<CataloguePlaybook[]> {
  return (await host.services.stores.playbookCatalogues.get(ws))!.playbooks;
}
async function demoPlaybook(referenceId: string): Promise<CataloguePlaybook> {
  return (await catalogue()).find((p) => p.referenceId === referenceId)!;
}

/** The workspace's audit events of one activity type, oldest first, through the contract's export. */
async function audited(activityType: string): Promise<Json[]> {
  await host.auditSequenced(ws);
  const body = await json(await host.call("GET", `/workspaces/${ws}/export/audit?pageSize=1000`));
  return body.value.filter((e: Json) => e.activityType === activityType);
}

const lockDevice = (extra: Json = {}) => ({
  referenceId: "lock-device",
  name: "Lock device",
  description: "Locks the device's screen until its user signs in again.",
  entityType: "Host",
  parameters: [{ name: "message", kind: "string", maxLength: 200 }],
  ...extra,
});

describe("the playbook catalogue", () => {
  it("lists the workspace's playbooks by name for a content operator, with what names each and the catalogue's ETag", async () => {
    const res = await host.portal(operator, "GET", playbooksPath());
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeTruthy();
    const { data } = await json(res);
    expect(data.workspaceId).toBe(ws);
    expect(data.playbooks.map((p: Json) => p.name)).toEqual([...data.playbooks.map((p: Json) => p.name)].sort((a: string, b: string) => a.localeCompare(b, "en")));
    const revoke = data.playbooks.find((p: Json) => p.referenceId === "revoke-sessions");
    expect(revoke).toMatchObject({ entityType: "User", action: "automation", enabled: true, parameters: [] });
    expect(revoke.usage.rules).toBeGreaterThan(0);
    expect(revoke.usage.gamebooks).toBe(1);
  });

  it("adds a playbook (201), changes it (200), and writes nothing for a change that changes nothing; each write audited with the person as actor", async () => {
    const id = "3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
    const created = await host.portal(editor, "PUT", `${playbooksPath()}/${id}`, { body: lockDevice() });
    expect(created.status).toBe(201);
    const view = (await json(created)).data;
    expect(view).toMatchObject({
      id,
      referenceId: "lock-device",
      action: "automation",
      isAdminRequired: false,
      isRecommended: true,
      recoverPlaybookId: null,
      enabled: true,
      parameters: [{ name: "message", kind: "string", description: "", required: false, maxLength: 200 }],
      usage: { rules: 0, gamebooks: 0 },
    });
    const changed = await host.portal(editor, "PUT", `${playbooksPath()}/${id}`, { body: lockDevice({ name: "Lock the device", isAdminRequired: true }) });
    expect(changed.status).toBe(200);
    expect((await json(changed)).data).toMatchObject({ name: "Lock the device", isAdminRequired: true });
    const again = await host.portal(editor, "PUT", `${playbooksPath()}/${id}`, { body: lockDevice({ name: "Lock the device", isAdminRequired: true }) });
    expect(again.status).toBe(200);

    const events = (await audited("Playbook")).filter((e) => e.targetResourceId === id);
    expect(events.map((e) => e.activityAction)).toEqual(["Create", "Update"]);
    expect(events[1]).toMatchObject({ actorId: editor.userId, actorName: editor.name, targetResourceType: "Playbook", targetResourceName: "Lock the device", discriminator: "Workspace" });
    expect(JSON.parse(events[1]!.metadata).changed).toEqual(["name", "isAdminRequired"]);
    expect((await catalogue()).find((p) => p.id === id)?.name).toBe("Lock the device");
  });

  it("refuses an entry that would not hold, naming each field", async () => {
    const revoke = await demoPlaybook("revoke-sessions");
    const isolate = await demoPlaybook("isolate-host");
    const cases: [Json, string][] = [
      [lockDevice({ referenceId: "revoke-sessions" }), "referenceId"],
      [lockDevice({ action: "incident.close" }), "action"],
      [lockDevice({ recoverPlaybookId: "no-such-playbook" }), "recoverPlaybookId"],
      [lockDevice({ recoverPlaybookId: revoke.id }), "recoverPlaybookId"],
      [{ referenceId: "log-note", name: "Log a note", entityType: "Incident", action: "incident.comment", parameters: [] }, "parameters"],
      [lockDevice({ parameters: [{ name: "mode", kind: "enum", values: ["A", "B"], default: "C" }] }), "parameters[0].default"],
      [lockDevice({ parameters: [{ name: "n", kind: "integer", min: 5, max: 1 }, { name: "n", kind: "boolean" }] }), "parameters[1].name"],
      [lockDevice({ surprise: true }), "surprise"],
    ];
    for (const [body, field] of cases) {
      const res = await host.portal(editor, "PUT", `${playbooksPath()}/refused-entry`, { body });
      const problem = await json(res);
      expect({ field, status: res.status, code: problem.code }).toEqual({ field, status: 400, code: "VALIDATION_ERROR" });
      expect(Object.keys(problem.errors), JSON.stringify(problem.errors)).toContain(field);
    }
    // Changing a playbook's entity type under the playbook that names it as its undo.
    const release = await demoPlaybook("release-host");
    const res = await host.portal(editor, "PUT", `${playbooksPath()}/${release.id}`, { body: { referenceId: "release-host", name: release.name, entityType: "User", isAdminRequired: true, isRecommended: false } });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.entityType[0]).toContain(isolate.name);
    expect((await catalogue()).some((p) => p.id === "refused-entry")).toBe(false);
  });

  it("answers 409 to an If-Match that is no longer the catalogue's, and loses neither of two changes made at once", async () => {
    const etag = (await host.portal(operator, "GET", playbooksPath())).headers.get("etag")!;
    expect((await host.portal(editor, "PUT", `${playbooksPath()}/race-a`, { body: lockDevice({ referenceId: "race-a" }), headers: { "if-match": etag } })).status).toBe(201);
    const stale = await host.portal(editor, "PUT", `${playbooksPath()}/race-b`, { body: lockDevice({ referenceId: "race-b" }), headers: { "if-match": etag } });
    expect(stale.status).toBe(409);
    expect((await json(stale)).code).toBe("CONFLICT");

    const ids = Array.from({ length: 6 }, (_, i) => `concurrent-${i}`);
    const answers = await Promise.all(ids.map((id) => host.portal(editor, "PUT", `${playbooksPath()}/${id}`, { body: lockDevice({ referenceId: id }) })));
    expect(answers.map((r) => r.status)).toEqual(ids.map(() => 201));
    const held = new Set((await catalogue()).map((p) => p.id));
    for (const id of ["race-a", ...ids]) expect(held.has(id), id).toBe(true);
  });

  it("a playbook switched off is recommended by no rule and refused by a run, and comes back when switched on", async () => {
    const revoke = await demoPlaybook("revoke-sessions");
    const { id: _id, workspaceId: _ws, enabled: _enabled, ...fields } = revoke;
    const title = "Impossible travel activity for ann@fabrikam.example";
    const recommended = async () => (await json(await host.call("GET", `/workspaces/${ws}/gamebooks/rules/${encodeURIComponent(title)}`))).data.map((r: Json) => r.playbookId);
    expect(await recommended()).toContain(revoke.id);

    expect((await host.portal(editor, "PUT", `${playbooksPath()}/${revoke.id}`, { body: { ...fields, enabled: false } })).status).toBe(200);
    expect(await recommended()).not.toContain(revoke.id);
    const incident = userIncident();
    const entity = incident.entities.find((e) => actsOn(revoke, e))!;
    const run = await host.call("POST", `/workspaces/${ws}/gamebooks/run`, {
      body: { incidentId: incident.id, incidentTitle: incident.title, source: incident.source, playbooks: [{ id: revoke.id, sequence: 1, entityId: entity.id, parameters: {} }] },
    });
    expect(run.status).toBe(400);
    expect((await json(run)).errors["playbooks[0].id"][0]).toMatch(/switched off/);

    expect((await host.portal(editor, "PUT", `${playbooksPath()}/${revoke.id}`, { body: { ...fields, enabled: true } })).status).toBe(200);
    expect(await recommended()).toContain(revoke.id);
  });

  it("deletes a playbook nothing names (204, audited), refuses one still named (409, saying by what), and answers 404 for one not there", async () => {
    const id = "to-be-deleted";
    await host.portal(editor, "PUT", `${playbooksPath()}/${id}`, { body: lockDevice({ referenceId: id }) });
    expect((await host.portal(editor, "DELETE", `${playbooksPath()}/${id}`)).status).toBe(204);
    expect((await catalogue()).some((p) => p.id === id)).toBe(false);
    expect((await audited("Playbook")).filter((e) => e.targetResourceId === id).map((e) => e.activityAction)).toEqual(["Create", "Delete"]);
    const gone = await host.portal(editor, "DELETE", `${playbooksPath()}/${id}`);
    expect(gone.status).toBe(404);

    const release = await demoPlaybook("release-host");
    const named = await host.portal(editor, "DELETE", `${playbooksPath()}/${release.id}`);
    expect(named.status).toBe(409);
    expect((await json(named)).detail).toContain("Isolate host");
    const reset = await demoPlaybook("reset-password");
    expect((await json(await host.portal(editor, "DELETE", `${playbooksPath()}/${reset.id}`))).detail).toMatch(/rules .*gamebooks/);
  });

  it("a content operator may read but not change", async () => {
    const res = await host.portal(operator, "PUT", `${playbooksPath()}/operator-try`, { body: lockDevice({ referenceId: "operator-try" }) });
    expect(res.status).toBe(403);
    expect((await json(res)).target).toBe("organizationalRole");
  });
});

describe("importing from the automation backend", () => {
  it("adds what the backend offers that the catalogue lacks, leaves the rest, and the second import changes nothing", async () => {
    const first = await host.portal(editor, "POST", `${playbooksPath()}/import`);
    expect(first.status).toBe(200);
    const report = (await json(first)).data;
    expect(report.added.map((p: Json) => p.referenceId)).toEqual(["require-mfa-registration"]);
    expect(report.updated).toEqual([]);
    expect(report.unchanged.map((p: Json) => p.referenceId).sort()).toEqual(simulatedAutomationCatalogue.map((a) => a.referenceId).filter((r) => r !== "require-mfa-registration").sort());
    // The catalogue's own automation playbooks the backend does not offer (added in the tests above).
    expect(report.notOffered.map((p: Json) => p.referenceId)).toContain("lock-device");
    const added = (await catalogue()).find((p) => p.referenceId === "require-mfa-registration")!;
    expect(added).toMatchObject({ id: report.added[0].id, action: "automation", entityType: "User", isAdminRequired: true, enabled: true });
    const imports = () => audited("PlaybookCatalogue");
    expect(await imports()).toHaveLength(1);
    expect(JSON.parse((await imports())[0]!.metadata).import.added).toEqual(["require-mfa-registration"]);

    const second = (await json(await host.portal(editor, "POST", `${playbooksPath()}/import`))).data;
    expect(second.added).toEqual([]);
    expect(second.updated).toEqual([]);
    expect(await imports()).toHaveLength(1);
  });

  it("updates what the backend changed and keeps the workspace's own settings", async () => {
    const isolate = await demoPlaybook("isolate-host");
    const { id: _id, workspaceId: _ws, enabled: _enabled, ...fields } = isolate;
    await host.portal(editor, "PUT", `${playbooksPath()}/${isolate.id}`, { body: { ...fields, isAdminRequired: false, enabled: false } });
    host.simulated.automation.setPlaybooks(ws, [
      ...simulatedAutomationCatalogue.filter((a) => a.referenceId !== "isolate-host"),
      { ...simulatedAutomationCatalogue.find((a) => a.referenceId === "isolate-host")!, name: "Isolate device", parameters: [] },
    ]);
    try {
      const report = (await json(await host.portal(editor, "POST", `${playbooksPath()}/import`))).data;
      expect(report.updated).toEqual([{ id: isolate.id, referenceId: "isolate-host", name: "Isolate device", changed: ["name", "parameters"] }]);
      expect(await demoPlaybook("isolate-host")).toMatchObject({ name: "Isolate device", parameters: [], isAdminRequired: false, enabled: false, recoverPlaybookId: isolate.recoverPlaybookId });
    } finally {
      host.simulated.automation.setPlaybooks(ws, undefined);
    }
  });
});

describe("gamebook rules", () => {
  it("lists the rules one per pattern, with their playbooks in order as the catalogue has them", async () => {
    const { data } = await json(await host.portal(operator, "GET", rulesPath()));
    const travel = data.rules.find((r: Json) => r.pattern === "Impossible travel activity for *");
    const names = await Promise.all(["revoke-sessions", "reset-password", "block-ip", "notify-owner"].map(async (r) => (await demoPlaybook(r)).id));
    expect(travel.playbookIds).toEqual(names);
    expect(travel.playbooks[0]).toEqual({ id: names[0], name: "Revoke user sessions", entityType: "User", enabled: true });
  });

  it("refuses a rule list with every problem at its place, and changes nothing", async () => {
    const revoke = await demoPlaybook("revoke-sessions");
    const before = (await json(await host.portal(operator, "GET", rulesPath()))).data.rules;
    const res = await host.portal(editor, "PUT", rulesPath(), {
      body: {
        rules: [
          { pattern: "Malware detected on *", playbookIds: [revoke.id, "no-such-playbook", revoke.id] },
          { pattern: "Ransom note on *", playbookIds: [revoke.id] },
          { pattern: "   ", playbookIds: [revoke.id] },
          { pattern: "malware  DETECTED on *", playbookIds: [revoke.id] },
        ],
      },
    });
    expect(res.status).toBe(400);
    const problem = await json(res);
    expect(problem.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(problem.errors).sort()).toEqual(["rules[0].playbookIds[1]", "rules[0].playbookIds[2]", "rules[2].pattern", "rules[3].pattern"]);
    expect(problem.errors["rules[3].pattern"][0]).toContain("rules[0]");
    expect((await json(await host.portal(operator, "GET", rulesPath()))).data.rules).toEqual(before);
  });

  it("replaces the rules, audited with what changed; the contract's rules endpoint follows them", async () => {
    const revoke = await demoPlaybook("revoke-sessions");
    const isolate = await demoPlaybook("collect-package");
    const rules = [
      { pattern: "Ransom note on *", playbookIds: [isolate.id] },
      { pattern: "Impossible travel activity for *", playbookIds: [revoke.id] },
    ];
    const res = await host.portal(editor, "PUT", rulesPath(), { body: { rules } });
    expect(res.status).toBe(200);
    expect((await json(res)).data.rules.map((r: Json) => ({ pattern: r.pattern, playbookIds: r.playbookIds }))).toEqual(rules);
    const contract = await json(await host.call("GET", `/workspaces/${ws}/gamebooks/rules/${encodeURIComponent("Ransom note on FAB-FS-01")}`));
    expect(contract.data.map((r: Json) => [r.playbookId, r.incidentTitle])).toEqual([[isolate.id, "Ransom note on *"]]);
    const event = (await audited("GamebookRules")).at(-1)!;
    expect(event).toMatchObject({ actorId: editor.userId, activityAction: "Update", targetResourceId: ws });
    expect(JSON.parse(event.metadata)).toMatchObject({ added: ["Ransom note on *"], rules: 2 });
  });
});

describe("previewing the rules for a title", () => {
  it("explains each recommendation: the rule, its pattern, what each wildcard covered; most specific first, as the contract's rules endpoint orders them", async () => {
    const revoke = await demoPlaybook("revoke-sessions");
    const reset = await demoPlaybook("reset-password");
    const notify = await demoPlaybook("notify-owner");
    const rules = [
      { pattern: "*travel*", playbookIds: [notify.id] },
      { pattern: "Impossible travel activity for *", playbookIds: [revoke.id, reset.id] },
    ];
    expect((await host.portal(editor, "PUT", rulesPath(), { body: { rules } })).status).toBe(200);
    const title = "Impossible  Travel activity for Ann@Fabrikam.example";
    const res = await host.portal(operator, "POST", `${rulesPath()}/preview`, { body: { title } });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.recommendations).toEqual([
      { playbookId: revoke.id, playbookName: revoke.name, entityType: "User", isAdminRequired: false, because: { ruleIndex: 1, pattern: rules[1]!.pattern, specificity: 31, wildcards: ["Ann@Fabrikam.example"] } },
      { playbookId: reset.id, playbookName: reset.name, entityType: "User", isAdminRequired: true, because: { ruleIndex: 1, pattern: rules[1]!.pattern, specificity: 31, wildcards: ["Ann@Fabrikam.example"] } },
      { playbookId: notify.id, playbookName: notify.name, entityType: "User", isAdminRequired: false, because: { ruleIndex: 0, pattern: "*travel*", specificity: 6, wildcards: ["Impossible ", " activity for Ann@Fabrikam.example"] } },
    ]);
    expect(data.skipped).toEqual([]);
    const contract = await json(await host.call("GET", `/workspaces/${ws}/gamebooks/rules/${encodeURIComponent(title)}`));
    expect(contract.data.map((r: Json) => r.playbookId)).toEqual(data.recommendations.map((r: Json) => r.playbookId));

    const nothing = (await json(await host.portal(operator, "POST", `${rulesPath()}/preview`, { body: { title: "Printer out of toner" } }))).data;
    expect(nothing).toEqual({ title: "Printer out of toner", recommendations: [], skipped: [] });
  });

  it("lists apart the rules that match but recommend nothing, and tries a draft without storing it", async () => {
    const notify = await demoPlaybook("notify-owner");
    const { id: _id, workspaceId: _ws, enabled: _enabled, ...fields } = notify;
    await host.portal(editor, "PUT", `${playbooksPath()}/${notify.id}`, { body: { ...fields, enabled: false } });
    try {
      const { data } = await json(await host.portal(operator, "POST", `${rulesPath()}/preview`, { body: { title: "Impossible travel activity for bo" } }));
      expect(data.skipped).toEqual([{ playbookId: notify.id, reason: "SwitchedOff", because: { ruleIndex: 0, pattern: "*travel*", specificity: 6, wildcards: ["Impossible ", " activity for bo"] } }]);
      expect(data.recommendations.map((r: Json) => r.playbookId)).not.toContain(notify.id);
    } finally {
      await host.portal(editor, "PUT", `${playbooksPath()}/${notify.id}`, { body: { ...fields, enabled: true } });
    }

    const stored = (await json(await host.portal(operator, "GET", rulesPath()))).data.rules;
    const draft = [{ pattern: "Printer * out of toner", playbookIds: [notify.id] }];
    const tried = (await json(await host.portal(operator, "POST", `${rulesPath()}/preview`, { body: { title: "Printer FAB-PRN-2 out of toner", rules: draft } }))).data;
    expect(tried.recommendations.map((r: Json) => [r.playbookId, r.because.wildcards])).toEqual([[notify.id, ["FAB-PRN-2"]]]);
    expect((await json(await host.portal(operator, "GET", rulesPath()))).data.rules).toEqual(stored);
    const bad = await host.portal(operator, "POST", `${rulesPath()}/preview`, { body: { title: "x", rules: [{ pattern: "x", playbookIds: ["nope"] }] } });
    expect(bad.status).toBe(400);
    expect(Object.keys((await json(bad)).errors)).toEqual(["rules[0].playbookIds[0]"]);
  });
});

/** A new incident of the workspace with an account entity. */
function userIncident(): VendorIncident {
  for (let i = 0; i < 200; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Impossible travel activity for someone", severity: "High" });
    if (incident.entities.some((e) => e.kind === "Account")) return incident;
  }
  throw new Error("no incident with an account");
}
