import { z } from "zod";
import { errorCodes } from "../../../platform/errors/api-error";
import { classifications } from "../../../model/incidents/incident";
import { sourceSchema, sources } from "../../../model/sources";
import { assigneeFields, assigneeHasEmail, closeFieldsChecked, closingCommentSchema } from "../../schemas/incident-changes";
import { EXAMPLE_ANALYST, EXAMPLE_INCIDENT, EXAMPLE_INTEGRATION_COMMENT, EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";

/**
 * Incidents one bulk action may name. A listing page holds about 200, so "select all shown" of a
 * page fits one request; and 250 changes, 8 at a time, each a vendor read and a vendor write of a few
 * hundred milliseconds, end within the request's 20 s budget. About 100 KB of body at most, well
 * under the default body limit.
 */
export const BULK_MAX_INCIDENTS = 250;

const bulkIncident = z.strictObject({
  workspaceId: z.guid().describe("The incident's workspace."),
  source: sourceSchema(sources),
  incidentId: z.string().min(1).max(256).describe("The source's own incident id."),
  etag: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe(
      "The incident's version as you saw it (`etag` of `POST /portal/incidents/search`, or the `ETag` of a read): the first change applies only if " +
        "the incident is still at that version, as `If-Match` does; otherwise that incident is refused with `CONFLICT` and nothing is changed. The " +
        "status after an assignment follows on the version the assignment left. Absent: applied to the incident as it is.",
    ),
});

/**
 * The changes one bulk request makes to every incident named, as Microsoft Sentinel's bulk update sets
 * owner, status and classification together: the assignee, the status (a close with its
 * classification), or both; applied to each incident in that order.
 */
const bulkChanges = z
  .strictObject({
    assignee: z
      .strictObject(assigneeFields)
      .refine(...assigneeHasEmail)
      .optional()
      .describe("Assign every incident to the person (the e-mail address is required), or with both fields null unassign them. Applied first."),
    status: z
      .enum(["New", "Active", "OnHold", "WaitingOnCustomer", "Closed"])
      .optional()
      .describe(
        "Applied after the assignee. New, Active and Closed go to the source; OnHold and WaitingOnCustomer are the service's own and pause the SLA " +
          "clock (a closed incident cannot take them: `VALIDATION_ERROR` at that incident). Closed needs `classification`; an incident closed " +
          "already, by anyone, is refused (`CONFLICT`), never closed again over that close.",
      ),
    classification: z.enum(classifications).optional().describe("Required when closing; only allowed then."),
    closingComment: closingCommentSchema.optional().describe("Only when closing. Travels on `incident.closed.v1` and to the source."),
  })
  .superRefine(closeFieldsChecked)
  .refine((c) => c.assignee !== undefined || c.status !== undefined, { message: "Name at least one change: `assignee`, `status`, or both." })
  .describe("What to change on every incident named: at least one of `assignee` and `status`.");

/** The changes of a bulk request, by the body's field that asks for each, in the order they are applied. */
export const bulkChangeNames = ["assignee", "status"] as const;
export type BulkChangeName = (typeof bulkChangeNames)[number];

/** Where an incident sits in the request, for problems: `incidents.<i>`. */
const identityOf = (i: { workspaceId: string; source: string; incidentId: string }) => `${i.workspaceId.toLowerCase()}/${i.source}/${i.incidentId}`;

export const bulkActionBody = z
  .strictObject({
    incidents: z
      .array(bulkIncident)
      .min(1)
      .max(BULK_MAX_INCIDENTS)
      .describe(`The incidents, 1 to ${BULK_MAX_INCIDENTS}, each at most once, across any workspaces of your organization.`),
    changes: bulkChanges,
  })
  .superRefine((body, ctx) => {
    // One incident named twice would be two changes racing each other, or the second undoing the
    // first: a client's mistake, refused before anything is changed.
    const first = new Map<string, number>();
    body.incidents.forEach((incident, i) => {
      const key = identityOf(incident);
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, i);
      else ctx.addIssue({ code: "custom", path: ["incidents", i], message: `Names the same incident as incidents[${earlier}]; name each incident once.` });
    });
  })
  .meta({
    examples: [
      {
        incidents: [
          { workspaceId: EXAMPLE_WORKSPACE_ID, source: EXAMPLE_INCIDENT.source, incidentId: EXAMPLE_INCIDENT.id },
          { workspaceId: EXAMPLE_WORKSPACE_ID, source: "SourceA", incidentId: EXAMPLE_INTEGRATION_COMMENT.incidentId },
        ],
        changes: { assignee: { userId: EXAMPLE_ANALYST.id, email: EXAMPLE_ANALYST.email }, status: "Closed", classification: "FalsePositive", closingComment: "Scanner noise from the weekly sweep." },
      },
      {
        incidents: [{ workspaceId: EXAMPLE_WORKSPACE_ID, source: EXAMPLE_INCIDENT.source, incidentId: EXAMPLE_INCIDENT.id, etag: '"Vb0xq2Lm9RkT4wHcN8aJ1e"' }],
        changes: { status: "OnHold" },
      },
    ],
  });

