import { sourceDisplayName } from "../../model/sources";
import { firstAttempt } from "../../platform/delivery/delivery-message";
import { outboxDelivery } from "../../platform/delivery/outbox-delivery";
import { freshEventId } from "../../platform/events/event-ids";
import type { EventEnvelope } from "../../platform/events/event-message";
import type { Uses } from "../operation-context";
import type { WebhookRecord } from "../../model/webhooks/webhook";
import { webhookAudit } from "./webhook-changes";

/**
 * `webhook.test.v1` (docs/contract.md §6.5): the shape of `incident.created.v1` with fixed sample values and
 * every vendor block populated, `isTest` true. Its only variables are its id, the time it is sent and
 * the webhook's account, so a delivery-log entry (which keeps all three) says exactly what was sent.
 */
export function testEnvelope(accountId: string, now: Date, id: string = freshEventId()): EventEnvelope {
  return {
    id,
    type: "webhook.test.v1",
    occurredAt: now.toISOString(),
    isTest: true,
    data: {
      incidentId: "00000000-0000-4000-8000-000000000001",
      source: "sourcea",
      sourceDisplayName: sourceDisplayName("SourceA"),
      workspaceId: "00000000-0000-4000-8000-0000000000aa",
      accountId,
      incidentNumber: 1234,
      title: "Test event: suspicious sign-in from an unfamiliar location",
      description: "A sample incident sent by POST /webhooks/{id}/test.",
      severity: "Medium",
      status: "New",
      createdAt: now.toISOString(),
      lastActivityAt: now.toISOString(),
      lastModificationTime: now.toISOString(),
      owner: { userId: "00000000-0000-4000-8000-0000000000bb", email: "analyst@example.com", name: "Sample Analyst", isAgent: false },
      alertCount: 1,
      entityCount: 2,
      vendorIdentifiers: {
        sourceA: { incidentId: "00000000-0000-4000-8000-000000000001", incidentNumber: "1234", incidentUrl: "https://console.source-a.example/incidents/1234" },
        sourceB: { incidentId: "INC-1234", incidentUrl: "https://console.source-b.example/incidents/INC-1234" },
      },
    },
  };
}

/**
 * Sends a `webhook.test.v1` event to this webhook only, whatever its subscriptions or state (a test
 * of a paused or disabled endpoint is useful), never counted for auto-disable. Audited like a
 * redelivery (`WebhookDelivery`): it sends to the endpoint on the organization's behalf.
 */
export async function sendTestEvent(ctx: Uses<"actor" | "events" | "now">, webhook: WebhookRecord): Promise<{ eventId: string }> {
  const envelope = testEnvelope(webhook.targetAccountId, ctx.now());
  const audit = webhookAudit(ctx, webhook, "Create", { test: true, eventId: envelope.id }, "WebhookDelivery");
  // The send and its audit event are one commit (the relay sends it after), started only while the
  // request's deadline allows: neither goes without the other.
  const send = outboxDelivery(audit.scope, firstAttempt(webhook.id, { envelope, incident: null }), audit.createdAt);
  await ctx.events.outbox.record([send, audit], ctx.deadline);
  return { eventId: envelope.id };
}
