import type { Uses } from "../../domain/operation-context";
import { generateSecret, hashSecret } from "../../platform/auth/secrets";
import { deliveryLogEntry } from "../../platform/delivery/delivery-worker";
import { generateSigningSecret } from "../../platform/delivery/signer";
import { isApiError } from "../../platform/errors/api-error";
import { deterministicEventId } from "../../platform/events/event-ids";
import { subscribableEventTypes } from "../../model/events/event-types";
import { incidentSubject } from "../../domain/incidents/incident-events";
import { EXAMPLE_FAILED_DELIVERY_CREATED_AT } from "../../platform/http/examples";

import { sources, type Source } from "../../model/sources";
import type { AuditEventRecord } from "../../model/audit/audit-event";
import { auditTrailOf } from "../../platform/store/audit-trail";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { ServiceAccountRecord } from "../../model/organizations/service-account";
import type { UserRecord } from "../../model/organizations/user";
import type { WebhookRecord, WebhookStatus } from "../../model/webhooks/webhook";
import type { TicketLinkRecord } from "../../model/tickets/ticket-link";
import { EXAMPLE_LINKED } from "../../api/tickets/ticket-schemas";
import { ticketLinkId } from "../../domain/tickets/ticket-links";
import { demoId, type DemoData } from "./demo-data";
import { seedDemoSops } from "./demo-sops";
import { seedDemoWebhookHealth } from "./demo-webhook-health";
import { seedUnlessVendorsFail } from "./vendor-seeding";

/**
 * The demo organization's administration, beyond its people and workspaces: the service accounts of
 * its integrations (the portal's examples act on the vulnerability scanner's), its webhooks (one in
 * each state) with a delivery history, and an analyst who is leaving. They give the reference page's
 * examples something real to act on, deletions included: each is written only when missing, so a
 * restart brings back what an example deleted.
 */
