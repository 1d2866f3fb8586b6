import { z } from "zod";
import { personWorkspaceRoute } from "../../route-kinds";
import type { Route, RouteGroup } from "../../../platform/http/route";
import type { IncidentTarget } from "../../../domain/incidents/incident-access";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { changeAssignee, changeStatus } from "../../../domain/incidents/incident-writes";
import { commentMessage, updateAssigneeBody, updateStatusBody } from "../../schemas/incident-changes";
import { addServiceComment } from "../../../domain/incidents/service-comments";
import { triggerIncidentCreated } from "../../../domain/incidents/manual-trigger";
import { requireIntegration } from "../../../domain/organizations/integration-switches";
import { linkTicket, unlinkTicket } from "../../../domain/tickets/ticket-links";
import { ticketLinkView, toTicketLinkView } from "../../../domain/tickets/ticket-link-view";
import { ONE_TICKET, ticketNameBody } from "../../../domain/tickets/ticket-names";
import { analystCommentExample } from "../../examples/incident-examples";
import { EXAMPLE_INCIDENT, EXAMPLE_WEBHOOK_ID } from "../../../platform/http/examples";
import { commentPathSources, sourceSchema, type Source } from "../../../model/sources";
import { incidentParams } from "./incident-params";
import { assigneeList, assignableUsers } from "./portal-incident-assignees";

const tag = "Portal: incidents";
const base = "/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}";

/** Comments take the comment paths' sources (docs/contract.md §2.3: A to F), as the contract's comment routes do. */
const commentParams = incidentParams.extend({ source: sourceSchema(commentPathSources).meta({ examples: [EXAMPLE_INCIDENT.source] }) });
/** SEC-2219 on the demo workspace's desk, which the link example links and the unlink example unlinks. */
const EXAMPLE_TICKET = { ticketId: "12219", ticketNumber: "SEC-2219" };
const ticketParams = incidentParams.extend({
  ticketId: z.string().min(1).max(128).describe("The ITSM's id of the linked ticket (`ticketId` of the link).").meta({ examples: [EXAMPLE_TICKET.ticketId] }),
});

const ticketName = ticketNameBody.meta({ ...ONE_TICKET, examples: [{ ticketNumber: EXAMPLE_TICKET.ticketNumber }] });

const triggerBody = z
  .strictObject({
    webhookId: z
      .guid()
      .optional()
      .describe("Only this webhook of your organization, which must receive the workspace's events; absent: every webhook that does."),
  })
  .meta({ examples: [{ webhookId: EXAMPLE_WEBHOOK_ID }] });

/** What every write here says of itself in the document. */
const WRITE_ANSWER =
  "Answers 204 with no body, as the contract's incident writes do: read the incident again (`GET` of the incident, with its new `ETag`) to see " +
  "what the change did. `If-Match` (the incident's `ETag`) is honoured when sent: a change made since is 409 `CONFLICT`. Audited with you as actor.";

type WriteFields<P extends z.ZodType, B extends z.ZodType | undefined> = Pick<
  Parameters<typeof personWorkspaceRoute<P, undefined, B>>[0],
  "method" | "path" | "summary" | "description" | "params" | "body" | "problems" | "idempotencyKey" | "handler"
>;

/** A change to the incident: the `Analyst` role on the workspace (`Owner` includes it), 204, `If-Match` honoured. */
function incidentWrite<P extends z.ZodType, B extends z.ZodType | undefined = undefined>(route: WriteFields<P, B>): Route {
  return personWorkspaceRoute<P, undefined, B>({
    ...route,
    description: `${route.description} ${WRITE_ANSWER}`,
    tag,
    roles: "any",
    workspaceRole: "Analyst",
    problems: [...(route.problems ?? []), "CONFLICT"],
    successStatus: 204,
    ifMatch: true,
  });
}

/** The incident a write names, with the version the caller sent. */
function targetOf(input: { workspace: WorkspaceRecord; params: { source: Source; incidentId: string }; header(name: string): string | undefined }): IncidentTarget {
  return { workspace: input.workspace, source: input.params.source, incidentId: input.params.incidentId, ifMatch: input.header("if-match") };
}

/**
 * One incident worked in the portal: assign, change status and close, comment, link tickets, fire
 * the Trigger-webhook action, and who may be assigned. Each write is the domain operation the
 * contract's routes and the service's own workers run, with the person as actor (their audit event
 * committed with it, the contract's events emitted, `changedBy.origin` `portal`). Acting needs the
 * `Analyst` role on the workspace (`Owner` includes it); anyone who may see the workspace reads.
 */
