import { randomUUID } from "node:crypto";
import { z } from "zod";
import { auditRecord } from "../../platform/events/audit-record";
import { firstAttempt, outgoingDelivery } from "../../platform/delivery/delivery-message";
import { ApiError, isApiError, notFound } from "../../platform/errors/api-error";
import { issuePageToken, pageQueryFields, readPageToken } from "../../platform/http/paging";
import { organizationRoute, type RequestContext } from "../../platform/http/route";
import { incidentCreatedData } from "../../domain/incidents/incident-events";
import { findWorkspace, loadIncident } from "../../domain/incidents/incident-access";
import { outboxScope } from "../../platform/store/outbox-scope";
import { toIncidentSummary } from "../../domain/incidents/incident-view";
import type { DeliveryLogRecord } from "../../domain/webhooks/delivery-log";
import type { EventEnvelope } from "../../platform/events/event-message";
import type { WebhookRecord } from "../../domain/webhooks/webhook";
import { EXAMPLE_FAILED_DELIVERY_CREATED_AT, EXAMPLE_FAILED_DELIVERY_LOG_ID, EXAMPLE_WEBHOOK_ID } from "../../domain/examples/examples";
import { visibleWebhook } from "./webhook-access";
import { deliveryLogEntryExample, deliveryLogExample } from "./webhook-examples";

const tag = "Webhooks";
const timestamp = z.iso.datetime({ offset: true });

export const deliveryLogView = z.object({
  id: z.string(),
  webhookConfigurationId: z.guid(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(["Pending", "Succeeded", "Failed"]),
  httpStatusCode: z.number().int().describe("0 when no HTTP response was received; see `error`."),
  success: z.boolean(),
  requestUrl: z.string(),
  requestHeaders: z.record(z.string(), z.string()).describe("As sent; credentials and signatures redacted."),
  requestBody: z.string().describe("Always empty: the entry is delivery metadata, not a copy of the event."),
  responseBody: z.string().describe("Always empty."),
  eventPayload: z.record(z.string(), z.unknown()).nullable().describe("List: always null. One entry: the incident as it stands now, or null when it no longer exists."),
  durationMs: z.number().int(),
  createdAt: z.string(),
  redelivered: z.boolean(),
  attempt: z.number().int(),
  isTest: z.boolean(),
  error: z.string().nullable(),
});

const listQuery = z
  .object({
    from: timestamp.optional().describe("Oldest createdAt; default: the start of the retention period."),
    to: timestamp.optional().describe("Entries created before this; default: now."),
    ...pageQueryFields,
  })
  .strict()
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { path: ["to"], message: "Must be after from." });

/** Where a page of entries stops: the last entry's time and id (newest first). */
const logCursor = z.object({ createdAt: z.iso.datetime(), id: z.string().min(1) }).strict();

const entryParams = z.object({
  id: z.guid().describe("The webhook's id.").meta({ examples: [EXAMPLE_WEBHOOK_ID] }),
  logId: z.guid().describe("The entry's id, as listed.").meta({ examples: [EXAMPLE_FAILED_DELIVERY_LOG_ID] }),
});
const entryQuery = z
  .object({ createdAt: timestamp.describe("The entry's createdAt, as listed: it locates the entry.").meta({ examples: [EXAMPLE_FAILED_DELIVERY_CREATED_AT] }) })
  .strict();