export async function seedDemoAdministration(services: Uses<"config" | "documents" | "logger" | "now" | "secretBox" | "sources" | "stores" | "ticketing">, demo: DemoData): Promise<void> {
  const id = (name: string) => demoId(services.config.demoSeed, name);
  const now = services.now();
  const stamp = now.toISOString();
  const [fabrikamProd, fabrikamStores] = demo.workspaces;
  const provider = demo.provider;
  await seedDemoSops(services, demo);

  const serviceAccount = (key: string, fields: Pick<ServiceAccountRecord, "name" | "description" | "organizationalRole" | "workspaceAssignments">, scopes: string[]): ServiceAccountRecord => {
    const { secret, prefix } = generateSecret();
    return {
      id: id(`service-account/${key}`),
      accountId: provider.id,
      ...fields,
      isActive: true,
      isPlatformManaged: false,
      credentials: [
        {
          // Its secret is nobody's: the integration's real one would be in its own vault.
          id: id(`credential/${key}/1`),
          secretHash: hashSecret(services.config.secretHashKey, secret),
          clientSecretPrefix: prefix,
          status: "Active",
          expirationDate: new Date(now.getTime() + 365 * 86_400_000).toISOString(),
          lastUsedAt: null,
          createdAt: stamp,
          revokedAt: null,
          scopes,
        },
      ],
      lastUsedAt: null,
      createdAt: stamp,
      lastModifiedAt: stamp,
    };
  };
  const assignments = [fabrikamProd, fabrikamStores].filter((w) => w !== undefined).map((w) => ({ workspaceId: w.id, role: "Analyst" as const }));
  for (const record of [
    serviceAccount(
      "soar-connector",
      { name: "SOAR connector", description: "Runs containment gamebooks from the SOAR platform.", organizationalRole: "Member", workspaceAssignments: assignments },
      ["incidents:read", "incidents:write", "incidents:comments", "gamebooks:read", "gamebooks:execute"],
    ),
    serviceAccount(
      "legacy-siem-export",
      { name: "Legacy SIEM export", description: "Nightly incident export to the old SIEM; replaced by webhooks.", organizationalRole: "Member", workspaceAssignments: assignments },
      ["incidents:read"],
    ),
    serviceAccount(
      "vulnerability-scanner",
      { name: "Vulnerability scanner", description: "Posts scan findings as incident comments; being replaced.", organizationalRole: "Member", workspaceAssignments: assignments },
      ["incidents:read", "incidents:comments"],
    ),
  ]) {
    if (!(await services.stores.serviceAccounts.get(record.id))) await createOnce(() => services.stores.serviceAccounts.create(record));
  }

  const leaving: UserRecord = {
    id: id("user/noah"),
    accountId: provider.id,
    displayName: "Noah Fischer",
    email: "noah.fischer@contoso-mssp.example",
    tenantId: id(`tenant/${provider.id}`),
    organizationalRole: "Member",
    isActive: true,
    createdAt: stamp,
    lastModifiedAt: stamp,
  };
  if (!(await services.stores.users.find([provider.id], leaving.id))) await createOnce(() => services.stores.users.create(leaving));

  const webhook = (key: string, name: string, url: string, status: WebhookStatus, eventTypes: string[]): WebhookRecord => ({
    id: id(`webhook/${key}`),
    targetAccountId: provider.id,
    targetAccountName: provider.name,
    serviceProviderId: provider.id,
    workspaceId: null,
    name,
    url,
    status,
    eventTypes,
    monitoredAccountIds: [],
    authenticationType: "Bearer",
    sealedToken: services.secretBox.seal(`demo-${key}-token`),
    signingKeys: [{ sealed: services.secretBox.seal(generateSigningSecret()), createdAt: stamp, retiresAt: null }],
    disableReason: status === "Disabled" ? "5 incidents failed delivery within 24 hours." : null,
    disabledAt: status === "Disabled" ? stamp : null,
    finalFailures: [],
    createdAt: stamp,
    lastModifiedAt: stamp,
  });
  const intake = webhook("soar-intake", "SOAR incident intake", "https://soar.contoso-mssp.example/hooks/secops", "Active", ["incident.created.v1", "incident.closed.v1"]);
  for (const record of [
    intake,
    webhook("northwind-itsm", "Northwind ITSM bridge", "https://itsm.northwind.example/api/secops-events", "Paused", ["incident.created.v1", "incident.closed.v1"]),
    webhook("fabrikam-pager", "Fabrikam on-call pager", "https://pager.fabrikam.example/v1/alerts", "Disabled", ["incident.created.v1"]),
    webhook("legacy-siem", "Legacy SIEM forwarder", "https://siem-old.contoso-mssp.example/ingest", "Active", ["incident.created.v1"]),
    webhook("legacy-ticket-relay", "Legacy ticketing relay", "https://relay-old.contoso-mssp.example/tickets", "Active", ["incident.created.v1"]),
  ]) {
    const stored = await services.stores.webhooks.get(record.id);
    if (!stored) await createOnce(() => services.stores.webhooks.create(record));
    // A demo webhook stored with an event type no webhook can subscribe to (earlier demos had one) gets the demo's types.
    else if (stored.value.eventTypes.some((t) => !(subscribableEventTypes as readonly string[]).includes(t))) {
      await createOnce(() => services.stores.webhooks.replace({ ...stored.value, eventTypes: record.eventTypes }, stored.etag));
    }
  }
  if (fabrikamProd) await seedUnlessVendorsFail(services, "the SOAR intake's delivery history", () => seedDeliveryHistory(services, intake, fabrikamProd.id));
  await seedUnlessVendorsFail(services, "the webhooks' week of deliveries", () => seedDemoWebhookHealth(services, demo));
  if (fabrikamProd) await seedUnlessVendorsFail(services, "an incident linked to a ticket", () => seedTicketLink(services, fabrikamProd.id, id("service-account/soar-connector")));

  // Fabrikam's retired workspace, every source already off (nothing polls it): what the offboarding
  // example offboards. Onboarded again at every start, so the example always has it to act on.
  if (fabrikamProd) {
    const retired: WorkspaceRecord = {
      id: id("workspace/fabrikam-sentinel-legacy"),
      name: "fabrikam-sentinel-legacy",
      tenantId: fabrikamProd.tenantId,
      accountId: fabrikamProd.accountId,
      sources: Object.fromEntries(sources.map((source) => [source, { enabled: false }])),
      createdAt: stamp,
      lastModifiedAt: stamp,
    };
    const existing = await services.stores.workspaces.read(retired.id);
    if (!existing) await createOnce(() => services.stores.workspaces.create(retired));
    else if (existing.value.offboarded) await createOnce(() => services.stores.workspaces.replace(retired, existing.etag));

    // And one offboarded long ago by the provider's administrator, whose audit trail stays exportable.
    const admin = demo.users.find((u) => u.accountId === provider.id && u.organizationalRole === "Admin");
    const offboardedAt = new Date(now.getTime() - 90 * 86_400_000).toISOString();
    const gone: WorkspaceRecord = {
      ...retired,
      id: id("workspace/fabrikam-sentinel-2019"),
      name: "fabrikam-sentinel-2019",
      offboarded: { at: offboardedAt, byUserId: admin?.id ?? provider.id, byName: admin?.displayName ?? provider.name },
    };
    if (!(await services.stores.workspaces.read(gone.id))) {
      await createOnce(() => services.stores.workspaces.create(gone));
      const offboarding: AuditEventRecord = {
        id: id(`audit/offboarded/${gone.id}`),
        accountId: gone.accountId,
        timeGenerated: offboardedAt,
        workspaceId: gone.id,
        discriminator: "Workspace",
        activityType: "WorkspaceOffboarded",
        activityAction: "Delete",
        actorId: gone.offboarded!.byUserId,
        actorName: gone.offboarded!.byName,
        actorEmail: admin?.email ?? "",
        targetResourceType: "Workspace",
        targetResourceId: gone.id,
        targetResourceName: gone.name,
        metadata: JSON.stringify({ runsDenied: 0, runsCancelled: 0 }),
      };
      // As the relay does: stored, then given its place in the trail.
      await services.stores.audit.append(offboarding);
      await services.stores.audit.sequence([auditTrailOf(offboarding)]);
    }
  }
}

