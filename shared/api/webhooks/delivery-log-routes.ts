import { z } from "zod";
import { issuePageToken, pageQueryFields, readPageToken } from "../../platform/http/paging";
import { organizationRoute } from "../route-kinds";
import { eventPayloadNow } from "../../domain/webhooks/event-rebuild";
import { redeliver } from "../../domain/webhooks/redelivery";
import { deliveryLogCursor, deliveryLogListing, findDeliveryLogEntry } from "../../domain/webhooks/delivery-log-access";
import { deliveryLogView, toDeliveryLogView } from "../schemas/webhook-view";
import { EXAMPLE_FAILED_DELIVERY_CREATED_AT, EXAMPLE_FAILED_DELIVERY_LOG_ID, EXAMPLE_WEBHOOK_ID } from "../../platform/http/examples";
import { deliveryLogEntryExample, deliveryLogExample } from "../examples/webhook-examples";
import { visibleWebhook } from "./webhook-access";

const tag = "Webhooks";
const timestamp = z.iso.datetime({ offset: true });

const listQuery = z
  .object({
    from: timestamp.optional().describe("Oldest createdAt; default: the start of the retention period."),
    to: timestamp.optional().describe("Entries created before this; default: now."),
    ...pageQueryFields,
  })
  .strict()
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { path: ["to"], message: "Must be after from." });

const entryParams = z.object({
  id: z.guid().describe("The webhook's id.").meta({ examples: [EXAMPLE_WEBHOOK_ID] }),
  logId: z.guid().describe("The entry's id, as listed.").meta({ examples: [EXAMPLE_FAILED_DELIVERY_LOG_ID] }),
});
const entryQuery = z
  .object({ createdAt: timestamp.describe("The entry's createdAt, as listed: it locates the entry.").meta({ examples: [EXAMPLE_FAILED_DELIVERY_CREATED_AT] }) })
  .strict();

/** Delivery-log endpoints of the webhook group (docs/contract.md §4.3). */
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
      const range = deliveryLogListing(input, query.from, query.to);
      const listing = `delivery-logs:${webhook.id}:${query.from ?? ""}:${query.to ?? ""}`;
      const cursor = query.continuationToken === undefined ? undefined : readPageToken(input, query.continuationToken, listing, deliveryLogCursor, "continuationToken");
      const page = await input.stores.deliveryLogs.list(webhook.id, range, query.pageSize, cursor);
      return {
        data: page.items.map((e) => toDeliveryLogView(e, null)),
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
      const entry = await findDeliveryLogEntry(input, webhook, input.params.logId, input.query.createdAt);
      return { data: toDeliveryLogView(entry, await eventPayloadNow(input, entry)) };
    },
  }),
  organizationRoute({
    method: "POST",
    path: "/webhooks/{id}/delivery-logs/{logId}/redeliver",
    idempotencyKey: true,
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
      const entry = await findDeliveryLogEntry(input, webhook, input.params.logId, input.query.createdAt);
      const { eventId } = await redeliver(input, webhook, entry);
      return { status: 202, data: { eventId, status: "Pending" as const } };
    },
  }),
];