/** Delivery-log endpoints of the webhook group (contract 4.3). */
export const deliveryLogRoutes = [
  organizationRoute({
    method: "GET",
    path: "/webhooks/{id}/delivery-logs",
    summary: "A webhook's delivery attempts, newest first",
    tag,
    auth: "webhooks:read",
    params: z.object({ id: z.guid().describe("The webhook's id.").meta({ examples: [EXAMPLE_WEBHOOK_ID] }) }),
    query: listQuery,
    response: z.array(deliveryLogView).meta({ examples: [[deliveryLogExample]] }),
    paginated: true,
    async handler(input) {
      const { query } = input;
      const webhook = (await visibleWebhook(input, input.params.id)).value;
      const now = input.now();
      const notBefore = new Date(now.getTime() - input.config.webhooks.deliveryLogTtlDays * 86_400_000).toISOString();
      // Nothing is logged in the future: a later `to` is now, so a listing never walks days that cannot hold entries.
      const latest = new Date(now.getTime() + 1).toISOString();
      const to = iso(query.to);
      const range = { from: iso(query.from) ?? notBefore, to: to === undefined || to > latest ? latest : to, notBefore };
      const listing = `delivery-logs:${webhook.id}:${query.from ?? ""}:${query.to ?? ""}`;
      const cursor = query.continuationToken === undefined ? undefined : readPageToken(input, query.continuationToken, listing, logCursor, "continuationToken");
      const page = await input.stores.deliveryLogs.list(webhook.id, range, query.pageSize, cursor);
      return {
        data: page.items.map((e) => toLogView(e, null)),
        pagination: page.next ? { hasMore: true, continuationToken: issuePageToken(input, listing, page.next) } : { hasMore: false },
      };
    },
  }),
  organizationRoute({
    method: "GET",
    path: "/webhooks/{id}/delivery-logs/{logId}",
    summary: "One delivery attempt, with the incident as it stands now",
    tag,
    auth: "webhooks:read",
    problems: ["EXTENSION_NOT_ENABLED"],
    params: entryParams,
    query: entryQuery,
    response: deliveryLogView.meta({ examples: [deliveryLogEntryExample] }),
    async handler(input) {
      const webhook = (await visibleWebhook(input, input.params.id)).value;
      const entry = await findEntry(input, webhook, input.params.logId, input.query.createdAt);
      return { data: toLogView(entry, await liveIncident(input, entry)) };
    },
  }),
  organizationRoute({
    method: "POST",
    path: "/webhooks/{id}/delivery-logs/{logId}/redeliver",
    summary: "Deliver a failed incident.created.v1 again, rebuilt from the current incident, same event id",
    tag,
    auth: "webhooks:manage",
    params: entryParams,
    query: entryQuery,
    successStatus: 202,
    problems: ["CONFLICT", "EXTENSION_NOT_ENABLED", { code: "VALIDATION_ERROR", status: 422 }],
    response: z.object({ eventId: z.string(), status: z.literal("Pending") }).meta({ examples: [{ eventId: deliveryLogExample.eventId, status: "Pending" }] }),
    async handler(input) {
      const webhook = (await visibleWebhook(input, input.params.id)).value;
      const entry = await findEntry(input, webhook, input.params.logId, input.query.createdAt);
      if (entry.status !== "Failed") {
        throw new ApiError("CONFLICT", `Only a Failed delivery can be redelivered; this one is ${entry.status}.`, { target: "logId" });
      }
      if (entry.eventType !== "incident.created.v1" || !entry.incident) {
        throw new ApiError("VALIDATION_ERROR", `Only incident.created.v1 deliveries can be redelivered, not ${entry.eventType}.`, {
          status: 422,
          target: "logId",
          errors: { "": [`${entry.eventType} cannot be redelivered.`] },
        });
      }
      const envelope = await rebuildCreated(input, entry);
      await input.events.deliveries.send([outgoingDelivery(firstAttempt(webhook.id, { envelope, incident: entry.incident }, { redeliveryId: randomUUID() }))]);
      await input.events.outbox.record([
        auditRecord(
          input.actor,
          {
            activityType: "WebhookDelivery",
            activityAction: "Create",
            targetResourceType: "Webhook",
            targetResourceId: webhook.id,
            targetResourceName: webhook.name,
            metadata: { redeliverOf: entry.id, eventId: entry.eventId },
            accountId: webhook.targetAccountId,
          },
          outboxScope.webhook(webhook.id),
          input.now(),
        ),
      ]);
      return { status: 202, data: { eventId: entry.eventId, status: "Pending" as const } };
    },
  }),
];

async function findEntry(input: RequestContext, webhook: WebhookRecord, logId: string, createdAt: string): Promise<DeliveryLogRecord> {
  const notBefore = input.now().getTime() - input.config.webhooks.deliveryLogTtlDays * 86_400_000;
  const entry = await input.stores.deliveryLogs.get(webhook.id, logId, new Date(createdAt).toISOString());
  // Expired entries may linger in the store until TTL removes them; they are gone as far as callers know.
  if (!entry || Date.parse(entry.createdAt) < notBefore) throw notFound("The delivery log entry", "logId");
  return entry;
}

/** The incident as it stands now, or null when the source no longer has it. */
async function liveIncident(input: RequestContext, entry: DeliveryLogRecord): Promise<Record<string, unknown> | null> {
  if (!entry.incident) return null;
  const { workspaceId, source, incidentId } = entry.incident;
  try {
    const { incident, state } = await loadIncident(input, await findWorkspace(input, workspaceId), source, incidentId);
    return toIncidentSummary(incident, state, input.now());
  } catch (error) {
    if (isApiError(error) && error.code === "NOT_FOUND") return null;
    throw error;
  }
}

/** `incident.created.v1` rebuilt from the current incident, keeping the event id and occurredAt. */
async function rebuildCreated(input: RequestContext, entry: DeliveryLogRecord): Promise<EventEnvelope> {
  const { workspaceId, source, incidentId } = entry.incident!;
  let loaded;
  try {
    loaded = await loadIncident(input, await findWorkspace(input, workspaceId), source, incidentId);
  } catch (error) {
    if (isApiError(error) && error.code === "NOT_FOUND") {
      throw new ApiError("CONFLICT", "The incident no longer exists at its source, so the event cannot be rebuilt.", { target: "logId" });
    }
    throw error;
  }
  return {
    id: entry.eventId,
    type: entry.eventType,
    occurredAt: entry.eventOccurredAt,
    data: incidentCreatedData(loaded.incident, loaded.workspace.accountId, loaded.state.assignee),
  };
}

function toLogView(e: DeliveryLogRecord, eventPayload: Record<string, unknown> | null): z.output<typeof deliveryLogView> {
  return {
    id: e.id,
    webhookConfigurationId: e.webhookConfigurationId,
    eventId: e.eventId,
    eventType: e.eventType,
    status: e.status,
    httpStatusCode: e.httpStatusCode,
    success: e.success,
    requestUrl: e.requestUrl,
    requestHeaders: e.requestHeaders,
    requestBody: "",
    responseBody: "",
    eventPayload,
    durationMs: e.durationMs,
    createdAt: e.createdAt,
    redelivered: e.redelivered,
    attempt: e.attempt,
    isTest: e.isTest,
    error: e.error,
  };
}

function iso(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}
