import { commitWithinDeadline } from "../../platform/concurrency/deadline";
import { deliveryAcceptedExample } from "../../domain/examples/webhook-examples";
import { z } from "zod";
import { firstAttempt, outgoingDelivery } from "../../platform/delivery/delivery-message";
import { freshEventId } from "../../platform/events/event-ids";
import type { EventEnvelope } from "../../platform/events/event-message";
import { organizationRoute } from "../../platform/http/route";
import { webhookIdParams } from "./webhook-schemas";
import { visibleWebhook } from "./webhook-access";

/**
 * `webhook.test.v1` (contract 6.5): the shape of `incident.created.v1` with fixed sample values and
 * every vendor block populated, `isTest` true. Sent to this webhook only, whatever its subscriptions
 * or state (a test of a paused or disabled endpoint is useful), and never counted for auto-disable.
 */
export function testEnvelope(accountId: string, now: Date): EventEnvelope {
  const id = freshEventId();
  return {
    id,
    type: "webhook.test.v1",
    occurredAt: now.toISOString(),
    isTest: true,
    data: {
      incidentId: "00000000-0000-4000-8000-000000000001",
      source: "sourcea",
      sourceDisplayName: "SourceA",
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

export const testEventRoute = organizationRoute({
  method: "POST",
  path: "/webhooks/{id}/test",
  summary: "Send a webhook.test.v1 event to this webhook",
  tag: "Webhooks",
  auth: "webhooks:manage",
  params: webhookIdParams,
  successStatus: 202,
  response: z.object({ eventId: z.string(), status: z.literal("Pending") }).meta({ examples: [deliveryAcceptedExample] }),
  async handler(input) {
    const webhook = (await visibleWebhook(input, input.params.id)).value;
    const envelope = testEnvelope(webhook.targetAccountId, input.now());
    // Sending is this request's change: started only while its deadline allows.
    await commitWithinDeadline(() => input.events.deliveries.send([outgoingDelivery(firstAttempt(webhook.id, { envelope, incident: null }))]));
    return { status: 202, data: { eventId: envelope.id, status: "Pending" as const } };
  },
});
