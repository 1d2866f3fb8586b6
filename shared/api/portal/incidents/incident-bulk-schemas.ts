import { z } from "zod";
import { errorCodes } from "../../../platform/errors/api-error";
import { classifications } from "../../../model/incidents/incident";
import { sourceSchema, sources } from "../../../model/sources";
import { assigneeFields, assigneeHasEmail, closingCommentSchema } from "../../schemas/incident-changes";
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
      "The incident's version as you saw it (`etag` of `POST /portal/incidents/search`, or the `ETag` of a read): the change applies only if the " +
        "incident is still at that version, as `If-Match` does; otherwise that incident is refused with `CONFLICT`. Absent: applied to the incident as it is.",
    ),
});

/** The statuses a bulk action may set; `Closed` is the close action, which takes a classification. */
const bulkStatuses = ["New", "Active", "OnHold", "WaitingOnCustomer"] as const;

const bulkAction = z
  .discriminatedUnion("type", [
    z
      .strictObject({ type: z.literal("Assign"), ...assigneeFields })
      .refine(...assigneeHasEmail)
      .describe("Assign every incident to the person (the e-mail address is required), or with both fields null unassign them."),
    z
      .strictObject({
        type: z.literal("SetStatus"),
        status: z.enum(bulkStatuses).describe("New or Active go to the source; OnHold and WaitingOnCustomer are the service's own and pause the SLA clock."),
      })
      .describe("Set every incident's status. A closed incident cannot be put OnHold or WaitingOnCustomer (`VALIDATION_ERROR` at that incident)."),
    z
      .strictObject({
        type: z.literal("Close"),
        classification: z.enum(classifications),
        closingComment: closingCommentSchema.optional().describe("Travels on `incident.closed.v1` and to the source."),
      })
      .describe("Close every incident with the classification. One closed already, by anyone, is refused (`CONFLICT`), never closed again over that close."),
  ])
  .describe("What to do to every incident named.");

/** Where an incident sits in the request, for problems: `incidents.<i>`. */
const identityOf = (i: { workspaceId: string; source: string; incidentId: string }) => `${i.workspaceId.toLowerCase()}/${i.source}/${i.incidentId}`;

export const bulkActionBody = z
  .strictObject({
    incidents: z
      .array(bulkIncident)
      .min(1)
      .max(BULK_MAX_INCIDENTS)
      .describe(`The incidents, 1 to ${BULK_MAX_INCIDENTS}, each at most once, across any workspaces of your organization.`),
    action: bulkAction,
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
        action: { type: "Assign", userId: EXAMPLE_ANALYST.id, email: EXAMPLE_ANALYST.email },
      },
    ],
  });

export type BulkActionBody = z.output<typeof bulkActionBody>;
export type BulkAction = BulkActionBody["action"];
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
  .describe("Why the incident was not changed (or not yet known to be).");

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
              "`Succeeded`: changed, in its own commit, with its events and audit record. `Refused`: not changed, `problem` says why. " +
                "`NotAttempted`: not started because the request's time ran out first; nothing was changed, send it again. `InProgress`: still being " +
                "changed when the answer went out; it completes on its own, so read the incident before sending it again.",
            ),
          problem: itemProblem.nullable(),
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
          { workspaceId: EXAMPLE_WORKSPACE_ID, source: EXAMPLE_INCIDENT.source, incidentId: EXAMPLE_INCIDENT.id, outcome: "Succeeded", problem: null },
          {
            workspaceId: EXAMPLE_WORKSPACE_ID,
            source: "SourceA",
            incidentId: EXAMPLE_INTEGRATION_COMMENT.incidentId,
            outcome: "Refused",
            problem: {
              code: "CONFLICT",
              status: 409,
              detail:
                "The incident has changed since you read it (If-Match does not match its ETag): it is closed now, since 2026-03-02T09:12:40.118Z, by Jonas Becker in the portal.",
              target: "If-Match",
            },
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
