import { z } from "zod";
import type { Uses } from "../../../domain/operation-context";
import type { LoadedIncident } from "../../../domain/incidents/incident-access";
import { toIncidentSummary } from "../../../domain/incidents/incident-view";
import { EXAMPLE_CUSTOMER_ACCOUNT_ID, EXAMPLE_INCIDENT, EXAMPLE_INCIDENT_BLOCK, EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";
import { deliveryLogEntryExample, deliveryLogExample } from "../../examples/webhook-examples";
import { deliveryStatuses, statusClasses, statusClassOf, type DeliveryLogRecord } from "../../../model/webhooks/delivery-log";
import { incidentNow, REBUILDABLE_EVENT_TYPE, rebuiltCreatedEvent } from "../../../domain/webhooks/event-rebuild";
import { testEnvelope } from "../../../domain/webhooks/test-event";
import type { WebhookRecord } from "../../../model/webhooks/webhook";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";

/*
 * One delivery attempt opened to debug an endpoint, as Svix's and Stripe's attempt views show it: the
 * request (URL, headers as sent with credentials and signatures redacted, a body) and the receiver's
 * answer (status, time taken, error, and for a test its body's start). The log keeps no copy of an
 * event (docs/contract.md §2.9), so the body shown says where it comes from rather than claim to be what was sent.
 */

/** The SOAR intake's failed delivery opened in the portal: the body rebuilt from the incident as it is now, no response body kept. */
const deliveryAttemptExample = {
  id: deliveryLogExample.id,
  webhookConfigurationId: deliveryLogExample.webhookConfigurationId,
  eventId: deliveryLogExample.eventId,
  eventType: deliveryLogExample.eventType,
  status: deliveryLogExample.status,
  statusClass: "5xx",
  attempt: deliveryLogExample.attempt,
  isTest: false,
  redelivered: false,
  createdAt: deliveryLogExample.createdAt,
  request: {
    url: deliveryLogExample.requestUrl,
    headers: { ...deliveryLogExample.requestHeaders, Authorization: "[redacted]", "X-Svc-Signature": "[redacted]", "webhook-signature": "[redacted]" },
    body: JSON.stringify({
      id: deliveryLogExample.eventId,
      type: "incident.created.v1",
      occurredAt: EXAMPLE_INCIDENT_BLOCK.createdAt,
      data: {
        incidentId: EXAMPLE_INCIDENT.id,
        source: "sourcea",
        sourceDisplayName: EXAMPLE_INCIDENT.source,
        workspaceId: EXAMPLE_WORKSPACE_ID,
        accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
        incidentNumber: EXAMPLE_INCIDENT.number,
        title: EXAMPLE_INCIDENT.title,
        severity: EXAMPLE_INCIDENT_BLOCK.severity,
        status: EXAMPLE_INCIDENT_BLOCK.status,
        createdAt: EXAMPLE_INCIDENT_BLOCK.createdAt,
      },
    }),
    bodySource: "rebuilt",
  },
  response: { httpStatusCode: 503, durationMs: deliveryLogExample.durationMs, error: deliveryLogExample.error, body: null },
  eventPayload: deliveryLogEntryExample.eventPayload,
};

/** Where the request body shown comes from. */
export const requestBodySources = ["sample", "rebuilt", "unavailable", "withheld"] as const;

export const deliveryAttemptView = z
  .object({
    id: z.string(),
    webhookConfigurationId: z.guid(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(deliveryStatuses),
    statusClass: z.enum(statusClasses),
    attempt: z.number().int(),
    isTest: z.boolean(),
    redelivered: z.boolean(),
    createdAt: z.string(),
    request: z.object({
      url: z.string().describe("The endpoint it was sent to."),
      headers: z.record(z.string(), z.string()).describe("As sent; credentials and signatures redacted. Empty when it was not sent (held while paused, or the webhook disabled)."),
      body: z.string().nullable().describe("The JSON body, as `bodySource` says; null when it cannot be rebuilt."),
      bodySource: z
        .enum(requestBodySources)
        .describe(
          "`sample`: a test event, its fixed sample data with this attempt's event id and time: the body that was sent. `rebuilt`: " +
            "`incident.created.v1` rebuilt now from the incident as it stands, with the event's id and `occurredAt` (what a redelivery " +
            "sends): the incident may have changed since it was sent. `unavailable`: the log keeps no copy of an event and this one cannot " +
            "be rebuilt (its type is built from a change, or the incident no longer exists); `eventPayload` shows the incident as it is now. " +
            "`withheld`: the incident is in a workspace you may not read: neither the body nor `eventPayload` is shown.",
        ),
    }),
    response: z.object({
      httpStatusCode: z.number().int().describe("0 when no HTTP answer came; see `error`."),
      durationMs: z.number().int().describe("From sending the request to the end of the answer's body (or the failure)."),
      error: z.string().nullable().describe("What went wrong without an answer, a failing status, and whether it is tried again."),
      body: z
        .object({
          excerpt: z.string().describe("At most 2 KiB of UTF-8; control characters written as `\\uXXXX`; credentials the receiver sent back masked."),
          truncated: z.boolean().describe("The body went on beyond the excerpt."),
        })
        .nullable()
        .describe("Test deliveries only: the start of the receiver's answer. An event delivery's answer is read and dropped, never kept."),
    }),
    eventPayload: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("The incident as it stands now; null for a test event, when the incident no longer exists, or when it is in a workspace you may not read."),
  })
  .meta({ examples: [deliveryAttemptExample] });

export type DeliveryAttemptView = z.output<typeof deliveryAttemptView>;

/**
 * One attempt of `webhook`'s log, its incident read live once for both its body and `eventPayload`.
 * A webhook of the organization hears of incidents of workspaces the reader may not see: those are
 * `withheld`, as the incident itself would be refused them.
 */
export async function deliveryAttempt(
  ctx: Uses<"sources" | "stores" | "now">,
  webhook: WebhookRecord,
  entry: DeliveryLogRecord,
  mayRead: (workspace: WorkspaceRecord) => boolean,
): Promise<DeliveryAttemptView> {
  const found = entry.incident ? await incidentNow(ctx, entry.incident) : null;
  const withheld = found !== null && !mayRead(found.workspace);
  const loaded = withheld ? null : found;
  return {
    id: entry.id,
    webhookConfigurationId: entry.webhookConfigurationId,
    eventId: entry.eventId,
    eventType: entry.eventType,
    status: entry.status,
    statusClass: statusClassOf(entry.httpStatusCode),
    attempt: entry.attempt,
    isTest: entry.isTest,
    redelivered: entry.redelivered,
    createdAt: entry.createdAt,
    request: { url: entry.requestUrl, headers: entry.requestHeaders, ...(withheld ? { body: null, bodySource: "withheld" as const } : requestBody(webhook, entry, loaded)) },
    response: {
      httpStatusCode: entry.httpStatusCode,
      durationMs: entry.durationMs,
      error: entry.error,
      body: entry.isTest && entry.responseExcerpt ? { excerpt: entry.responseExcerpt.text, truncated: entry.responseExcerpt.truncated } : null,
    },
    eventPayload: loaded && toIncidentSummary(loaded.incident, loaded.state, loaded.workspace, ctx.now()),
  };
}

function requestBody(webhook: WebhookRecord, entry: DeliveryLogRecord, loaded: LoadedIncident | null): Pick<DeliveryAttemptView["request"], "body" | "bodySource"> {
  // The test event's only variables are its id, its time and the webhook's account, all kept: the same bytes.
  if (entry.isTest) return { body: JSON.stringify(testEnvelope(webhook.targetAccountId, new Date(entry.eventOccurredAt), entry.eventId)), bodySource: "sample" };
  if (entry.eventType === REBUILDABLE_EVENT_TYPE && loaded) return { body: JSON.stringify(rebuiltCreatedEvent(entry, loaded)), bodySource: "rebuilt" };
  return { body: null, bodySource: "unavailable" };
}
