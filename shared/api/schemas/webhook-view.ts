import { z } from "zod";
import { webhookExample } from "../examples/webhook-examples";
import { deliveryStatuses, type DeliveryLogRecord } from "../../model/webhooks/delivery-log";
import { webhookAuthenticationTypes, webhookStatuses, type WebhookRecord } from "../../model/webhooks/webhook";

/*
 * How a webhook and a delivery-log entry look to a caller (docs/contract.md §2.8 and §2.9), whoever asks: a
 * service account through the contract's routes, a person through the portal's.
 */

export const webhookView = z
  .object({
    id: z.guid(),
    serviceProviderId: z.guid(),
    targetAccountId: z.guid(),
    targetAccountName: z.string(),
    workspaceId: z.string().nullable(),
    name: z.string(),
    url: z.string(),
    status: z.enum(webhookStatuses),
    eventTypes: z.array(z.string()),
    monitoredAccountIds: z.array(z.guid()),
    authenticationType: z.enum(webhookAuthenticationTypes),
    hasSigningToken: z.boolean(),
    disableReason: z.string().nullable(),
    disabledAt: z.string().nullable(),
    createdAt: z.string(),
    lastModifiedAt: z.string(),
  })
  .meta({ examples: [webhookExample] });

/** docs/contract.md §2.8: secrets never leave, only whether a signing key exists. */
export function toWebhookView(w: WebhookRecord): z.output<typeof webhookView> {
  return {
    id: w.id,
    serviceProviderId: w.serviceProviderId,
    targetAccountId: w.targetAccountId,
    targetAccountName: w.targetAccountName,
    workspaceId: w.workspaceId,
    name: w.name,
    url: w.url,
    status: w.status,
    eventTypes: w.eventTypes,
    monitoredAccountIds: w.monitoredAccountIds,
    authenticationType: w.authenticationType,
    hasSigningToken: w.signingKeys.length > 0,
    disableReason: w.disableReason,
    disabledAt: w.disabledAt,
    createdAt: w.createdAt,
    lastModifiedAt: w.lastModifiedAt,
  };
}

export const deliveryLogView = z.object({
  id: z.string(),
  webhookConfigurationId: z.guid(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(deliveryStatuses),
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

/** docs/contract.md §2.9: metadata only; `eventPayload` is what the caller read live, or null. */
export function toDeliveryLogView(e: DeliveryLogRecord, eventPayload: Record<string, unknown> | null): z.output<typeof deliveryLogView> {
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
