import { commitWithin } from "../../platform/concurrency/deadline";
import { z } from "zod";
import { auditRecord } from "../../platform/events/audit-record";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { workspaceRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { gamebookRunView } from "../../domain/gamebooks/gamebook-views";
import type { EntityQuery } from "../../systems/vendors/port";
import { outboxScope } from "../../platform/store/outbox-scope";
import { incidentsByEntity } from "../../domain/incidents/incident-reads";
import { lastGamebookRun, readIncident } from "../../domain/gamebooks/incident-with-gamebooks";
import { incidentComments } from "../../domain/tickets/incident-comments";
import {
  agentInvestigationBody,
  agentInvestigationResult,
  BY_ENTITY_NEEDS,
  byEntityQuery,
  commentListParams,
  commentParams,
  commentOwnerQuery,
  serviceCommentUpdateBody,
  incidentParams,
  serviceCommentBody,
  sourceParams,
  TICKET_NOTES_HEADER,
  TICKET_NOTES_HEADER_DEFINITION,
} from "./incident-schemas";
import { updateAssigneeBody, updateStatusBody } from "../schemas/incident-changes";
import { changeAssignee, changeStatus } from "../../domain/incidents/incident-writes";
import { completeInvestigation } from "../../domain/incidents/agent-investigations";
import { addServiceComment, ownedComment, updateServiceComment } from "../../domain/incidents/service-comments";
import { commentView, incidentSummaryView, incidentView } from "../../domain/incidents/incident-view";
import { commentsExample, evidenceExample, incidentExample, incidentSummaryExample, serviceCommentViewExample } from "../examples/incident-examples";
import { gamebookRunExample } from "../examples/gamebook-examples";

const tag = "Incidents";
const BY_ENTITY_LIMIT = 50;
const base = "/workspaces/{workspaceId}/incidents/{source}";

export const incidentRoutes: RouteGroup = {
  name: "incidents",
  routes: [
    workspaceRoute({
      method: "GET",
      path: `${base}/by-entity`,
      summary: "Incidents of the workspace related to an entity",
      description: `${BY_ENTITY_NEEDS} The example names the entities of an incident (\`IncidentId\`).`,
      tag,
      auth: "incidents:read",
      params: sourceParams,
      query: byEntityQuery,
      response: z.array(incidentSummaryView).meta({ examples: [[incidentSummaryExample]] }),
      async handler(input) {
        const { params, query, workspace } = input;
        const entityQuery: Omit<EntityQuery, "workspaceId"> = {
          incidentId: query.IncidentId,
          entityKind: query.EntityType ?? query.EntityKind,
          entityFilter: query.EntityFilter,
          entityName: query.EntityName,
          timeField: query.TimeFilteringType === "LastModifiedTime" ? "lastModificationTime" : "createdAt",
          startDate: query.StartDate && new Date(query.StartDate).toISOString(),
          endDate: query.EndDate && new Date(query.EndDate).toISOString(),
          limit: BY_ENTITY_LIMIT,
        };
        return { data: await incidentsByEntity(input, workspace, params.source, entityQuery) };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/{incidentId}`,
      summary: "Get an incident, live from its source, with the service's state of it",
      tag,
      auth: "incidents:read",
      params: incidentParams,
      response: incidentView.meta({ examples: [incidentExample] }),
      responseHeaders: ["ETag"],
      async handler(input) {
        const { params } = input;
        const { view, etag } = await readIncident(input, input.workspace, params.source, params.incidentId);
        return { data: view, headers: { ETag: etag } };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/{incidentId}/evidence`,
      summary: "The evidence table of an incident",
      tag,
      auth: "incidents:read",
      params: incidentParams,
      response: z.object({ rows: z.array(z.record(z.string(), z.unknown())) }).meta({ examples: [evidenceExample] }),
      async handler(input) {
        const { params, workspace } = input;
        return { data: await input.sources.gateway(params.source).getEvidence(workspace.id, params.incidentId, input.signal) };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/{incidentId}/last-gamebook`,
      summary: "The newest gamebook run made on an incident, whatever became of it (404 when none was ever made)",
      description:
        "The newest **created** run on the incident at this source, whatever its status: waiting for approval, denied, cancelled, running or ended. A run " +
        "created after another that ran is the answer, even when it never ran itself (a denied retry, say); `GET /gamebooks/by-incident/{incidentId}` lists " +
        "every run, newest created first. 404 when no run was ever made on the incident.",
      tag,
      auth: "incidents:read",
      params: incidentParams,
      response: gamebookRunView.meta({ examples: [gamebookRunExample] }),
      async handler(input) {
        const { params, workspace } = input;
        // The incident must exist at its source: a run of a deleted incident is not shown.
        await input.sources.gateway(params.source).getIncident(workspace.id, params.incidentId, input.signal);
        const run = await lastGamebookRun(input, workspace, params.source, params.incidentId);
        if (!run) throw new ApiError("NOT_FOUND", "No gamebook has run on this incident.", { target: "incidentId" });
        return { data: run };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/{incidentId}/comments`,
      summary: "The comments of an incident, oldest first",
      tag,
      auth: "incidents:read",
      params: commentListParams,
      response: z.array(commentView).meta({ examples: [commentsExample] }),
      responseHeaders: [{ name: TICKET_NOTES_HEADER, definition: TICKET_NOTES_HEADER_DEFINITION, when: "the notes of linked tickets could not be read" }],
      async handler(input) {
        const { params, workspace } = input;
        // Linked tickets' notes join the incident's comments (ticketId, ticketNoteId: docs/contract.md §2.5).
        const { comments, notesAvailable } = await incidentComments(input, workspace, params.source, params.incidentId);
        const headers: Record<string, string> = notesAvailable ? {} : { [TICKET_NOTES_HEADER]: "Unavailable" };
        return { data: comments, headers };
      },
    }),
    workspaceRoute({
      method: "POST",
      path: `${base}/{incidentId}/comments`,
      idempotencyKey: true,
      summary: "Add a comment as your integration, or as the agent it writes for (incident.comment.added.v1)",
      description:
        "An extension of the v2 contract, which took comment create off its surface until a handler takes an explicit source: this one takes it in the " +
        "path, as the list and the delete do. The comment is your integration's: its `extensionId` is your service account's id, so the contract's " +
        "`PUT` and `DELETE …/comments/{commentId}?extensionId=` let you (and only you) edit and delete it. With `agentName` it is that agent's comment (`isAgentComment` " +
        "true; the event's `addedBy.origin` is `agent`), else your integration's (`api`). `incident.comment.added.v1` goes out (its id from the " +
        "comment), and the write joins the workspace's audit trail. `If-Match` (the incident's ETag) is honoured when sent. 404 when the source " +
        "does not have the incident.",
      tag,
      auth: "incidents:comments",
      problems: ["CONFLICT"],
      params: commentListParams,
      body: serviceCommentBody,
      response: commentView.meta({ examples: [serviceCommentViewExample] }),
      successStatus: 201,
      responseHeaders: ["Location"],
      ifMatch: true,
      async handler(input) {
        const { params, body, workspace } = input;
        const target = { workspace, source: params.source, incidentId: params.incidentId, ifMatch: input.header("if-match") };
        const { comment } = await addServiceComment(input, { ...target, message: body.message, agentName: body.agentName });
        const { extensionId: _owner, ...view } = comment;
        const location = `${input.origin}/api/v2${base.replace("{workspaceId}", workspace.id).replace("{source}", params.source)}/${encodeURIComponent(params.incidentId)}/comments/${encodeURIComponent(comment.id)}`;
        return { status: 201, data: view, headers: { Location: location } };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/{incidentId}/comments/{commentId}`,
      summary: "One comment of an incident",
      description: "An extension of the v2 contract: the comment a create answered (its `Location`), as the list shows it (linked tickets' notes included).",
      tag,
      auth: "incidents:read",
      params: commentParams,
      response: commentView.meta({ examples: [commentsExample[0]] }),
      async handler(input) {
        const { params, workspace } = input;
        const { comments } = await incidentComments(input, workspace, params.source, params.incidentId);
        const comment = comments.find((c) => c.id === params.commentId);
        if (!comment) throw notFound("The comment", "commentId");
        return { data: comment };
      },
    }),
    workspaceRoute({
      method: "PUT",
      path: `${base}/{incidentId}/comments/{commentId}`,
      summary: "Edit a comment written by your integration",
      description:
        "An extension of the v2 contract, which took comment update off its surface until a handler takes an explicit source: this one takes it in the " +
        "path, as the list, the create and the delete do. The comment's text is replaced; its author, time and owner stay. As for the delete, " +
        "`extensionId` names the integration that owns the comment (any other is 403), and a comment added through `POST …/comments` is owned by the " +
        "service account that added it: only that account may edit it. A linked ticket's note is 403 (it lives in the ITSM). The edit joins the " +
        "workspace's audit trail, with the text it replaced; no event goes out (the contract's events name a comment added, not one edited). " +
        "`If-Match` (the incident's ETag) is honoured when sent.",
      tag,
      auth: "incidents:comments",
      problems: ["FORBIDDEN", "CONFLICT"],
      params: commentParams,
      query: commentOwnerQuery,
      body: serviceCommentUpdateBody,
      response: commentView.meta({ examples: [commentsExample[0]] }),
      ifMatch: true,
      async handler(input) {
        const { params, query, body, workspace } = input;
        const target = { workspace, source: params.source, incidentId: params.incidentId, ifMatch: input.header("if-match") };
        const { extensionId: _owner, ...view } = await updateServiceComment(input, { ...target, commentId: params.commentId, extensionId: query.extensionId, message: body.message }, input.signal);
        return { data: view };
      },
    }),
    workspaceRoute({
      method: "DELETE",
      path: `${base}/{incidentId}/comments/{commentId}`,
      summary: "Delete a comment written by your integration",
      description:
        "`extensionId` names the integration that owns the comment; any other is 403. A comment added through `POST …/comments` is owned by the " +
        "service account that added it (its id is the comment's `extensionId`): only that account may delete it.",
      tag,
      auth: "incidents:comments",
      problems: ["FORBIDDEN"],
      params: commentParams,
      query: commentOwnerQuery,
      successStatus: 204,
      async handler(input) {
        const { params, query, workspace } = input;
        const comment = await ownedComment(input, { workspace, source: params.source, incidentId: params.incidentId, commentId: params.commentId, extensionId: query.extensionId }, input.signal);
        const gateway = input.sources.gateway(params.source);
        await commitWithin(input.deadline, (signal) => gateway.deleteComment(workspace.id, params.incidentId, params.commentId, signal), input.signal);
        // The write happened at the vendor: its audit event goes to the workspace's outbox on its own.
        await input.events.outbox.record([
          auditRecord(
            input.actor,
            {
              activityType: "IncidentComment",
              activityAction: "Delete",
              targetResourceType: "IncidentComment",
              targetResourceId: `${params.source}/${params.incidentId}/${params.commentId}`,
              targetResourceName: comment.message.slice(0, 100),
              metadata: { extensionId: query.extensionId },
              workspaceId: workspace.id,
              accountId: workspace.accountId,
            },
            outboxScope.workspace(workspace.id),
            input.now(),
          ),
        ], input.deadline);
        return { status: 204 };
      },
    }),
    workspaceRoute({
      method: "PUT",
      path: `${base}/{incidentId}/status`,
      summary: "Change an incident's status",
      tag,
      auth: "incidents:write",
      problems: ["CONFLICT"],
      params: incidentParams,
      body: updateStatusBody,
      successStatus: 204,
      ifMatch: true,
      async handler(input) {
        const { params, body } = input;
        await changeStatus(input, { ...params, workspace: input.workspace, ifMatch: input.header("if-match") }, body);
        return { status: 204 };
      },
    }),
    workspaceRoute({
      method: "PUT",
      path: `${base}/{incidentId}/assignee`,
      summary: "Assign, reassign or (both fields null) unassign an incident",
      tag,
      auth: "incidents:write",
      problems: ["CONFLICT"],
      params: incidentParams,
      body: updateAssigneeBody,
      successStatus: 204,
      ifMatch: true,
      async handler(input) {
        const { params, body } = input;
        await changeAssignee(input, { ...params, workspace: input.workspace, ifMatch: input.header("if-match") }, body);
        return { status: 204 };
      },
    }),
    workspaceRoute({
      method: "POST",
      path: `${base}/{incidentId}/agent-investigations`,
      idempotencyKey: true,
      summary: "Report an agent's completed investigation of an incident (agent.investigation.completed.v1)",
      description:
        "An extension of the v2 contract, which names the event and who receives it but not how an investigation agent reports one: the agent calls this with its " +
        "own service account. When the workspace's agent configuration has a card for the classification naming webhooks, `agent.investigation.completed.v1` " +
        "goes to those of them that subscribe to it; one bound but not subscribed gets a Failed delivery-log entry instead. Without such a card nothing is sent " +
        "(`eventId` null). The event's id comes from the investigation id, so a report sent again with the same `investigationId` is the same event. Every " +
        "report joins the workspace's audit trail. The incident must exist at its source (404).",
      tag,
      auth: "incidents:write",
      params: incidentParams,
      body: agentInvestigationBody,
      response: agentInvestigationResult,
      successStatus: 202,
      async handler(input) {
        const { params, body } = input;
        const result = await completeInvestigation(input, { ...params, workspace: input.workspace, ...body });
        return { status: 202, data: result };
      },
    }),
  ],
};
