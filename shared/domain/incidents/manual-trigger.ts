import type { Uses } from "../../platform/operation-context";
import type { Source } from "../sources";
import type { WorkspaceRecord } from "../organizations/workspace";
import { loadIncident } from "./incident-access";
import { createdEvent } from "./incident-events";

/**
 * The portal's "Trigger webhook" action (contract 6.1): `incident.created.v1` for one incident as it
 * is now, with a fresh id per fire, delivered whether or not the webhooks subscribe to the type; the
 * account scope and `monitoredAccountIds` still apply. Aimed at one webhook when `webhookId` is given.
 * Accepted once it is in the outbox.
 */
export async function triggerIncidentCreated(
  ctx: Uses<"sources" | "stores" | "now" | "events">,
  input: { workspace: WorkspaceRecord; source: Source; incidentId: string; webhookId?: string },
): Promise<{ eventId: string }> {
  const { workspace, incident, state } = await loadIncident(ctx, input.workspace, input.source, input.incidentId);
  const record = createdEvent(incident, workspace.accountId, state.assignee, ctx.now(), {
    manual: true,
    routing: input.webhookId ? { onlyWebhookIds: [input.webhookId.toLowerCase()] } : {},
  });
  await ctx.events.outbox.record([record]);
  return { eventId: record.message.envelope.id };
}