/**
 * Two deliveries to the intake webhook: one new incident delivered, and one whose every attempt met
 * a 503 (the failed entry the delivery-log examples read and redeliver). Logged at
 * EXAMPLE_FAILED_DELIVERY_CREATED_AT: entries expire, so they are written on every start.
 */
async function seedDeliveryHistory(services: Uses<"config" | "now" | "sources" | "stores">, webhook: WebhookRecord, workspaceId: string): Promise<void> {
  const page = await services.sources.gateway("SourceA").listIncidents({
    workspaceId,
    field: "createdAt",
    from: new Date(services.now().getTime() - 30 * 86_400_000).toISOString(),
    to: services.now().toISOString(),
    limit: 2,
  });
  const [failed, delivered] = page.items;
  const ttl = services.config.webhooks.deliveryLogTtlDays * 86_400;
  const entry = (incident: { workspaceId: string; source: Source; id: string; createdAt: string }, attempt: number, at: Date, outcome: "Succeeded" | "Failed") => {
    const eventId = deterministicEventId("incident.created.v1", incidentSubject(incident));
    const message = {
      webhookId: webhook.id,
      eventId,
      eventType: "incident.created.v1",
      occurredAt: incident.createdAt,
      body: "",
      attempt,
      firstAttemptAt: at.toISOString(),
      incident: { workspaceId: incident.workspaceId, source: incident.source, incidentId: incident.id },
      isTest: false,
      redelivered: false,
    };
    const headers = { "Content-Type": "application/json", "User-Agent": "SecOps-Webhooks/2", "X-Svc-Event-Id": eventId, "X-Svc-Event-Type": "incident.created.v1" };
    return deliveryLogEntry(
      message,
      webhook,
      {
        status: outcome,
        createdAt: at,
        outcome: { kind: "response", status: outcome === "Succeeded" ? 200 : 503, headers: {}, durationMs: outcome === "Succeeded" ? 184 : 2_013, snippet: "", responseBytesRead: 0, truncated: false },
        headers,
        error: outcome === "Succeeded" ? null : "HTTP 503; retries exhausted, dead-lettered",
      },
      ttl,
    );
  };
  const at = new Date(EXAMPLE_FAILED_DELIVERY_CREATED_AT);
  if (failed) await services.stores.deliveryLogs.put(entry(failed, 10, at, "Failed"));
  if (delivered) await services.stores.deliveryLogs.put(entry(delivered, 1, new Date(at.getTime() - 3_600_000), "Succeeded"));
}

/** Another instance may have written it first. */
/**
 * The SOAR connector's link of the gamebook run example's incident to a ticket of the workspace's
 * desk (EXAMPLE_LINKED), which the link read example reads. Written when both exist and the link is
 * missing, so an unlink is undone by a restart.
 */
async function seedTicketLink(services: Uses<"now" | "sources" | "stores" | "ticketing">, workspaceId: string, serviceAccountId: string): Promise<void> {
  const incident = await services.sources
    .gateway(EXAMPLE_LINKED.source)
    .getIncident(workspaceId, EXAMPLE_LINKED.incidentId)
    .catch((error: unknown) => (isApiError(error) && error.code === "NOT_FOUND" ? undefined : Promise.reject(error)));
  const [ticket] = await services.ticketing.searchTickets({ workspaceId, ticketNumber: EXAMPLE_LINKED.ticketNumber, limit: 1 });
  if (!incident || !ticket) return;
  const link: TicketLinkRecord = {
    id: ticketLinkId(workspaceId, { source: incident.source, incidentId: incident.id, system: ticket.system, ticketId: ticket.ticketId }),
    docType: "ticketLink",
    workspaceId,
    source: incident.source,
    incidentId: incident.id,
    system: ticket.system,
    ticketId: ticket.ticketId,
    ticketNumber: ticket.ticketNumber,
    url: ticket.url,
    linkedAt: services.now().toISOString(),
    linkedBy: { serviceAccountId, userId: null, name: "SOAR connector" },
  };
  if (!(await services.stores.ticketLinks.get(workspaceId, link.id))) await createOnce(() => services.stores.ticketLinks.create(link));
}

async function createOnce(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if (!(isApiError(error) && error.code === "CONFLICT")) throw error;
  }
}
