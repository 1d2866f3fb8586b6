import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../shared/platform/config/config";
import { deliveryLogId } from "../../shared/platform/delivery/delivery-worker";
import { deterministicEventId } from "../../shared/platform/events/event-ids";
import * as gamebook from "../../shared/api/examples/gamebook-examples";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { demoId, seedDemoData, type DemoData } from "../../shared/hosts/local/demo-data";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { buildDemoGamebooks, seedDemoGamebooks } from "../../shared/hosts/local/demo-gamebooks";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import * as ex from "../../shared/platform/http/examples";
import type { Services } from "../../shared/domain/services";
import { EXAMPLE_LINKED, EXAMPLE_TICKET } from "../../shared/api/tickets/ticket-schemas";
import { incidentExample } from "../../shared/api/examples/incident-examples";
import * as content from "../../shared/api/portal/content/content-schemas";
import * as runs from "../../shared/api/portal/incidents/incident-run-schemas";
import { EXAMPLE_SOP_ID } from "../../shared/api/portal/sops/sop-schemas";
import { EXAMPLE_CHANGE_BOARD_WEBHOOK_ID, EXAMPLE_CHATOPS_WEBHOOK_ID, EXAMPLE_DATA_LAKE_WEBHOOK_ID, EXAMPLE_TICKET_RELAY_WEBHOOK_ID } from "../../shared/api/examples/webhook-examples";

/*
 * The example ids of the OpenAPI document are literals (endpoint groups do not import the local
 * host); each is derived again here from the demo organization of the default seed, as `npm start`
 * seeds it, so that none can drift from what "Try it out" meets.
 */

const SEED = "secops-demo";
let services: Services;
let demo: DemoData;

beforeAll(async () => {
  const config = loadConfig({
    SECRET_HASH_KEY: randomBytes(32).toString("base64"),
    PAGE_TOKEN_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
  });
  expect(config.demoSeed).toBe(SEED);
  ({ services } = createLocalServices(config, { logger: { debug() {}, info() {}, warn() {}, error() {} } as never }));
  ({ data: demo } = await seedDemoData(services));
  await seedDemoGamebooks(services, demo);
  await seedDemoAdministration(services, demo);
  await seedDemoGamebookRuns(services, demo.workspaces);
});

