import { z } from "zod";

/*
 * How a caller names a ticket, on the contract's ticket routes and on the incident's page: by the
 * ITSM's id or by its number, exactly one of the two (analysts know numbers, automation ids).
 */

export const ticketId = z.string().trim().min(1).max(128).describe("The ITSM's stable id of the ticket (ServiceNow `sys_id`, Jira issue id).");
export const ticketNumber = z.string().trim().min(1).max(64).describe("The ticket's human-facing number (`INC0012345`, `SEC-1234`), case-insensitive.");

/**
 * A body that names a ticket by exactly one of its id and its number, for the OpenAPI document: what
 * `oneTicket` checks, which the fields' own schemas cannot say.
 */
export const ONE_TICKET = { oneOf: [{ required: ["ticketId"] }, { required: ["ticketNumber"] }] };

/** Names a ticket by the ITSM's id or by its number: exactly one of the two. */
export function oneTicket<T extends { ticketId?: string; ticketNumber?: string }>(value: T, ctx: z.RefinementCtx): void {
  if ((value.ticketId === undefined) === (value.ticketNumber === undefined)) {
    ctx.addIssue({ code: "custom", message: "Name the ticket by exactly one of ticketId and ticketNumber.", path: [] });
  }
}


/** A ticket named on its own (the incident is in the path): exactly one of its id and its number. */
export const ticketNameBody = z
  .strictObject({ ticketId: ticketId.optional(), ticketNumber: ticketNumber.optional() })
  .superRefine(oneTicket)
  .describe("The ticket, by exactly one of its id and its number.");
