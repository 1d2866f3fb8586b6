import { commitWithin } from "../../platform/concurrency/deadline";
import { sourceDisplayName } from "../../model/sources";
import type { Uses } from "../operation-context";
import type { Actor } from "../../platform/actor";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { TICKET_COMMENT_PREFIX } from "../../model/tickets/ticket-link";
import { auditRecord } from "../../platform/events/audit-record";
import { eventRecord } from "../../platform/events/event-record";
import { derivedGuid } from "../../platform/ids/derived-guid";
import type { ChangeOrigin } from "../../model/events/event-types";
import { changeOriginOf } from "../../platform/actor";
import type { NewVendorComment } from "../../systems/vendors/port";
import type { VendorComment, VendorIncident } from "../../model/incidents/incident";
import { outboxScope } from "../../platform/store/outbox-scope";
import { loadChecked, type IncidentTarget } from "./incident-access";
import { clipText, incidentSubject } from "./incident-events";

export interface ServiceComment extends IncidentTarget {
  message: string;
  /**
   * An agent's comment written by the calling integration (a service account posting for its
   * agent): the comment is the agent's, the integration owns it.
   */
  agentName?: string;
  /**
   * Makes the write idempotent at the vendor: a repeat with the same key (a gamebook step resumed
   * after a crash) returns the comment the first call added, and its event has the same id.
   */
  idempotencyKey?: string;
}

/**
 * A comment added through the service (docs/contract.md §6.1: by an analyst, an agent or a gamebook), whoever
 * the actor is: a person in the portal (their name and address as author), a service account (the
 * integration owns the comment: its id is the `extensionId` the contract's delete asks for; with
 * `agentName` it is that agent's comment), an agent or a gamebook of the service. With `If-Match`
 * the incident's version is checked first. Written to the vendor, then `incident.comment.added.v1`
 * (id from its subject, the comment, so a repeat is the same event) and the audit event go to the
 * outbox together. The `incident` block is read when the event is built; when that read fails its
 * fields are null, and the event still goes out (docs/contract.md §6.5).
 */
export async function addServiceComment(
  ctx: Uses<"actor" | "events" | "logger" | "now" | "sources" | "stores">,
  input: ServiceComment,
): Promise<{ comment: VendorComment; eventId: string }> {
  const { actor } = ctx;
  const { workspace } = input;
  if (input.ifMatch !== undefined) await loadChecked(ctx, input);
  const gateway = ctx.sources.gateway(input.source);
  const comment = await commitWithin(ctx.deadline, (signal) =>
    gateway.addComment(
      workspace.id,
      input.incidentId,
      {
        message: input.message,
        ...authorOf(actor, input.agentName),
        isClosingComment: false,
        ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
      },
      signal,
    ),
  );
  let incident: VendorIncident | null = null;
  try {
    incident = await gateway.getIncident(workspace.id, input.incidentId);
  } catch (error) {
    ctx.logger.warn("comment event built without its incident block", { incidentId: input.incidentId, error: String(error) });
  }
  const now = ctx.now();
  const occurredAt = now.toISOString();
  const subject = `${incidentSubject({ workspaceId: workspace.id, source: input.source, id: input.incidentId })}/comment/${comment.id}`;
  const event = eventRecord(
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
      addedBy: addedBy(actor, input.agentName),
      incident: {
        incidentNumber: incident?.number ?? null,
        title: incident?.title ?? null,
        severity: incident?.severity ?? null,
        sourceDisplayName: incident ? sourceDisplayName(incident.source) : null,
        vendorIdentifiers: incident?.vendorIdentifiers ?? null,
      },
    },
  );
  const audit = auditRecord(
    actor,
    {
      activityType: "IncidentComment",
      activityAction: "Create",
      targetResourceType: "IncidentComment",
      targetResourceId: `${input.source}/${input.incidentId}/${comment.id}`,
      targetResourceName: comment.message.slice(0, 100),
      metadata: { isAgentComment: comment.isAgentComment, agentName: comment.agentName, extensionId: comment.extensionId },
      workspaceId: workspace.id,
      accountId: workspace.accountId,
    },
    outboxScope.workspace(workspace.id),
    now,
    // One comment, one audit event: a repeated write (a resumed gamebook step) is the same one.
    { id: derivedGuid(`audit/${subject}`) },
  );
  await ctx.events.outbox.record([event, audit], ctx.deadline);
  return { comment, eventId: event.message.envelope.id };
}

