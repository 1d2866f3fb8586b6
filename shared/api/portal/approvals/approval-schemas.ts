import { z } from "zod";

export const approveBody = z
  .strictObject({ comment: z.string().trim().min(1).max(2000).optional().describe("A note kept with the approval.") })
  .default({})
  .meta({ examples: [{ comment: "Confirmed with the customer's on-call: contain." }] });

export const denyBody = z
  .strictObject({ reason: z.string().trim().min(1).max(2000).describe("Why the run must not happen; kept with the denial and audited.") })
  .meta({ examples: [{ reason: "The sign-ins are from the user's travel; confirmed by phone." }] });
