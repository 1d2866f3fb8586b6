import { z } from "zod";
import { publicRoute } from "../../api/route-kinds";
import type { Route } from "../../platform/http/route";
import { ticketNoteKinds, ticketPriorities } from "../../systems/itsm/port";
import type { SimulatedSystems } from "./local-services";

const tag = "Local controls";
const workspacePath = z.object({ workspaceId: z.guid() });

/**
 * Local host only: the simulated ITSM, acted on as its resolvers would (raise a ticket, write a note
 * that linked incidents then show).
 */
export function itsmControlRoutes(simulated: SimulatedSystems): Route[] {
  return [
    publicRoute({
      method: "POST",
      path: "/itsm/workspaces/{workspaceId}/tickets",
      summary: "Raise a ticket in the simulated ITSM",
      tag,
      params: workspacePath,
      body: z
        .object({
          title: z.string().trim().min(1).max(300),
          priority: z.enum(ticketPriorities).default("P3"),
          groupingIds: z.array(z.string().trim().min(1).max(256)).max(10).default([]),
        })
        .strict()
        .meta({ examples: [{ title: "Impossible travel for tom.oneill@fabrikam.example", priority: "P2" }] }),
      successStatus: 201,
      async handler({ params, body }) {
        return { status: 201, data: simulated.itsm.createTicket(params.workspaceId.toLowerCase(), body) };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/itsm/workspaces/{workspaceId}/tickets/{ticketId}/notes",
      summary: "Write a note on a ticket in the simulated ITSM, as a resolver would",
      tag,
      params: workspacePath.extend({ ticketId: z.string().min(1).max(128) }),
      body: z
        .object({
          kind: z.enum(ticketNoteKinds).default("WorkNote"),
          body: z.string().trim().min(1).max(4000),
          authorName: z.string().trim().min(1).max(200).default("Dana Whitfield"),
          authorEmail: z.string().trim().min(3).max(320).nullable().default(null),
        })
        .strict()
        .meta({ examples: [{ body: "User confirmed the sign-in was not theirs; password reset." }] }),
      successStatus: 201,
      async handler({ params, body }) {
        return { status: 201, data: simulated.itsm.addNote(params.workspaceId.toLowerCase(), params.ticketId, body) };
      },
    }),
  ];
}
