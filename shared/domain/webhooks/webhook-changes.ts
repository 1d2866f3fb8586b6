import { ApiError, notFound } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import type { OutboxRecord } from "../../platform/events/outbox-record";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { Versioned } from "../../platform/store/ports";
import type { WebhookRecord, WebhookStatus } from "../../model/webhooks/webhook";

/*
 * A webhook as its organization's callers change it, whoever they are (a service account through the
 * contract's routes, a person through the portal's): the webhook read through the caller's
 * organization, each change committed with its audit event in the webhook's own partition.
 */

/** A webhook of the caller's organization; any other id is 404 at `target`, never "forbidden". */
export async function organizationWebhook(ctx: Uses<"stores">, organizationAccountIds: readonly string[], id: string, target = "id"): Promise<Versioned<WebhookRecord>> {
  const found = await ctx.stores.webhooks.get(id.toLowerCase());
  if (!found || !organizationAccountIds.includes(found.value.targetAccountId)) throw notFound("The webhook", target);
  return found;
}

/** The audit event of a write to a webhook, in the trail of the account that owns it. */
export function webhookAudit(
  ctx: Uses<"actor" | "now">,
  webhook: WebhookRecord,
  action: "Create" | "Update" | "Delete",
  metadata: Record<string, unknown>,
  activityType: "Webhook" | "WebhookDelivery" = "Webhook",
): OutboxRecord {
  return auditRecord(
    ctx.actor,
    {
      activityType,
      activityAction: action,
      targetResourceType: "Webhook",
      targetResourceId: webhook.id,
      targetResourceName: webhook.name,
      metadata,
      accountId: webhook.targetAccountId,
    },
    outboxScope.webhook(webhook.id),
    ctx.now(),
  );
}

/** A change to a webhook read by `read`, its audit event (`Update`, `metadata`) committed with it; `ifMatch` honoured. */
export function changeWebhook(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  read: () => Promise<Versioned<WebhookRecord>>,
  metadata: Record<string, unknown>,
  mutate: (w: WebhookRecord) => void,
  ifMatch?: string,
): Promise<Versioned<WebhookRecord>> {
  return commit({
    deadline: ctx.deadline,
    read,
    ifMatch,
    change(w) {
      mutate(w);
      w.lastModifiedAt = ctx.now().toISOString();
      return [webhookAudit(ctx, w, "Update", metadata)];
    },
    write: (w, etag, outbox) => ctx.stores.webhooks.replace(w, etag!, outbox),
    outbox: ctx.events.outbox,
  });
}

export type WebhookStateAction = "pause" | "resume" | "enable";

/** Each state action: the one state it acts from, and the state it leaves. */
export const webhookStateActions: Record<WebhookStateAction, { from: WebhookStatus; to: WebhookStatus }> = {
  pause: { from: "Active", to: "Paused" },
  resume: { from: "Paused", to: "Active" },
  enable: { from: "Disabled", to: "Active" },
};

/** The state actions a webhook in `status` allows. */
export function stateActionsOf(status: WebhookStatus): WebhookStateAction[] {
  return (Object.keys(webhookStateActions) as WebhookStateAction[]).filter((a) => webhookStateActions[a].from === status);
}

/**
 * Pause, resume or enable (docs/contract.md §4.3): from any other state 409 CONFLICT at `status`. Enabling an
 * auto-disabled webhook clears its reason, time and failure count, so it starts afresh.
 */
export function changeWebhookState(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  read: () => Promise<Versioned<WebhookRecord>>,
  action: WebhookStateAction,
  ifMatch?: string,
): Promise<Versioned<WebhookRecord>> {
  const { from, to } = webhookStateActions[action];
  return changeWebhook(
    ctx,
    read,
    { status: { from, to } },
    (w) => {
      if (w.status !== from) throw new ApiError("CONFLICT", `The webhook is ${w.status}; only a ${from} webhook can be ${action}d.`, { target: "status" });
      w.status = to;
      if (to === "Active") {
        w.disableReason = null;
        w.disabledAt = null;
        // A re-enabled webhook starts a fresh failure count.
        if (from === "Disabled") w.finalFailures = [];
      }
    },
    ifMatch,
  );
}