export const portalIncidentActionRoutes: RouteGroup = {
  name: "portal-incident-actions",
  routes: [
    incidentWrite({
      method: "PUT",
      path: `${base}/assignee`,
      summary: "Assign, reassign or (both fields null) unassign the incident",
      description:
        "The contract's assignee body: `userId` and `email` of the person (an e-mail alone assigns by address; the name comes from the " +
        "organization's people), both null to unassign. The owner is written to the source too; `incident.assignee.changed.v1` when it changes.",
      params: incidentParams,
      body: updateAssigneeBody,
      async handler(input) {
        await changeAssignee(input, targetOf(input), input.body);
        return { status: 204 };
      },
    }),
    incidentWrite({
      method: "PUT",
      path: `${base}/status`,
      summary: "Change the incident's status, put it on hold, or close it with a classification",
      description:
        "The contract's status body. `New`, `Active` and `Closed` go to the source; `OnHold` and `WaitingOnCustomer` are the service's own, pause the " +
        "SLA clock and never reach the source (a closed incident cannot be put on hold: 400, reopen it first). Closing needs a `classification` and " +
        "may carry a `closingComment`. `incident.status.changed.v1` on every transition, and `incident.closed.v1` on a close, each with " +
        "`origin` `portal`.",
      params: incidentParams,
      body: updateStatusBody,
      async handler(input) {
        await changeStatus(input, targetOf(input), input.body);
        return { status: 204 };
      },
    }),
    incidentWrite({
      method: "POST",
      path: `${base}/comments`,
      idempotencyKey: true,
      summary: "Add a comment as yourself (incident.comment.added.v1)",
      description:
        "Written to the source with your name and e-mail address as its author (an analyst's comment, not an agent's), through the operation the " +
        "agents' and gamebooks' comments take; `incident.comment.added.v1` with `addedBy.origin` `portal`. The comment paths' sources only " +
        "(SourceA to SourceF).",
      params: commentParams,
      body: z.strictObject({ message: commentMessage }).meta({ examples: [analystCommentExample] }),
      async handler(input) {
        await addServiceComment(input, { ...targetOf(input), message: input.body.message });
        return { status: 204 };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: `${base}/tickets`,
      summary: "The tickets linked to the incident, oldest link first",
      description: "400 `EXTENSION_NOT_ENABLED` where ticketing is off for the workspace (`GET /portal/workspaces/{workspaceId}/integrations` says whether it is on).",
      tag,
      roles: "any",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: incidentParams,
      response: z.array(ticketLinkView).describe("The incident's links, oldest first.").meta({ examples: [[]] }),
      async handler(input) {
        const { params, workspace } = input;
        await requireIntegration(input, workspace, "ticketing");
        const links = await input.stores.ticketLinks.listForIncident(workspace.id, params.source, params.incidentId);
        return { data: [...links].sort((a, b) => (a.linkedAt < b.linkedAt ? -1 : a.linkedAt > b.linkedAt ? 1 : 0)).map(toTicketLinkView) };
      },
    }),
    incidentWrite({
      method: "POST",
      path: `${base}/tickets`,
      idempotencyKey: true,
      summary: "Link a ticket of the workspace's ITSM to the incident (409 when they are linked already)",
      description:
        "The ticket by its number or its id; both the incident and the ticket must exist (404). The operation the contract's `POST …/tickets/link` " +
        "runs, with you as who linked them. 400 `EXTENSION_NOT_ENABLED` where ticketing is off for the workspace.",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: incidentParams,
      body: ticketName,
      async handler(input) {
        await requireIntegration(input, input.workspace, "ticketing");
        await linkTicket(input, targetOf(input), input.body);
        return { status: 204 };
      },
    }),
    incidentWrite({
      method: "DELETE",
      path: `${base}/tickets/{ticketId}`,
      summary: "Unlink a ticket from the incident (404 when they are not linked)",
      description: "The operation the contract's `POST …/tickets/unlink` runs. 400 `EXTENSION_NOT_ENABLED` where ticketing is off for the workspace.",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: ticketParams,
      async handler(input) {
        await requireIntegration(input, input.workspace, "ticketing");
        await unlinkTicket(input, targetOf(input), { ticketId: input.params.ticketId });
        return { status: 204 };
      },
    }),
    incidentWrite({
      method: "POST",
      path: `${base}/trigger`,
      idempotencyKey: true,
      summary: "Trigger webhook: send incident.created.v1 for the incident as it is now",
      description:
        "The manual Trigger-webhook action: `incident.created.v1` with a fresh event id per fire, to every webhook that may " +
        "receive the workspace's events whether or not it subscribes to the type (`monitoredAccountIds` still apply), or only to `webhookId` (400 " +
        "at `webhookId` when that one would not receive it: disabled, another account's, or monitoring other accounts). Delivered like any event.",
      params: incidentParams,
      body: triggerBody,
      async handler(input) {
        await triggerIncidentCreated(input, { ...targetOf(input), webhookId: input.body.webhookId, visibleAccountIds: input.person.organizationAccountIds });
        return { status: 204 };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: `${base}/assignees`,
      summary: "Who the incident can be assigned to: the people who work this workspace",
      description:
        "Active people of the workspace's organization and of the provider that manages it who hold a role on the workspace (`Owner` or " +
        "`Analyst`: those who can work the incident), by name; `isYou` marks you, for \"Assign to me\". Anyone else is assigned by e-mail address.",
      tag,
      roles: "any",
      params: incidentParams,
      response: assigneeList,
      async handler(input) {
        return { data: await assignableUsers(input, input.workspace, input.person) };
      },
    }),
  ],
};
