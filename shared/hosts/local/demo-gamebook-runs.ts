import type { Uses } from "../../domain/operation-context";
import { isApiError } from "../../platform/errors/api-error";
import { actsOn } from "../../domain/gamebooks/playbook-catalogue";
import type { RunGamebookRequest } from "../../domain/gamebooks/run-request";
import { submitRun } from "../../domain/gamebooks/run-submission";
import { serviceActor } from "../../platform/actor";

import type { VendorIncident } from "../../model/incidents/incident";
import type { PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { buildDemoData, demoId } from "./demo-data";
import type { Actor } from "../../platform/actor";
import type { Entity } from "../../model/incidents/incident";
import { isFinal } from "../../domain/gamebooks/run-state";

/**
 * Real gamebook runs on the newest SourceA incidents of the first two demo workspaces (which need no
 * approval), submitted through the gamebook code as an automation rule would start them and carried
 * out by the executor, so that `last-gamebook`, `by-incident` and the history show something at
 * start. Their ids come from the seed: a restart on a durable store submits nothing twice. Gamebooks
 * that close the incident are not used, so seeding changes no incident's status.
 */
export async function seedDemoGamebookRuns(services: Uses<"config" | "events" | "now" | "playbookActions" | "sources" | "stores">, workspaces: readonly WorkspaceRecord[]): Promise<number> {
  let seeded = 0;
  // Three runs waiting for approval where the policy asks for it, so that the approval queue has
  // something to decide at start (the reference page's approve and deny examples act on the first
  // two, its cancel example on the third).
  const waiting = workspaces.find((w) => w.name === AWAITING_APPROVAL_WORKSPACE);
  if (waiting) seeded += await seedRuns(services, waiting, 3, (n) => demoId(services.config.demoSeed, `gamebook-run/awaiting-approval/${n}`));
  for (const workspace of workspaces.slice(0, 2)) {
    seeded += await seedRuns(services, workspace, 3, (_, incident) => demoId(services.config.demoSeed, `gamebook-run/${workspace.id}/${incident.id}`));
  }
  if (workspaces[0]) seeded += await seedRunsToFollowUp(services, workspaces[0]);
  return seeded;
}

/**
 * Two runs an analyst (Li Wei) asked for in the first workspace, which dispatches at once, for the
 * reference page's retry and undo examples: a block of a private address, which the perimeter
 * firewall refuses (the run fails: there is something to retry), and a block of a public one, which
 * succeeds (the catalogue's unblock undoes it). Blocking is chosen because whether it works depends
 * on the address alone, which the incident names. Each on the newest SourceA incident with such an
 * address that no other demo run acts on (not the newest incident, whose run the incident examples
 * show). Seeding waits for them to end, so that the examples find a failed run to retry and a
 * succeeded one to undo.
 */
async function seedRunsToFollowUp(services: Uses<"config" | "events" | "now" | "playbookActions" | "sources" | "stores">, workspace: WorkspaceRecord): Promise<number> {
  const seed = services.config.demoSeed;
  const catalogue = await services.stores.playbookCatalogues.get(workspace.id);
  const block = catalogue?.playbooks.find((p) => p.referenceId === "block-ip");
  if (!catalogue || !block) return 0;
  // Incidents no demo run has acted on: each example run is then its incident's last.
  const incidents: VendorIncident[] = [];
  for (const incident of (await newestIncidents(services, workspace)).slice(1)) {
    if ((await services.stores.gamebookRuns.listForIncident(workspace.id, incident.id, incident.source, 1)).length === 0) incidents.push(incident);
  }
  const address = (isPrivate: boolean) => (i: VendorIncident) => i.entities.find((e) => e.kind === "Ip" && e.properties.isPrivate === isPrivate);
  const actor = analystActor(seed, services.now());
  let seeded = 0;
  const ids: string[] = [];
  for (const [name, pick] of [
    ["gamebook-run/example/to-retry", address(true)],
    ["gamebook-run/example/to-undo", address(false)],
  ] as const) {
    const incident = incidents.find((i) => pick(i) !== undefined);
    const entity: Entity | undefined = incident && pick(incident);
    if (!incident || !entity || !actor) continue;
    const runId = demoId(seed, name);
    ids.push(runId);
    try {
      await submitRun(
        { ...services, actor },
        {
          workspace,
          request: { incidentId: incident.id, incidentTitle: incident.title, source: incident.source, playbooks: [{ id: block.id, sequence: 1, entityId: entity.id, parameters: {} }], isQueued: false },
          tracingId: demoId(seed, `${name}/trace`),
          runId,
          incident,
          catalogue,
        },
      );
      seeded++;
    } catch (error) {
      if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
    }
  }
  await untilEnded(services, workspace.id, ids);
  return seeded;
}

/** Li Wei, the demo's analyst, acting in the portal. */
function analystActor(seed: string, now: Date): Actor | undefined {
  const li = buildDemoData(seed, now).users.find((u) => u.id === demoId(seed, "user/li"));
  return li && { origin: "portal", serviceAccountId: null, name: li.displayName, accountId: li.accountId, person: { userId: li.id, email: li.email } };
}

/** The executor runs in this process (the in-process queue): the runs end within moments; at most 30 s are waited. */
async function untilEnded(services: Uses<"stores">, workspaceId: string, runIds: readonly string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (const id of runIds) {
    while (Date.now() < deadline) {
      const run = await services.stores.gamebookRuns.get(workspaceId, id);
      if (!run || isFinal(run.value.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** The workspace's SourceA incidents of the last 30 days, newest first, at most 10. */
async function newestIncidents(services: Uses<"now" | "sources">, workspace: WorkspaceRecord): Promise<VendorIncident[]> {
  const now = services.now();
  const page = await services.sources.gateway("SourceA").listIncidents({
    workspaceId: workspace.id,
    field: "createdAt",
    from: new Date(now.getTime() - 30 * 24 * 3600_000).toISOString(),
    to: now.toISOString(),
    limit: 10,
  });
  return page.items;
}

/** The demo workspace whose own policy makes every run wait for approval (demo-gamebooks.ts). */
const AWAITING_APPROVAL_WORKSPACE = "northwind-sentinel-clinics";

/** Up to `count` runs on the workspace's newest SourceA incidents, each under the id `idOf` gives it. */
async function seedRuns(
  services: Uses<"config" | "events" | "now" | "playbookActions" | "sources" | "stores">,
  workspace: WorkspaceRecord,
  count: number,
  idOf: (n: number, incident: VendorIncident) => string,
): Promise<number> {
  let seeded = 0;
  const catalogue = await services.stores.playbookCatalogues.get(workspace.id);
  if (!catalogue) return 0;
  let n = 0;
  for (const incident of await newestIncidents(services, workspace)) {
    if (n >= count) break;
    const request = automaticRun(catalogue, incident);
    if (!request) continue;
    n += 1;
    const ctx = { ...services, actor: { ...serviceActor("portal", "Automation rule"), accountId: workspace.accountId } };
    try {
      await submitRun(ctx, {
        workspace,
        request,
        tracingId: demoId(services.config.demoSeed, `gamebook-run-trace/${workspace.id}/${incident.id}`),
        runId: idOf(n, incident),
        isAutoRun: true,
      });
      seeded++;
    } catch (error) {
      // Seeded on an earlier start (a durable store): nothing to do.
      if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
    }
  }
  return seeded;
}

/** The first catalogue gamebook whose playbooks all find an entity of the incident to act on. */
function automaticRun(catalogue: PlaybookCatalogueRecord, incident: VendorIncident): RunGamebookRequest | undefined {
  const playbooks = new Map(catalogue.playbooks.map((p) => [p.id, p]));
  for (const gamebook of catalogue.gamebooks) {
    const steps = [...gamebook.playbooks].sort((a, b) => a.sequence - b.sequence).map((step) => ({ step, playbook: playbooks.get(step.playbookId) }));
    if (steps.some(({ playbook }) => !playbook || playbook.action === "incident.close")) continue;
    const planned = steps.map(({ step, playbook }) => {
      if (playbook!.entityType === "Incident") {
        return { id: playbook!.id, sequence: step.sequence, entityId: incident.id, parameters: { message: `Automation rule ran "${gamebook.title}".` } };
      }
      const entity = incident.entities.find((e) => actsOn(playbook!, e));
      return entity && { id: playbook!.id, sequence: step.sequence, entityId: entity.id, parameters: {} };
    });
    if (planned.some((p) => p === undefined)) continue;
    return {
      incidentId: incident.id,
      incidentTitle: incident.title,
      source: incident.source,
      playbooks: planned as RunGamebookRequest["playbooks"],
      isQueued: false,
    };
  }
  return undefined;
}
