import { freshEventId } from "../events/event-ids";
import type { EventMessage } from "../events/event-message";
import type { Services } from "../services";
import type { Source } from "../sources/source";
import { loadIncident } from "./incident-access";
import { incidentCreatedData } from "./incident-events";

/**
 * The portal's "Trigger webhook" action (contract 6.1): `incident.created.v1` for one incident as it
 * is now, with a fresh id per fire, delivered whether or not the webhooks subscribe to the type; the
 * account scope and `monitoredAccountIds` still apply. Aimed at one webhook when `webhookId` is given.
 * It goes straight onto the events queue: accepted once the queue has it.
 */
export async function triggerIncidentCreated(
  services: Services,
  input: { workspaceId: string; source: Source; incidentId: string; webhookId?: string },
): Promise<{ eventId: string }> {
  const { workspace, incident, state } = await loadIncident({ services }, input.workspaceId, input.source, input.incidentId);
  const eventId = freshEventId();
  const message: EventMessage = {
    envelope: {
      id: eventId,
      type: "incident.created.v1",
      occurredAt: services.now().toISOString(),
      data: incidentCreatedData(incident, workspace.accountId, state.assignee),
    },
    accountId: workspace.accountId,
    incident: { workspaceId: workspace.id, source: input.source, incidentId: incident.id },
    bypassSubscription: true,
    onlyWebhookIds: input.webhookId ? [input.webhookId.toLowerCase()] : undefined,
  };
  await services.pipeline.events.send([{ messageId: eventId, body: message }]);
  return { eventId };
}
