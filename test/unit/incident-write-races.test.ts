import { beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../shared/platform/config/config";
import { seedDemoData } from "../../shared/hosts/local/demo-data";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import { silentLogger } from "../../shared/platform/logger";
import { changeAssignee, changeStatus } from "../../shared/domain/incidents/incident-writes";
import { readIncident } from "../../shared/domain/gamebooks/incident-with-gamebooks";
import { stateIdOf } from "../../shared/domain/incidents/incident-state";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { Services } from "../../shared/domain/services";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import type { VendorIncident } from "../../shared/model/incidents/incident";

/**
 * Two people writing one incident at the same moment, on the operations every write goes through:
 * whoever names the version they act on (`If-Match`), or refuses a closed incident, never lands on
 * the other's change unseen; two closes are one closing.
 */

let services: Services;
let workspace: WorkspaceRecord;
let incident: VendorIncident;

beforeEach(async () => {
  ({ services } = createLocalServices(loadConfig({}), { logger: silentLogger }));
  const { data } = await seedDemoData(services);
  workspace = data.workspaces[0]!;
  incident = await openIncident();
});

async function openIncident(): Promise<VendorIncident> {
  const page = await services.sources.gateway("SourceA").listIncidents({
    workspaceId: workspace.id,
    field: "createdAt",
    from: "2000-01-01T00:00:00.000Z",
    to: new Date(Date.now() + 1e9).toISOString(),
    limit: 50,
  });
  return page.items.find((i) => i.status !== "Closed")!;
}

const as = (name: string) => ({ ...services, actor: { origin: "portal" as const, serviceAccountId: null, name, accountId: workspace.accountId } });
const outcomes = (results: PromiseSettledResult<void>[]) => results.map((r) => (r.status === "fulfilled" ? "ok" : (r.reason as { code?: string }).code)).sort();

async function closedEvents(): Promise<{ classification: string; by: string }[]> {
  const records = await services.stores.outbox.list(outboxScope.workspace(workspace.id), 100_000);
  return records
    .filter((r) => r.kind === "event" && r.message.envelope.type === "incident.closed.v1" && r.message.envelope.data.incidentId === incident.id)
    .map((r) => {
      const data = (r as unknown as { message: { envelope: { data: { classification: string; closedBy: { name: string } } } } }).message.envelope.data;
      return { classification: data.classification, by: data.closedBy.name };
    });
}

describe("two writes of one incident at once", () => {
  it("two assignments carrying the same If-Match: one lands, the other is 409 CONFLICT", async () => {
    const { etag } = await readIncident(services, workspace, "SourceA", incident.id);
    const target = { workspace, source: "SourceA" as const, incidentId: incident.id, ifMatch: etag };
    const results = await Promise.allSettled([
      changeAssignee(as("Li Wei"), target, { userId: null, email: "li.wei@contoso-mssp.example" }),
      changeAssignee(as("Jonas Becker"), target, { userId: null, email: "jonas.becker@contoso-mssp.example" }),
    ]);
    expect(outcomes(results)).toEqual(["CONFLICT", "ok"]);
    const winner = results[0]!.status === "fulfilled" ? "li.wei@contoso-mssp.example" : "jonas.becker@contoso-mssp.example";
    expect((await services.stores.incidents.get(workspace.id, stateIdOf("SourceA", incident.id)))!.value.assignee?.email).toBe(winner);
  });

  it("two closes refusing a closed incident: one closes it, the other is 409, and one incident.closed.v1 goes out", async () => {
    const target = { workspace, source: "SourceA" as const, incidentId: incident.id, refuseIfClosed: true };
    const results = await Promise.allSettled([
      changeStatus(as("Li Wei"), target, { status: "Closed", classification: "FalsePositive" }),
      changeStatus(as("Jonas Becker"), target, { status: "Closed", classification: "TruePositive" }),
    ]);
    expect(outcomes(results)).toEqual(["CONFLICT", "ok"]);
    expect(await closedEvents()).toHaveLength(1);
    expect((await services.stores.incidents.get(workspace.id, stateIdOf("SourceA", incident.id)))!.value.closeCount).toBe(1);
  });

  it("two closes naming no version: both are accepted, and they are one closing, one incident.closed.v1", async () => {
    const target = { workspace, source: "SourceA" as const, incidentId: incident.id };
    const results = await Promise.allSettled([
      changeStatus(as("Li Wei"), target, { status: "Closed", classification: "FalsePositive" }),
      changeStatus(as("Jonas Becker"), target, { status: "Closed", classification: "TruePositive" }),
    ]);
    expect(outcomes(results)).toEqual(["ok", "ok"]);
    expect(await closedEvents()).toHaveLength(1);
    const state = (await services.stores.incidents.get(workspace.id, stateIdOf("SourceA", incident.id)))!.value;
    expect([state.status, state.closeCount]).toEqual(["Closed", 1]);
  });
});
