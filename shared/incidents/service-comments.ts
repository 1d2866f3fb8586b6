import { deterministicEventId } from "../events/event-ids";
import type { ChangeOrigin } from "../events/event-types";
import type { Services } from "../services";
import type { VendorComment, VendorIncident } from "../sources/gateway";
import type { Source } from "../sources/source";
import { workspaceOf } from "./incident-access";
import { clipText, outboxEvent } from "./incident-events";

export interface ServiceComment {
  workspaceId: string;
  source: Source;
  incidentId: string;
  message: string;
  /** Who writes it: an agent or a gamebook (analysts have no comment create in v2). */
  by: { origin: "agent" | "gamebook"; name: string; email?: string };
}

/**
 * A comment added through the service (contract 6.1): written to the vendor, then
 * `incident.comment.added.v1` goes to the outbox with an id from its subject (the comment), so a
 * repeat is the same event. The `incident` block is read when the event is built; when that read
 * fails its fields are null, and the event still goes out (contract 6.5).
 */
export async function addServiceComment(services: Services, input: ServiceComment): Promise<{ comment: VendorComment; eventId: string }> {
  const workspace = await workspaceOf({ services }, input.workspaceId);
  const gateway = services.sources.gateway(input.source);
  const comment = await gateway.addComment(workspace.id, input.incidentId, {
    message: input.message,
    authorEmail: input.by.email ?? "",
    authorName: input.by.name,
    isAgentComment: input.by.origin === "agent",
    agentName: input.by.origin === "agent" ? input.by.name : null,
    isClosingComment: false,
    extensionId: null,
  });
  let incident: VendorIncident | null = null;
  try {
    incident = await gateway.getIncident(workspace.id, input.incidentId);
  } catch (error) {
    services.logger.warn("comment event built without its incident block", { incidentId: input.incidentId, error: String(error) });
  }
  const subject = `${workspace.id}/${input.source}/${input.incidentId}/comment/${comment.id}`;
  const eventId = deterministicEventId("incident.comment.added.v1", subject);
  const occurredAt = services.now().toISOString();
  const addedBy: ChangeOrigin = { origin: input.by.origin, serviceAccountId: null, name: input.by.name };
  const data = {
    incidentId: input.incidentId,
    source: input.source.toLowerCase(),
    workspaceId: workspace.id,
    accountId: workspace.accountId,
    comment: {
      id: comment.id,
      message: clipText(comment.message),
      createdTime: comment.createdTime,
      authorEmail: comment.authorEmail,
      authorName: comment.authorName,
      isAgentComment: comment.isAgentComment,
      agentName: comment.agentName,
    },
    addedBy,
    incident: {
      incidentNumber: incident?.number ?? null,
      title: incident?.title ?? null,
      severity: incident?.severity ?? null,
      sourceDisplayName: incident ? incident.source : null,
      vendorIdentifiers: incident?.vendorIdentifiers ?? null,
    },
  };
  const event = outboxEvent("incident.comment.added.v1", eventId, { workspaceId: workspace.id, accountId: workspace.accountId }, occurredAt, data);
  await services.stores.incidents.appendEvents(workspace.id, [event]);
  await services.pipeline.outbox.publish([event]);
  return { comment, eventId };
}
