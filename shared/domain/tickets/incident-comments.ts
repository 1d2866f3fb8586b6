import type { Uses } from "../operation-context";
import type { Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { IntegrationContext } from "../organizations/integration-switches";
import { ticketComments, type IncidentCommentView } from "./ticket-comments";

/*
 * An incident's comments as the comments endpoint and the portal show them: the source's with its
 * linked tickets' notes. Tickets build on incidents (a link names one), never the other way.
 */

/**
 * The incident's comments, oldest first (docs/contract.md §2.5): the source's, without the integration that
 * owns each, and those of its linked tickets. `notesAvailable` is false when the tickets' notes could
 * not be read.
 */
export async function incidentComments(
  ctx: IntegrationContext & Uses<"sources" | "logger">,
  workspace: WorkspaceRecord,
  source: Source,
  incidentId: string,
): Promise<{ comments: IncidentCommentView[]; notesAvailable: boolean }> {
  const own = await ctx.sources.gateway(source).listComments(workspace.id, incidentId, ctx.signal);
  const fromTickets = await ticketComments(ctx, workspace, source, incidentId);
  const comments = [...own.map(({ extensionId: _owner, ...comment }) => comment), ...fromTickets.comments].sort((a, b) =>
    a.createdTime < b.createdTime ? -1 : a.createdTime > b.createdTime ? 1 : 0,
  );
  return { comments, notesAvailable: fromTickets.notesAvailable };
}
