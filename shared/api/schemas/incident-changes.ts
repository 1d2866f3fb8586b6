import { z } from "zod";
import { classifications } from "../../model/incidents/incident";
import { updateAssigneeExample, updateStatusExample } from "../examples/incident-examples";

/*
 * The bodies of the changes made to incidents, the same whoever makes them: a service account on the
 * contract's routes, a person on the incident's page or in a bulk action on the incident list. One
 * wording of each rule, whichever request carries it.
 */

/** `{userId, email}`: the assignee; both null unassigns. */
export const assigneeFields = {
  userId: z.string().trim().min(1).max(256).nullable().describe("The user's id; null with a null email unassigns."),
  email: z.email().max(320).nullable().describe("The assignee's e-mail address; null with a null userId unassigns."),
};

/** An assignee needs an e-mail address (a `userId` alone names nobody the vendor knows): `.refine(...assigneeHasEmail)`. */
export const assigneeHasEmail: [(b: { userId: string | null; email: string | null }) => boolean, { path: string[]; message: string }] = [
  (b) => b.email !== null || b.userId === null,
  { path: ["email"], message: "An assignee needs an e-mail address; send both fields null to unassign." },
];

/** A close's comment: it travels on `incident.closed.v1` and to the source. */
export const closingCommentSchema = z.string().trim().min(1).max(4000);

/**
 * A close needs a classification, and only a close takes one or a closing comment: `.superRefine(closeFieldsChecked)`
 * on any body carrying `status`, `classification` and `closingComment`.
 */
export function closeFieldsChecked(body: { status?: string; classification?: string; closingComment?: string }, ctx: z.RefinementCtx): void {
  if (body.status === "Closed" && body.classification === undefined) {
    ctx.addIssue({ code: "custom", path: ["classification"], message: `Closing needs a classification: ${classifications.join(", ")}.` });
  }
  if (body.status !== "Closed") {
    for (const field of ["classification", "closingComment"] as const) {
      if (body[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], message: "Only allowed when status is Closed." });
    }
  }
}

/** `PUT …/status`: a public status goes to the vendor, an internal one stays in the service; closing needs a classification. */
export const updateStatusBody = z
  .object({
    status: z
      .enum(["New", "Active", "Closed", "OnHold", "WaitingOnCustomer"])
      .describe("New, Active or Closed go to the vendor; OnHold and WaitingOnCustomer are the service's own and pause the SLA clock."),
    classification: z.enum(classifications).optional().describe("Required when closing; only allowed then."),
    closingComment: closingCommentSchema.optional().describe("Only when closing."),
  })
  .strict()
  .superRefine(closeFieldsChecked)
  .meta({ examples: [updateStatusExample] });

/** `PUT …/assignee`: `{userId, email}`; both null unassigns. */
export const updateAssigneeBody = z
  .object(assigneeFields)
  .strict()
  .refine(...assigneeHasEmail)
  .meta({ examples: [updateAssigneeExample] });

/** A comment's text, as the vendors take it. */
export const commentMessage = z.string().trim().min(1).max(4000).describe("The comment's text (plain text, at most 4,000 characters).");
