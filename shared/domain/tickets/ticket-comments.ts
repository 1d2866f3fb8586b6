import { derivedGuid } from "../../platform/ids/derived-guid";
import { integrationStates, type IntegrationContext } from "../organizations/integration-switches";
import type { Uses } from "../operation-context";
import type { VendorComment } from "../../model/incidents/incident";
import type { Source } from "../../model/sources";
import { TICKET_COMMENT_PREFIX, type TicketLinkRecord } from "../../model/tickets/ticket-link";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { TicketNote } from "../../systems/itsm/port";

/** docs/contract.md §2.5's comment, as the comments endpoint shows it: the vendor's, without the owning integration. */
export type IncidentCommentView = Omit<VendorComment, "extensionId">;

export interface TicketComments {
  comments: IncidentCommentView[];
  /** False when linked tickets' notes could not be read (integration off, ITSM failing). */
  notesAvailable: boolean;
}

/**
 * What the incident's ticket links add to its comments: one activity comment per link (carrying the
 * `ticketId`), and every note of each linked ticket (carrying `ticketId` and `ticketNoteId`), read
 * live from the ITSM so that notes written there after the link show too. When the ITSM cannot be
 * read, the link comments remain and `notesAvailable` is false: the incident's own comments must not
 * fail because an ITSM is down.
 */
export async function ticketComments(ctx: IntegrationContext & Uses<"logger">, workspace: WorkspaceRecord, source: Source, incidentId: string): Promise<TicketComments> {
  const links = await ctx.stores.ticketLinks.listForIncident(workspace.id, source, incidentId);
  if (links.length === 0) return { comments: [], notesAvailable: true };
  const comments = links.map(linkComment);
  let notesAvailable = (await integrationStates(ctx, workspace)).ticketing;
  if (notesAvailable) {
    try {
      const notes = await Promise.all(links.map((l) => ctx.ticketing.listNotes(workspace.id, l.ticketId, ctx.signal)));
      links.forEach((link, i) => comments.push(...notes[i]!.map((n) => noteComment(link, n))));
    } catch (error) {
      ctx.logger.warn("ticket notes not read for incident comments", { workspaceId: workspace.id, incidentId, error: String(error) });
      notesAvailable = false;
    }
  }
  return { comments, notesAvailable };
}

function linkComment(link: TicketLinkRecord): IncidentCommentView {
  return {
    id: `${TICKET_COMMENT_PREFIX}link-${link.id}`,
    message: `Linked to ${link.system} ticket ${link.ticketNumber}: ${link.url}`,
    createdTime: link.linkedAt,
    authorEmail: "",
    authorName: link.linkedBy.name,
    isActivityComment: true,
    isAgentComment: false,
    agentName: null,
    isClosingComment: false,
    ticketNoteId: null,
    ticketId: link.ticketId,
  };
}

function noteComment(link: TicketLinkRecord, note: TicketNote): IncidentCommentView {
  const kind = note.kind === "WorkNote" ? "work note" : "comment";
  return {
    id: `${TICKET_COMMENT_PREFIX}note-${derivedGuid(`${link.system}/${link.ticketId}/${note.id}`)}`,
    message: `[${link.ticketNumber} ${kind}] ${note.body}`,
    createdTime: note.createdAt,
    authorEmail: note.authorEmail ?? "",
    authorName: note.authorName,
    isActivityComment: false,
    isAgentComment: false,
    agentName: null,
    isClosingComment: false,
    ticketNoteId: note.id,
    ticketId: link.ticketId,
  };
}