/** The comment's author as the vendor keeps it, from who adds it. */
function authorOf(actor: Actor, agentName: string | undefined): Omit<NewVendorComment, "message" | "isClosingComment" | "idempotencyKey"> {
  // An integration owns what it writes, so that it (and only it) may delete it (docs/contract.md §4.1, extensionId).
  const extensionId = actor.origin === "api" ? actor.serviceAccountId : null;
  const agent = agentName ?? (actor.origin === "agent" ? actor.name : null);
  return {
    authorEmail: actor.person?.email ?? "",
    authorName: agent ?? actor.name,
    isAgentComment: agent !== null,
    agentName: agent,
    extensionId,
  };
}

/** `addedBy` of the event: an integration writing for its agent is the agent's comment, still under its service account. */
function addedBy(actor: Actor, agentName: string | undefined): ChangeOrigin {
  const origin = changeOriginOf(actor);
  return agentName === undefined ? origin : { ...origin, origin: "agent", name: agentName };
}

/** A comment an integration changes (edits or deletes): it names itself as the comment's owner. */
export interface OwnedComment extends IncidentTarget {
  commentId: string;
  /** The integration the caller says owns the comment (the contract's `extensionId`). */
  extensionId: string;
}

/**
 * The comment, when the caller may change it: it exists, it is not a linked ticket's note (which
 * lives in the ITSM), `extensionId` is its owner, and when that owner is a service account of this
 * service, the caller is that account — an integration changes only what it wrote, whoever else
 * knows the ids. The caller can already read the comment, so a refusal says why rather than 404.
 */
export async function ownedComment(ctx: Uses<"actor" | "sources" | "stores">, input: OwnedComment, signal?: AbortSignal): Promise<VendorComment> {
  if (input.commentId.startsWith(TICKET_COMMENT_PREFIX)) {
    throw new ApiError("FORBIDDEN", "This comment comes from a linked ticket: it lives in the ITSM. Unlink the ticket to remove its comments.", { target: "commentId" });
  }
  const comments = await ctx.sources.gateway(input.source).listComments(input.workspace.id, input.incidentId, signal);
  const comment = comments.find((c) => c.id === input.commentId);
  if (!comment) throw notFound("The comment", "commentId");
  if (comment.extensionId === null || comment.extensionId.toLowerCase() !== input.extensionId.toLowerCase()) {
    throw new ApiError("FORBIDDEN", "Only the integration that wrote a comment may change it.", { target: "extensionId" });
  }
  const owner = comment.extensionId.toLowerCase();
  const caller = ctx.actor.serviceAccountId?.toLowerCase();
  if (owner !== caller && (await ctx.stores.serviceAccounts.get(owner))) {
    throw new ApiError("FORBIDDEN", "This comment was written by another service account: only it may change it.", { target: "extensionId" });
  }
  return comment;
}

/**
 * A new text for a comment its integration wrote (`ownedComment`), with `If-Match` checked first
 * when sent. The edit is audited with the text before and after; no event goes out, since the
 * contract's events name a comment added, not one edited (6.1), and a receiver that stored the
 * first text reads the new one with the comments.
 */
export async function updateServiceComment(
  ctx: Uses<"actor" | "events" | "now" | "sources" | "stores">,
  input: OwnedComment & { message: string },
  signal?: AbortSignal,
): Promise<VendorComment> {
  const { workspace } = input;
  if (input.ifMatch !== undefined) await loadChecked(ctx, input);
  const before = await ownedComment(ctx, input, signal);
  const comment = await commitWithin(
    ctx.deadline,
    (clientSignal) => ctx.sources.gateway(input.source).updateComment(workspace.id, input.incidentId, input.commentId, { message: input.message }, clientSignal),
    signal,
  );
  await ctx.events.outbox.record([
    auditRecord(
      ctx.actor,
      {
        activityType: "IncidentComment",
        activityAction: "Update",
        targetResourceType: "IncidentComment",
        targetResourceId: `${input.source}/${input.incidentId}/${comment.id}`,
        targetResourceName: comment.message.slice(0, 100),
        metadata: { extensionId: input.extensionId, previousMessage: before.message.slice(0, 1000) },
        workspaceId: workspace.id,
        accountId: workspace.accountId,
      },
      outboxScope.workspace(workspace.id),
      ctx.now(),
    ),
  ], ctx.deadline);
  return comment;
}
