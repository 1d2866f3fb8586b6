import { z } from "zod";

/*
 * The parts of a change to an incident that every caller sends alike: a service account's single
 * write (`PUT …/assignee`, `PUT …/status`) and a person's bulk action in the portal. One wording of
 * each rule, whichever request carries it.
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
