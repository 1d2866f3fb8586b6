import type { Uses } from "../../platform/operation-context";
import { z } from "zod";
import { notFound } from "../../platform/errors/api-error";
import { publicRoute, type Route } from "../../platform/http/route";
import { integrationStates, switchIntegrations } from "../../domain/organizations/integration-switches";
import { serviceActor } from "../../platform/operation-context";

import { ticketNoteKinds, ticketPriorities } from "../../systems/itsm/port";
import type { SimulatedSystems } from "./local-services";

const tag = "Local controls";
const workspacePath = z.object({ workspaceId: z.guid() });
const integrationSwitches = z
  .object({ ticketing: z.boolean().optional(), directoryLogs: z.boolean().optional(), logAnalytics: z.boolean().optional(), playbookAutomation: z.boolean().optional() })
  .strict()
  .meta({ examples: [{ ticketing: true }] });

async function workspaceOf(services: Uses<"stores">, workspaceId: string) {
  const workspace = await services.stores.workspaces.get(workspaceId.toLowerCase());
  if (!workspace) throw notFound("The workspace", "workspaceId");
  return workspace;
}

/**
 * Local host only: a workspace's integration switches (the portal's setting) and the simulated ITSM,
 * acted on as its resolvers would (raise a ticket, write a note that linked incidents then show).
 */
export function workspaceDataControlRoutes(simulated: SimulatedSystems): Route[] {
  return [
    publicRoute({
      method: "GET",
      path: "/workspaces/{workspaceId}/integrations",
      summary: "Which integrations are on for the workspace",
      tag,
      params: workspacePath,
      async handler(input) {
        const { params } = input;
        const ctx = { ...input, actor: serviceActor("portal", "Portal") };
        return { data: await integrationStates(ctx, await workspaceOf(input, params.workspaceId)) };
      },
    }),
    publicRoute({
      method: "PUT",
      path: "/workspaces/{workspaceId}/integrations",
      summary: "Turn the workspace's integrations on or off, as the portal does (audited)",
      tag,
      params: workspacePath,
      body: integrationSwitches,
      async handler(input) {
        const { params, body } = input;
        const ctx = { ...input, actor: serviceActor("portal", "Portal") };
        const workspace = await workspaceOf(input, params.workspaceId);
        await switchIntegrations(ctx, workspace, body);
        return { data: await integrationStates(ctx, workspace) };
      },
    }),
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
