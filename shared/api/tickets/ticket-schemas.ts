import { z } from "zod";
import { EXAMPLE_INCIDENT, EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";
import { sourceSchema, sources } from "../../model/sources";
import { ticketPriorities, ticketStates, type Ticket } from "../../systems/itsm/port";
import { linkedByView } from "../../domain/tickets/ticket-link-view";
import { ONE_TICKET, oneTicket, ticketId, ticketNumber } from "../../domain/tickets/ticket-names";

// Examples are the local host's own data for the default DEMO_SEED and incident count (workspace
// fabrikam-sentinel-prod, its Jira-style desk); test/api/tickets.test.ts sends them to the local host.
export const EXAMPLE_INCIDENT_ID = EXAMPLE_INCIDENT.id;
export const EXAMPLE_TICKET = { ticketId: "12219", ticketNumber: "SEC-2219", groupingId: "case-b0d15480" };
/** A link the demo holds (the gamebook run example's incident and SEC-2228): what the link read example reads. */
export const EXAMPLE_LINKED = {
  id: "beffa9d7-bf61-86d8-bef4-7a6bf6670a48",
  source: "SourceA",
  incidentId: "effe7c24-f901-892c-9d77-16282227156c",
  ticketId: "12228",
  ticketNumber: "SEC-2228",
} as const;

const timestamp = z.string().describe("UTC ISO 8601 timestamp.");
const incidentId = z.string().trim().min(1).max(256).describe("The source's own incident id.");

export const workspaceParams = z.object({ workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }) }).strict();
export const linkParams = workspaceParams.extend({ linkId: z.guid().describe("The link's `id`, as linking answered it.").meta({ examples: [EXAMPLE_LINKED.id] }) }).strict();

/** The rule of the search's two parameters, which a parameter's schema cannot say. */
export const SEARCH_NEEDS = "Give `groupingId`, `ticketNumber` or both: a search with neither is 400 `VALIDATION_ERROR`.";

export const ticketSearchQuery = z
  .object({
    groupingId: z
      .string()
      .trim()
      .min(1)
      .max(256)
      .optional()
      .describe(
        "The correlation key tickets carry for the SOC (ServiceNow `correlation_id`, a Jira label): typically an incident id or a case id. Exact match. " +
          SEARCH_NEEDS,
      )
      .meta({ examples: [EXAMPLE_TICKET.groupingId] }),
    ticketNumber: ticketNumber
      .optional()
      .describe(`The ticket's human-facing number (\`INC0012345\`, \`SEC-1234\`), case-insensitive. ${SEARCH_NEEDS}`)
      .meta({ examples: [EXAMPLE_TICKET.ticketNumber] }),
  })
  .strict()
  .refine((q) => q.groupingId !== undefined || q.ticketNumber !== undefined, { message: "Give groupingId, ticketNumber or both." });

const linkPairShape = {
  source: sourceSchema(sources).describe("The incident's source (case-insensitive)."),
  incidentId,
  ticketId: ticketId.optional(),
  ticketNumber: ticketNumber.optional(),
};

export const linkBody = z
  .object(linkPairShape)
  .strict()
  .superRefine(oneTicket)
  .describe("The incident and the ticket to link; the ticket by exactly one of its id and its number.")
  .meta({ ...ONE_TICKET, examples: [{ source: "SourceA", incidentId: EXAMPLE_INCIDENT_ID, ticketNumber: EXAMPLE_TICKET.ticketNumber }] });

export const unlinkBody = z
  .object(linkPairShape)
  .strict()
  .superRefine(oneTicket)
  .describe("The linked pair to remove; the ticket by exactly one of its id and its number, as stored in the link.")
  .meta({ ...ONE_TICKET, examples: [{ source: "SourceA", incidentId: EXAMPLE_INCIDENT_ID, ticketNumber: EXAMPLE_TICKET.ticketNumber }] });

export const priorityBody = z
  .object({
    ticketId: ticketId.optional(),
    ticketNumber: ticketNumber.optional(),
    priority: z.enum(ticketPriorities).describe("P1 (most urgent) to P5; ServiceNow's 1–5 and Jira's Highest–Lowest map one to one."),
    reason: z.string().trim().min(1).max(500).optional().describe("Why, for the audit trail (not sent to the ITSM)."),
  })
  .strict()
  .superRefine(oneTicket)
  .describe("The ticket, by exactly one of its id and its number, and its new priority.")
  .meta({ ...ONE_TICKET, examples: [{ ticketNumber: EXAMPLE_TICKET.ticketNumber, priority: "P1", reason: "Confirmed ransomware precursor on a file server." }] });

const incidentLinkView = z.object({
  id: z.string(),
  source: z.enum(sources),
  incidentId: z.string(),
  linkedAt: timestamp,
  linkedBy: linkedByView,
});

export const ticketView = z
  .object({
    ticketSystem: z.string(),
    ticketId: z.string(),
    ticketNumber: z.string(),
    url: z.string(),
    title: z.string(),
    status: z.string().describe("The ITSM's own status text."),
    state: z.enum(ticketStates).describe("Where the ticket stands, whatever the ITSM's workflow calls it."),
    priority: z.enum(ticketPriorities),
    groupingIds: z.array(z.string()).describe("Correlation keys the ticket carries."),
    assignmentGroup: z.string().nullable(),
    assignee: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .describe("An ITSM ticket as it stands now.");

export const ticketSearchResult = ticketView
  .extend({ links: z.array(incidentLinkView).describe("Incidents of this workspace linked to the ticket, oldest link first.") })
  .describe("A ticket found by the search, with the workspace's incidents linked to it.");

export function toTicketView(ticket: Ticket): z.infer<typeof ticketView> {
  const { system, ...rest } = ticket;
  return { ticketSystem: system, ...rest, groupingIds: [...ticket.groupingIds] };
}
