import type { Uses } from "../../platform/operation-context";
import { eventRecord } from "../../platform/events/event-record";
import { changeOriginOf } from "../../platform/operation-context";
import type { VendorComment, VendorIncident } from "../../systems/vendors/port";
import type { Source } from "../sources";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { WorkspaceRecord } from "../organizations/workspace";
import { clipText, incidentSubject } from "./incident-events";

export interface ServiceComment {
  workspace: WorkspaceRecord;
  source: Source;
  incidentId: string;
  message: string;
  /** The author's address, when the actor has one. */
  authorEmail?: string;
  /**
   * Makes the write idempotent at the vendor: a repeat with the same key (a gamebook step resumed
   * after a crash) returns the comment the first call added, and its event has the same id.
   */
  idempotencyKey?: string;
}

/**
 * A comment added through the service by an agent or a gamebook (the actor; analysts have no comment
 * create in v2, contract 6.1): written to the vendor, then `incident.comment.added.v1` goes to the
 * outbox with an id from its subject (the comment), so a repeat is the same event. The `incident`
 * block is read when the event is built; when that read fails its fields are null, and the event
 * still goes out (contract 6.5).
 */
export async function addServiceComment(ctx: Uses<"actor" | "events" | "logger" | "now" | "sources">, input: ServiceComment): Promise<{ comment: VendorComment; eventId: string }> {
  const { actor } = ctx;
  const { workspace } = input;
  const gateway = ctx.sources.gateway(input.source);
  const comment = await gateway.addComment(workspace.id, input.incidentId, {
    message: input.message,
    authorEmail: input.authorEmail ?? "",
    authorName: actor.name,
    isAgentComment: actor.origin === "agent",
    agentName: actor.origin === "agent" ? actor.name : null,
    isClosingComment: false,
    extensionId: null,
    ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
  });
  let incident: VendorIncident | null = null;
  try {
    incident = await gateway.getIncident(workspace.id, input.incidentId);
  } catch (error) {
    ctx.logger.warn("comment event built without its incident block", { incidentId: input.incidentId, error: String(error) });
  }
  const occurredAt = ctx.now().toISOString();
  const subject = `${incidentSubject({ workspaceId: workspace.id, source: input.source, id: input.incidentId })}/comment/${comment.id}`;
  const record = eventRecord(
    "incident.comment.added.v1",
    {
      scope: outboxScope.workspace(workspace.id),
      accountId: workspace.accountId,
      occurredAt,
      subject,
      incident: { workspaceId: workspace.id, source: input.source, incidentId: input.incidentId },
    },
    {
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
      addedBy: changeOriginOf(actor),
      incident: {
        incidentNumber: incident?.number ?? null,
        title: incident?.title ?? null,
        severity: incident?.severity ?? null,
        sourceDisplayName: incident ? incident.source : null,
        vendorIdentifiers: incident?.vendorIdentifiers ?? null,
      },
    },
  );
  await ctx.events.outbox.record([record]);
  return { comment, eventId: record.message.envelope.id };
}
