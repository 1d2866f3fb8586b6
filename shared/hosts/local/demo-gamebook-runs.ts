import type { Uses } from "../../platform/operation-context";
import { isApiError } from "../../platform/errors/api-error";
import { actsOn } from "../../domain/gamebooks/playbook-catalogue";
import type { RunGamebookRequest } from "../../domain/gamebooks/run-request";
import { submitRun } from "../../domain/gamebooks/run-submission";
import { serviceActor } from "../../platform/operation-context";

import type { VendorIncident } from "../../systems/vendors/port";
import type { PlaybookCatalogueRecord } from "../../domain/gamebooks/playbook-catalogue-record";
import type { WorkspaceRecord } from "../../domain/organizations/workspace";
import { demoId } from "./demo-data";

/**
 * Real gamebook runs on the newest SourceA incidents of the first two demo workspaces (which need no
 * approval), submitted through the gamebook code as an automation rule would start them and carried
 * out by the executor, so that `last-gamebook`, `by-incident` and the history show something at
 * start. Their ids come from the seed: a restart on a durable store submits nothing twice. Gamebooks
 * that close the incident are not used, so seeding changes no incident's status.
 */
export async function seedDemoGamebookRuns(services: Uses<"config" | "events" | "now" | "playbookActions" | "sources" | "stores">, workspaces: readonly WorkspaceRecord[]): Promise<number> {
  let seeded = 0;
  // Two runs waiting for approval where the policy asks for it, so that the approval queue has
  // something to decide at start (and the reference page's approve and deny examples act on them).
  const waiting = workspaces.find((w) => w.name === AWAITING_APPROVAL_WORKSPACE);
  if (waiting) seeded += await seedRuns(services, waiting, 2, (n) => demoId(services.config.demoSeed, `gamebook-run/awaiting-approval/${n}`));
  for (const workspace of workspaces.slice(0, 2)) {
    seeded += await seedRuns(services, workspace, 3, (_, incident) => demoId(services.config.demoSeed, `gamebook-run/${workspace.id}/${incident.id}`));
  }
  return seeded;
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
  const now = services.now();
  const page = await services.sources.gateway("SourceA").listIncidents({
    workspaceId: workspace.id,
    field: "createdAt",
    from: new Date(now.getTime() - 30 * 24 * 3600_000).toISOString(),
    to: now.toISOString(),
    limit: 10,
  });
  let n = 0;
  for (const incident of page.items) {
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
