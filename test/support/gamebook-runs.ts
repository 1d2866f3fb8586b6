import { expect } from "vitest";
import { actsOn } from "../../shared/domain/gamebooks/playbook-catalogue";
import type { TestHost } from "./test-host";

export interface AccountRunOptions {
  /** The catalogue playbook to run, by the automation's name; default `revoke-sessions` (needs no administrator). */
  playbook?: string;
  /** Whether the run must wait for approval (the default) or be dispatched at once. */
  waits?: boolean;
}

/**
 * Submits a one-playbook run (by default: revoke the sessions of an account) on a new SourceA
 * incident that has an account, as the host's admin service account would: where the workspace's
 * policy asks for it, the run waits for approval. Returns the run's id.
 */
export async function submitAccountRun(host: TestHost, workspaceId: string, options: AccountRunOptions = {}): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", workspaceId, { title: "Impossible travel", severity: "High" });
    const catalogue = (await host.services.stores.playbookCatalogues.get(workspaceId))!;
    const playbook = catalogue.playbooks.find((p) => p.referenceId === (options.playbook ?? "revoke-sessions"))!;
    const entity = incident.entities.find((e) => actsOn(playbook, e));
    if (!entity) continue;
    const res = await host.call("POST", `/workspaces/${workspaceId}/gamebooks/run`, {
      body: { incidentId: incident.id, incidentTitle: incident.title, source: incident.source, playbooks: [{ id: playbook.id, sequence: 1, entityId: entity.id, parameters: {} }] },
    });
    const body = (await res.json()) as { data: { id: string; status: string; isQueued: boolean } };
    expect(body.data).toMatchObject({ status: "Pending", isQueued: options.waits ?? true });
    return body.data.id;
  }
  throw new Error("no incident with an account");
}
