import { ApiError } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import { routeEvent } from "../../platform/events/fan-out";
import type { Uses } from "../operation-context";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { WebhookRecord } from "../../model/webhooks/webhook";
import { loadChecked, type IncidentTarget } from "./incident-access";
import { createdEvent } from "./incident-events";

export interface ManualTrigger extends IncidentTarget {
  /** Only this webhook; absent: every webhook that may receive the workspace's events. */
  webhookId?: string;
  /**
   * The accounts whose webhooks the caller may name (a person's organization); absent: any. Another
   * organization's webhook is answered as one that does not exist.
   */
  visibleAccountIds?: readonly string[];
}

/**
 * The "Trigger webhook" action (docs/contract.md §6.1): `incident.created.v1` for one incident as it is now,
 * with a fresh id per fire, delivered whether or not the webhooks subscribe to the type; the account
 * scope and `monitoredAccountIds` still apply. Aimed at one webhook when `webhookId` is given, which
 * must then be one that receives the workspace's events (400 at `webhookId` otherwise, rather than a
 * fire nobody gets). With `If-Match` the incident's version is checked first. The event and its
 * audit event go to the outbox together; accepted once they are there.
 */
export async function triggerIncidentCreated(ctx: Uses<"actor" | "events" | "now" | "sources" | "stores">, input: ManualTrigger): Promise<{ eventId: string }> {
  const { workspace, incident, state } = await loadChecked(ctx, input);
  const now = ctx.now();
  const webhookId = input.webhookId?.toLowerCase();
  const event = createdEvent(incident, workspace.accountId, state.assignee, now, {
    manual: true,
    routing: webhookId ? { onlyWebhookIds: [webhookId] } : {},
  });
  if (webhookId) await requireReceiver(ctx, input, webhookId, (providerId, webhook) => routeEvent(event.message, providerId, webhook));
  const eventId = event.message.envelope.id;
  const audit = auditRecord(
    ctx.actor,
    {
      activityType: "IncidentWebhookTrigger",
      activityAction: "Create",
      targetResourceType: "Incident",
      targetResourceId: `${incident.source}/${incident.id}`,
      targetResourceName: incident.title,
      metadata: { eventType: "incident.created.v1", eventId, webhookId: webhookId ?? null },
      workspaceId: workspace.id,
      accountId: workspace.accountId,
    },
    outboxScope.workspace(workspace.id),
    now,
  );
  await ctx.events.outbox.record([event, audit], ctx.deadline);
  return { eventId };
}

/** The webhook named, which must be visible to the caller and receive this fire (the fan-out's own rule). */
async function requireReceiver(
  ctx: Uses<"stores">,
  input: ManualTrigger,
  webhookId: string,
  receives: (providerId: string | null, webhook: WebhookRecord) => boolean,
): Promise<void> {
  const [found, account] = await Promise.all([ctx.stores.webhooks.get(webhookId), ctx.stores.accounts.get(input.workspace.accountId)]);
  const webhook = found?.value;
  const refuse = (message: string) => new ApiError("VALIDATION_ERROR", message, { target: "webhookId", errors: { webhookId: [message] } });
  if (!webhook || (input.visibleAccountIds && !input.visibleAccountIds.includes(webhook.targetAccountId))) throw refuse("No webhook of your organization has this id.");
  if (webhook.status === "Disabled") throw refuse(`${webhook.name} is disabled: enable it first.`);
  if (!receives(account?.managedByAccountId ?? null, webhook)) {
    throw refuse(`${webhook.name} does not receive this workspace's events (another account's, or its monitoredAccountIds leave this workspace's account out).`);
  }
}
