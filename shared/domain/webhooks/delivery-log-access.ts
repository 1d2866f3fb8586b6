import { z } from "zod";
import { notFound } from "../../platform/errors/api-error";
import type { Uses } from "../operation-context";
import type { DeliveryLogRange } from "../../platform/store/ports";
import type { DeliveryLogRecord } from "../../model/webhooks/delivery-log";
import type { WebhookRecord } from "../../model/webhooks/webhook";

/* A webhook's delivery log as callers read it: within the retention period, located by createdAt. */

/** Entries older than this are expired, whatever the store still holds. */
export function deliveryLogNotBefore(ctx: Uses<"config" | "now">): string {
  return new Date(ctx.now().getTime() - ctx.config.webhooks.deliveryLogTtlDays * 86_400_000).toISOString();
}

/** One entry of the webhook's log, located by its id and createdAt; 404 at `logId` when missing or expired. */
export async function findDeliveryLogEntry(ctx: Uses<"config" | "now" | "stores">, webhook: WebhookRecord, logId: string, createdAt: string): Promise<DeliveryLogRecord> {
  const entry = await ctx.stores.deliveryLogs.get(webhook.id, logId.toLowerCase(), new Date(createdAt).toISOString());
  // Expired entries may linger in the store until TTL removes them; they are gone as far as callers know.
  if (!entry || entry.createdAt < deliveryLogNotBefore(ctx)) throw notFound("The delivery log entry", "logId");
  return entry;
}

/**
 * The range a listing reads: `from` (default: the start of the retention period) up to `to`, never
 * later than now: nothing is logged in the future, so a listing never walks days that cannot hold entries.
 */
export function deliveryLogListing(ctx: Uses<"config" | "now">, from: string | undefined, to: string | undefined): DeliveryLogRange {
  const notBefore = deliveryLogNotBefore(ctx);
  const latest = new Date(ctx.now().getTime() + 1).toISOString();
  const end = to === undefined ? undefined : new Date(to).toISOString();
  return { from: from === undefined ? notBefore : new Date(from).toISOString(), to: end === undefined || end > latest ? latest : end, notBefore };
}

/** Where a page of entries stops: the last entry's time and id (newest first). */
export const deliveryLogCursor = z.object({ createdAt: z.iso.datetime(), id: z.string().min(1) }).strict();