export type BulkActionBody = z.output<typeof bulkActionBody>;
export type BulkChanges = BulkActionBody["changes"];
export type BulkIncident = BulkActionBody["incidents"][number];

export const bulkOutcomes = ["Succeeded", "Refused", "NotAttempted", "InProgress"] as const;
export type BulkOutcome = (typeof bulkOutcomes)[number];

const itemProblem = z
  .object({
    code: z.enum(Object.keys(errorCodes) as [keyof typeof errorCodes, ...(keyof typeof errorCodes)[]]).describe("The code the same change of this incident alone would have answered."),
    status: z.int().describe("The HTTP status that change alone would have answered."),
    detail: z.string(),
    target: z.string().optional().describe("The field or identifier concerned."),
  })
  .describe("Why a change was not made (or not yet known to be).");

/** The example's refusal: assigned, then found closed by someone else. */
const closedAlready = {
  code: "CONFLICT",
  status: 409,
  detail: "The incident is closed already, since 2026-03-02T09:12:40.118Z, by Jonas Becker in the portal; it is not closed again over that close.",
  target: "status",
} as const;

const changeResult = z
  .object({
    change: z.enum(bulkChangeNames).describe("The change, by the body's field that asked for it."),
    outcome: z
      .enum(bulkOutcomes)
      .describe(
        "`Succeeded`: made, in its own commit, with its events and audit record, as the single write makes it. `Refused`: not made, `problem` " +
          "says why. `NotAttempted`: not started, because the request's time ran out first or a change before it on this incident was refused " +
          "(`problem` says which). `InProgress`: still being made when the answer went out; it completes on its own.",
      ),
    problem: itemProblem.nullable(),
  })
  .describe("One change to one incident.");

export const bulkActionResult = z
  .object({
    results: z
      .array(
        z.object({
          workspaceId: z.string(),
          source: z.enum(sources),
          incidentId: z.string(),
          outcome: z
            .enum(bulkOutcomes)
            .describe(
              "The incident as a whole. `Succeeded`: every change made. `Refused`: a change was refused (`problem` says why, `changes` which); a " +
                "change made before it stays made, nothing is rolled back. `NotAttempted`: none refused, but not every change started because the " +
                "request's time ran out first; send those again. `InProgress`: a change still being made when the answer went out; it completes on " +
                "its own, so read the incident before sending it again.",
            ),
          problem: itemProblem.nullable().describe("Why not every change was made: that of the change refused, not started or under way; null when all were made."),
          changes: z.array(changeResult).describe("Each change asked for, in the order they are applied: the assignee first, then the status."),
        }),
      )
      .describe("One per incident named, in the request's order."),
    succeeded: z.int(),
    refused: z.int(),
    notAttempted: z.int(),
    inProgress: z.int(),
  })
  .meta({
    examples: [
      {
        results: [
          {
            workspaceId: EXAMPLE_WORKSPACE_ID,
            source: EXAMPLE_INCIDENT.source,
            incidentId: EXAMPLE_INCIDENT.id,
            outcome: "Succeeded",
            problem: null,
            changes: [
              { change: "assignee", outcome: "Succeeded", problem: null },
              { change: "status", outcome: "Succeeded", problem: null },
            ],
          },
          {
            workspaceId: EXAMPLE_WORKSPACE_ID,
            source: "SourceA",
            incidentId: EXAMPLE_INTEGRATION_COMMENT.incidentId,
            outcome: "Refused",
            problem: closedAlready,
            changes: [
              { change: "assignee", outcome: "Succeeded", problem: null },
              { change: "status", outcome: "Refused", problem: closedAlready },
            ],
          },
        ],
        succeeded: 1,
        refused: 1,
        notAttempted: 0,
        inProgress: 0,
      },
    ],
  });

export type BulkActionResult = z.output<typeof bulkActionResult>;
export type BulkItemResult = BulkActionResult["results"][number];
export type BulkChangeResult = BulkItemResult["changes"][number];
