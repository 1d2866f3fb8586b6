import { z } from "zod";
import { classifications, entityKinds } from "../../model/incidents/incident";
import { EXAMPLE_INCIDENT, EXAMPLE_INTEGRATION_COMMENT, EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";
import { commentPathSources, sourceSchema, sources } from "../../model/sources";
import { agentInvestigationExample, agentInvestigationResultExample, serviceCommentExample, serviceCommentUpdateExample } from "../examples/incident-examples";
import { commentMessage } from "../schemas/incident-changes";
import type { HeaderDefinition } from "../../platform/http/documented-headers";

const timestamp = z.iso.datetime({ offset: true });
const incidentId = z.string().min(1).max(256).describe("The source's own incident id.");
const workspaceId = z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] });
const exampleSource = <S extends z.ZodType>(schema: S) => schema.meta({ examples: [EXAMPLE_INCIDENT.source] });

export const incidentParams = z.object({ workspaceId, source: exampleSource(sourceSchema(sources)), incidentId: incidentId.meta({ examples: [EXAMPLE_INCIDENT.id] }) });
export const commentListParams = z.object({
  workspaceId,
  source: exampleSource(sourceSchema(commentPathSources)),
  incidentId: incidentId.meta({ examples: [EXAMPLE_INCIDENT.id] }),
});
/** The delete example removes a comment the SOAR connector wrote, on an incident of its own. */
export const commentParams = z.object({
  workspaceId,
  source: exampleSource(sourceSchema(commentPathSources)),
  incidentId: incidentId.meta({ examples: [EXAMPLE_INTEGRATION_COMMENT.incidentId] }),
  commentId: z.string().min(1).max(256).meta({ examples: [EXAMPLE_INTEGRATION_COMMENT.commentId] }),
});
export const sourceParams = z.object({ workspaceId, source: exampleSource(sourceSchema(sources)) });

/** The owner a changed comment must have: the delete's `extensionId` (docs/contract.md §4.1), and the edit's. */
export const commentOwnerQuery = z
  .object({
    extensionId: z.string().trim().min(1).max(256).describe("The integration that owns the comment.").meta({ examples: [EXAMPLE_INTEGRATION_COMMENT.extensionId] }),
  })
  .strict();

const entityKindSchema = z.enum(entityKinds);

/** `by-entity` query: the contract's PascalCase parameter names, all optional. */
/** The rule of the entity parameters, which a parameter's schema cannot say. */
export const BY_ENTITY_NEEDS = "Give at least one of `IncidentId`, `EntityName` and `EntityFilter`: a query naming no entity is 400 `VALIDATION_ERROR`.";

export const byEntityQuery = z
  .object({
    IncidentId: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe(`Find incidents sharing an entity with this incident. ${BY_ENTITY_NEEDS}`)
      .meta({ examples: [EXAMPLE_INCIDENT.id] }),
    EntityKind: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return undefined;
        const kind = entityKinds.find((k) => k.toLowerCase() === v.toLowerCase());
        if (!kind) ctx.addIssue({ code: "custom", message: `Must be one of ${entityKinds.join(", ")}.` });
        return kind;
      })
      .describe(`Entity kind, case-insensitive: ${entityKinds.join(", ")}.`),
    EntityFilter: z.string().min(1).max(256).optional().describe(`Substring of the entity name, case-insensitive. ${BY_ENTITY_NEEDS}`),
    EntityName: z.string().min(1).max(256).optional().describe(`Exact entity name, case-insensitive. ${BY_ENTITY_NEEDS}`),
    EntityType: entityKindSchema.optional().describe("Same as EntityKind, as an enum."),
    TimeFilteringType: z.enum(["CreatedTime", "LastModifiedTime"]).optional().describe("Which time StartDate/EndDate bound; default CreatedTime."),
    StartDate: timestamp.optional(),
    EndDate: timestamp.optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.EntityKind && q.EntityType && q.EntityKind !== q.EntityType) {
      ctx.addIssue({ code: "custom", path: ["EntityType"], message: "EntityKind and EntityType disagree." });
    }
    if (q.StartDate && q.EndDate && Date.parse(q.StartDate) >= Date.parse(q.EndDate)) {
      ctx.addIssue({ code: "custom", path: ["EndDate"], message: "EndDate must be after StartDate." });
    }
    if (!q.IncidentId && !q.EntityName && !q.EntityFilter) {
      ctx.addIssue({ code: "custom", message: "Name the entity: IncidentId, EntityName or EntityFilter." });
    }
  });

/** An agent's report of a completed investigation (the contract's `agent.investigation.completed.v1`). */
export const agentInvestigationBody = z
  .strictObject({
    investigationId: z
      .guid()
      .optional()
      .describe("Your id for the investigation: report it again with the same id (after a timeout, say) and it is the same event. Absent: the service assigns one."),
    classification: z.enum(classifications).describe("The verdict's bucket: the classification whose card decides which webhooks hear of it."),
    maliciousScore: z
      .int()
      .min(0)
      .max(100)
      .nullable()
      .default(null)
      .describe("0 to 100, high is more malicious; not a confidence. null (the default) on the legacy path, which has no score."),
    summary: z.string().trim().min(1).max(4000).nullable().default(null).describe("What the agent found, for the people who receive the event."),
  })
  .meta({ examples: [agentInvestigationExample] });

export const agentInvestigationResult = z
  .object({
    investigationId: z.guid(),
    eventId: z.string().nullable().describe("The `agent.investigation.completed.v1` sent; null when the classification's card names no webhook."),
    webhookIds: z.array(z.guid()).describe("The webhooks the card names: each gets the event if it subscribes to it, else a Failed delivery-log entry."),
  })
  .meta({ examples: [agentInvestigationResultExample] });

/** A comment an integration adds (an extension of the contract: see the route). */
export const serviceCommentUpdateBody = z.strictObject({ message: commentMessage }).meta({ examples: [serviceCommentUpdateExample] });

export const serviceCommentBody = z
  .strictObject({
    message: commentMessage,
    agentName: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("The agent the integration writes for: the comment is then that agent's (`isAgentComment` true, `agentName` this). Absent: the integration's own comment."),
  })
  .meta({ examples: [serviceCommentExample] });

/** Set on the comments response when the notes of linked tickets could not be read. */
export const TICKET_NOTES_HEADER = "X-Ticket-Notes";

/** `X-Ticket-Notes` as the OpenAPI document describes it. */
export const TICKET_NOTES_HEADER_DEFINITION: HeaderDefinition = {
  description: "`Unavailable`: the notes of the incident's linked tickets could not be read (ticketing switched off for the workspace, or the ITSM failing); the comments are the source's and the links' own.",
  schema: { type: "string", enum: ["Unavailable"] },
  example: "Unavailable",
};
