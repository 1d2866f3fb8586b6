import type { DeliveryLogStore, WebhookStore } from "../ports";
import { deliveryOutcomeFields, statusCodeRange, type DeliveryLogFilter, type DeliveryLogRecord, type DeliveryOutcome } from "../../../model/webhooks/delivery-log";
import type { WebhookRecord } from "../../../model/webhooks/webhook";
import { deliveryLogPartition, deliveryLogPartitions } from "../delivery-log-partition";
import type { Collection } from "./collection";

export function cosmosWebhooks(webhooks: Collection<WebhookRecord>): WebhookStore {
  return {
    get: (id) => webhooks.read(id, id),
    async listByAccounts(accountIds) {
      if (accountIds.length === 0) return [];
      return webhooks.query("SELECT * FROM c WHERE ARRAY_CONTAINS(@accountIds, c.targetAccountId) ORDER BY c.id", {
        "@accountIds": [...accountIds],
      });
    },
    create: (record, outbox = []) => webhooks.create(record, outbox),
    replace: (record, etag, outbox = []) => webhooks.replace(record, etag, outbox),
    delete: (id, etag, outbox = []) => webhooks.delete(id, id, etag, outbox),
  };
}

/**
 * Delivery logs partitioned by `<webhookId>:<day>`. Listing walks the days of the range newest
 * first, one partition at a time, so its cost follows the page, not the log's size. cosmosdb-server
 * does not enforce TTL, and real Cosmos removes expired items only eventually: reads also hide
 * entries older than `notBefore`.
 */
export function cosmosDeliveryLogs(logs: Collection<DeliveryLogRecord>): DeliveryLogStore {
  return {
    async put(entry) {
      await logs.upsert(entry);
    },
    async get(webhookId, id, createdAt) {
      const found = await logs.read(id, deliveryLogPartition(webhookId, createdAt));
      return found && found.value.createdAt === createdAt && found.value.webhookConfigurationId === webhookId ? found.value : undefined;
    },
    async list(webhookId, range, limit, cursor, filter = {}) {
      const lower = range.from > range.notBefore ? range.from : range.notBefore;
      const upper = cursor && cursor.createdAt < range.to ? cursor.createdAt : range.to;
      if (lower >= range.to) return { items: [] };
      const items: DeliveryLogRecord[] = [];
      for (const partitionKey of deliveryLogPartitions(webhookId, lower, cursor ? new Date(Date.parse(upper) + 1).toISOString() : upper)) {
        const want = limit + 1 - items.length;
        const { conditions, parameters } = rangeConditions(partitionKey, lower, range.to, filter);
        parameters["@top"] = want;
        if (cursor) {
          conditions.push("(c.createdAt < @cAt OR (c.createdAt = @cAt AND c.id < @cId))");
          parameters["@cAt"] = cursor.createdAt;
          parameters["@cId"] = cursor.id;
        }
        const found = await logs.query(
          `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.createdAt DESC, c.id DESC`,
          parameters,
          partitionKey,
        );
        items.push(...found);
        if (items.length > limit) break;
      }
      const page = items.slice(0, limit);
      const last = page.at(-1);
      return { items: page, next: items.length > limit && last ? { createdAt: last.createdAt, id: last.id } : undefined };
    },
    async outcomes(webhookId, range, limit, options = {}) {
      const lower = range.from > range.notBefore ? range.from : range.notBefore;
      if (lower >= range.to) return { items: [], truncated: false };
      const days = deliveryLogPartitions(webhookId, lower, range.to);
      if (options.oldestFirst) days.reverse();
      // Oldest first orders by time alone (the range index serves it); ties need no order there.
      const order = options.oldestFirst ? "c.createdAt ASC" : "c.createdAt DESC, c.id DESC";
      const fields = deliveryOutcomeFields.map((f) => `c.${f}`).join(", ");
      const items: DeliveryOutcome[] = [];
      for (const partitionKey of days) {
        const { conditions, parameters } = rangeConditions(partitionKey, lower, range.to);
        parameters["@top"] = limit + 1 - items.length;
        // Only the outcome fields: thousands of entries cost their few fields each, not their headers.
        const found = (await logs.query(
          `SELECT TOP @top ${fields} FROM c WHERE ${conditions.join(" AND ")} ORDER BY ${order}`,
          parameters,
          partitionKey,
        )) as unknown as DeliveryOutcome[];
        items.push(...found);
        if (items.length > limit) break;
      }
      return { items: items.slice(0, limit), truncated: items.length > limit };
    },
  };
}

/** One day partition's entries in [lower, to), kept by `filter`. */
function rangeConditions(partitionKey: string, lower: string, to: string, filter: DeliveryLogFilter = {}) {
  const conditions = ["c.pk = @pk", "c.createdAt >= @lower", "c.createdAt < @to"];
  const parameters: Record<string, string | number> = { "@pk": partitionKey, "@lower": lower, "@to": to };
  if (filter.status !== undefined) {
    conditions.push("c.status = @status");
    parameters["@status"] = filter.status;
  }
  if (filter.statusClass !== undefined) {
    const { min, max } = statusCodeRange(filter.statusClass);
    conditions.push("c.httpStatusCode >= @minCode AND c.httpStatusCode <= @maxCode");
    parameters["@minCode"] = min;
    parameters["@maxCode"] = max;
  }
  return { conditions, parameters };
}