describe("the OpenAPI examples' ids are the default seed's demo data", () => {
  it("names the provider, its customer, their tenants and two workspaces", () => {
    expect(demo.provider).toMatchObject({ id: ex.EXAMPLE_PROVIDER_ACCOUNT_ID, name: ex.EXAMPLE_PROVIDER_ACCOUNT_NAME });
    const fabrikam = demo.customers.find((c) => c.id === ex.EXAMPLE_CUSTOMER_ACCOUNT_ID);
    expect(fabrikam?.name).toBe("Fabrikam Retail");
    const workspace = demo.workspaces.find((w) => w.id === ex.EXAMPLE_WORKSPACE_ID);
    expect(workspace).toMatchObject({ name: ex.EXAMPLE_WORKSPACE_NAME, accountId: fabrikam!.id, tenantId: ex.EXAMPLE_CUSTOMER_TENANT_ID });
    expect(demo.workspaces.find((w) => w.id === ex.EXAMPLE_SECOND_WORKSPACE_ID)?.tenantId).toBe(ex.EXAMPLE_PROVIDER_TENANT_ID);
    const northwind = demo.customers.find((c) => c.id === ex.EXAMPLE_SECOND_CUSTOMER_ACCOUNT_ID);
    expect(northwind?.name).toBe("Northwind Health");
    expect(demo.workspaces.find((w) => w.id === ex.EXAMPLE_SECOND_CUSTOMER_WORKSPACE_ID)).toMatchObject({ name: "northwind-sentinel-prod", accountId: northwind!.id });
  });

  it("names users of the demo organization, the leaving analyst included", async () => {
    for (const user of [ex.EXAMPLE_USER, ex.EXAMPLE_ANALYST, ex.EXAMPLE_LEAVING_USER]) {
      const found = await services.stores.users.find([demo.provider.id], user.id);
      expect(found?.value, user.displayName).toMatchObject({ displayName: user.displayName, email: user.email });
    }
    expect(ex.EXAMPLE_LEAVING_USER.id).toBe(demoId(SEED, "user/noah"));
  });

  it("names the SOAR connector, its credential and the retired export's service account", async () => {
    expect(ex.EXAMPLE_SERVICE_ACCOUNT_ID).toBe(demoId(SEED, "service-account/soar-connector"));
    expect(ex.EXAMPLE_RETIRED_SERVICE_ACCOUNT_ID).toBe(demoId(SEED, "service-account/legacy-siem-export"));
    const soar = await services.stores.serviceAccounts.get(ex.EXAMPLE_SERVICE_ACCOUNT_ID);
    expect(soar?.value.credentials.map((c) => [c.id, c.status])).toEqual([[ex.EXAMPLE_CREDENTIAL_ID, "Active"]]);
    expect((await services.stores.serviceAccounts.get(ex.EXAMPLE_RETIRED_SERVICE_ACCOUNT_ID))?.value.isPlatformManaged).toBe(false);
    // The portal's examples deactivate, revoke and delete the vulnerability scanner's, not the contract's.
    expect(ex.EXAMPLE_SCANNER_SERVICE_ACCOUNT_ID).toBe(demoId(SEED, "service-account/vulnerability-scanner"));
    const scanner = await services.stores.serviceAccounts.get(ex.EXAMPLE_SCANNER_SERVICE_ACCOUNT_ID);
    expect(scanner?.value.credentials.map((c) => [c.id, c.status])).toEqual([[ex.EXAMPLE_SCANNER_CREDENTIAL_ID, "Active"]]);
  });

  it("names Fabrikam's retired workspace, every source off, for the offboarding example", async () => {
    expect(ex.EXAMPLE_RETIRED_WORKSPACE_ID).toBe(demoId(SEED, "workspace/fabrikam-sentinel-legacy"));
    const retired = await services.stores.workspaces.get(ex.EXAMPLE_RETIRED_WORKSPACE_ID);
    expect(retired).toMatchObject({ name: "fabrikam-sentinel-legacy", accountId: ex.EXAMPLE_CUSTOMER_ACCOUNT_ID, tenantId: ex.EXAMPLE_CUSTOMER_TENANT_ID });
    expect(Object.values(retired!.sources ?? {}).every((s) => !s.enabled)).toBe(true);
    expect(ex.EXAMPLE_OFFBOARDED_WORKSPACE_ID).toBe(demoId(SEED, "workspace/fabrikam-sentinel-2019"));
    expect(await services.stores.workspaces.get(ex.EXAMPLE_OFFBOARDED_WORKSPACE_ID)).toBeUndefined();
    const [offboarded] = await services.stores.workspaces.listOffboarded([ex.EXAMPLE_CUSTOMER_ACCOUNT_ID]);
    expect(offboarded).toMatchObject({ id: ex.EXAMPLE_OFFBOARDED_WORKSPACE_ID, offboarded: { byUserId: ex.EXAMPLE_USER.id } });
    expect((await services.stores.audit.listWorkspaceTrail(ex.EXAMPLE_OFFBOARDED_WORKSPACE_ID, 0, 10)).map((e) => e.event.activityType)).toEqual(["WorkspaceOffboarded"]);
  });

  it("names a webhook in each state the state examples need, and its failed delivery", async () => {
    const status = async (id: string) => (await services.stores.webhooks.get(id))?.value.status;
    expect(await status(ex.EXAMPLE_WEBHOOK_ID)).toBe("Active");
    expect(await status(ex.EXAMPLE_PAUSED_WEBHOOK_ID)).toBe("Paused");
    expect(await status(ex.EXAMPLE_DISABLED_WEBHOOK_ID)).toBe("Disabled");
    expect(await status(ex.EXAMPLE_RETIRED_WEBHOOK_ID)).toBe("Active");
    // The portal's delete example has a retired webhook of its own: the contract's deletes the other.
    expect(EXAMPLE_TICKET_RELAY_WEBHOOK_ID).toBe(demoId(SEED, "webhook/legacy-ticket-relay"));
    expect(await status(EXAMPLE_TICKET_RELAY_WEBHOOK_ID)).toBe("Active");
    const entry = await services.stores.deliveryLogs.get(ex.EXAMPLE_WEBHOOK_ID, ex.EXAMPLE_FAILED_DELIVERY_LOG_ID, ex.EXAMPLE_FAILED_DELIVERY_CREATED_AT);
    expect(entry).toMatchObject({ status: "Failed", eventType: "incident.created.v1", incident: { workspaceId: ex.EXAMPLE_WORKSPACE_ID, source: "SourceA", incidentId: ex.EXAMPLE_INCIDENT.id } });
    const eventId = deterministicEventId("incident.created.v1", `${ex.EXAMPLE_WORKSPACE_ID}/SourceA/${ex.EXAMPLE_INCIDENT.id}`);
    expect(deliveryLogId({ eventId, webhookId: ex.EXAMPLE_WEBHOOK_ID, attempt: 10 })).toBe(ex.EXAMPLE_FAILED_DELIVERY_LOG_ID);
  });

  it("names a demo webhook in each state the portal's state examples need, with a week of deliveries", async () => {
    const status = async (id: string) => (await services.stores.webhooks.get(id))?.value.status;
    expect(EXAMPLE_DATA_LAKE_WEBHOOK_ID).toBe(demoId(SEED, "webhook/data-lake-export"));
    expect(await status(EXAMPLE_DATA_LAKE_WEBHOOK_ID)).toBe("Active");
    expect(await status(EXAMPLE_CHANGE_BOARD_WEBHOOK_ID)).toBe("Paused");
    expect(await status(EXAMPLE_CHATOPS_WEBHOOK_ID)).toBe("Disabled");
    const now = services.now();
    const week = { from: new Date(now.getTime() - 7 * 86_400_000).toISOString(), to: new Date(now.getTime() + 1).toISOString(), notBefore: new Date(0).toISOString() };
    const intake = (await services.stores.deliveryLogs.outcomes(ex.EXAMPLE_WEBHOOK_ID, week, 1000)).items;
    expect(intake.filter((e) => e.status === "Failed").length).toBeGreaterThan(5);
    expect(intake.filter((e) => e.status === "Succeeded").length).toBeGreaterThan(50);
    expect((await services.stores.deliveryLogs.outcomes(EXAMPLE_CHANGE_BOARD_WEBHOOK_ID, week, 1000)).items.some((e) => e.status === "Pending")).toBe(true);
  });

  it("names the workspace's newest SourceA incident, a demo run on it and a comment an integration wrote", async () => {
    const gateway = services.sources.gateway("SourceA");
    const incident = await gateway.getIncident(ex.EXAMPLE_WORKSPACE_ID, ex.EXAMPLE_INCIDENT.id);
    expect({ source: incident.source, id: incident.id, number: incident.number, title: incident.title }).toEqual(ex.EXAMPLE_INCIDENT);
    const run = await services.stores.gamebookRuns.latestForIncident(ex.EXAMPLE_WORKSPACE_ID, "SourceA", ex.EXAMPLE_INCIDENT.id);
    expect(run?.id).toBe(ex.EXAMPLE_GAMEBOOK_RUN_ID);
    const comments = await gateway.listComments(ex.EXAMPLE_WORKSPACE_ID, ex.EXAMPLE_INTEGRATION_COMMENT.incidentId);
    expect(comments.find((c) => c.id === ex.EXAMPLE_INTEGRATION_COMMENT.commentId)?.extensionId).toBe(ex.EXAMPLE_INTEGRATION_COMMENT.extensionId);
  });

  it("names the gamebook run example's incident, entity and catalogue playbooks", async () => {
    const incident = await services.sources.gateway("SourceA").getIncident(gamebook.EXAMPLE_WORKSPACE_ID, gamebook.EXAMPLE_INCIDENT_ID);
    expect(incident.title).toBe(gamebook.EXAMPLE_INCIDENT_TITLE);
    const entityIds = incident.entities.map((e) => e.id);
    const catalogue = buildDemoGamebooks(SEED, demo).playbooks.filter((p) => p.workspaceId === gamebook.EXAMPLE_WORKSPACE_ID);
    for (const step of gamebook.runRequestExample.playbooks) {
      expect(catalogue.some((p) => p.id === step.id), step.id).toBe(true);
      expect([...entityIds, incident.id]).toContain(step.entityId);
    }
    expect(catalogue.find((p) => p.id === gamebook.playbookRuleExample.playbookId)?.name).toBe(gamebook.playbookRuleExample.playbookName);
  });

  it("names the demo runs the portal's run examples act on: one failed, one succeeded with an undo playbook, one waiting; and the incident's host", async () => {
    const run = async (workspaceId: string, id: string) => (await services.stores.gamebookRuns.get(workspaceId, id))?.value;
    expect(gamebook.EXAMPLE_RUN_TO_RETRY_ID).toBe(demoId(SEED, "gamebook-run/example/to-retry"));
    expect((await run(ex.EXAMPLE_WORKSPACE_ID, gamebook.EXAMPLE_RUN_TO_RETRY_ID))?.status).toBe("Failed");
    const toUndo = await run(ex.EXAMPLE_WORKSPACE_ID, gamebook.EXAMPLE_RUN_TO_UNDO_ID);
    expect([toUndo?.status, toUndo?.playbooks[0]?.actionName]).toEqual(["Succeeded", "block-ip"]);
    expect(gamebook.EXAMPLE_RUN_TO_CANCEL_ID).toBe(demoId(SEED, "gamebook-run/awaiting-approval/3"));
    expect(await run(gamebook.EXAMPLE_APPROVAL_WORKSPACE_ID, gamebook.EXAMPLE_RUN_TO_CANCEL_ID)).toMatchObject({ status: "Pending", isQueued: true });
    const catalogue = buildDemoGamebooks(SEED, demo).playbooks.filter((p) => p.workspaceId === ex.EXAMPLE_WORKSPACE_ID);
    const references = Object.values(runs.EXAMPLE_RUN_PLAYBOOKS).map((id) => catalogue.find((p) => p.id === id)?.referenceId);
    expect(references).toEqual(["collect-package", "add-comment", "isolate-host", "release-host"]);
    const incident = await services.sources.gateway("SourceA").getIncident(ex.EXAMPLE_WORKSPACE_ID, ex.EXAMPLE_INCIDENT.id);
    expect(incident.entities.find((e) => e.id === runs.EXAMPLE_HOST_ENTITY)?.kind).toBe("Host");
  });

  it("names a ticket of the workspace's ITSM", async () => {
    const [ticket] = await services.ticketing.searchTickets({ workspaceId: ex.EXAMPLE_WORKSPACE_ID, ticketNumber: EXAMPLE_TICKET.ticketNumber, limit: 1 });
    expect(ticket).toMatchObject({ ticketId: EXAMPLE_TICKET.ticketId, ticketNumber: EXAMPLE_TICKET.ticketNumber, groupingIds: [EXAMPLE_TICKET.groupingId] });
  });

  it("names the demo's link of the gamebook run example's incident to another ticket of the desk", async () => {
    const link = await services.stores.ticketLinks.get(ex.EXAMPLE_WORKSPACE_ID, EXAMPLE_LINKED.id);
    expect(link?.value).toMatchObject({ source: EXAMPLE_LINKED.source, incidentId: EXAMPLE_LINKED.incidentId, ticketId: EXAMPLE_LINKED.ticketId, ticketNumber: EXAMPLE_LINKED.ticketNumber });
    expect(EXAMPLE_LINKED.incidentId).toBe(gamebook.EXAMPLE_INCIDENT_ID);
    expect(EXAMPLE_LINKED.ticketNumber).not.toBe(EXAMPLE_TICKET.ticketNumber);
  });

  it("names the catalogue playbook the incident example recommends", () => {
    const catalogue = buildDemoGamebooks(SEED, demo).playbooks.filter((p) => p.workspaceId === ex.EXAMPLE_WORKSPACE_ID);
    for (const r of incidentExample.gamebookCatalog.recommended) expect(catalogue.find((p) => p.id === r.id)).toMatchObject({ referenceId: r.referenceId, name: r.name, entityType: r.entityType });
  });

  it("names catalogue playbooks of the workspace for the portal's content examples, and a new one for the add and delete examples", () => {
    const catalogue = buildDemoGamebooks(SEED, demo).playbooks.filter((p) => p.workspaceId === ex.EXAMPLE_WORKSPACE_ID);
    expect(Object.entries(content.EXAMPLE_PLAYBOOKS).map(([, id]) => catalogue.find((p) => p.id === id)?.referenceId)).toEqual(["revoke-sessions", "reset-password", "notify-owner"]);
    expect(catalogue.some((p) => p.id === content.EXAMPLE_NEW_PLAYBOOK_ID)).toBe(false);
  });

  it("names the workspace's demo SOP document, its bytes in the document store", async () => {
    expect(EXAMPLE_SOP_ID).toBe(demoId(SEED, "sop/fabrikam-sentinel-prod/phishing-triage"));
    const record = await services.stores.sops.get(ex.EXAMPLE_WORKSPACE_ID, EXAMPLE_SOP_ID);
    expect(record?.value).toMatchObject({ fileName: "phishing-triage.md", contentType: "text/markdown; charset=utf-8" });
    const stored = await services.documents.get(ex.EXAMPLE_WORKSPACE_ID, EXAMPLE_SOP_ID);
    expect(createHash("sha256").update(stored!.bytes).digest("hex")).toBe(record!.value.sha256);
  });
});
