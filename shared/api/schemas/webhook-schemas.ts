import { z } from "zod";
import { subscribableEventTypes } from "../../model/events/event-types";
import { createWebhookExample, endpointCredentialsExample, updateCredentialsExample, updateWebhookExample } from "../examples/webhook-examples";
import { webhookAuthenticationTypes } from "../../model/webhooks/webhook";

/*
 * The bodies that configure a webhook, whoever sends them: a service account through the contract's
 * routes, a person through the portal's. One set of rules for both.
 */

const eventTypesField = z
  .array(z.enum(subscribableEventTypes as [string, ...string[]], { error: `Must be one of ${subscribableEventTypes.join(", ")} (webhook.test.v1 is not subscribable).` }))
  .min(1, "Subscribe to at least one event type.")
  .max(subscribableEventTypes.length)
  .refine((types) => new Set(types).size === types.length, "Each event type may be listed once.");

const monitoredAccountIds = z.array(z.guid()).max(1000);

const webhookFields = {
  name: z.string().trim().min(1).max(200),
  url: z.string().trim().min(1).max(2048).describe("HTTPS endpoint on a public address."),
  eventTypes: eventTypesField,
  monitoredAccountIds: monitoredAccountIds
    .default([])
    .describe("Provider webhooks: only events of these accounts; the provider's own only when listed too. Empty or left out: the provider's own and every managed account's."),
};

const endpointCredentialFields = {
  authenticationType: z.enum(webhookAuthenticationTypes).default("None"),
  token: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe("The endpoint credential: Bearer token, `user:password` for Basic, or the key sent in `X-Api-Key` for ApiKey."),
};

const credentialFields = {
  ...endpointCredentialFields,
  signingToken: z
    .string()
    .min(16)
    .max(512)
    .optional()
    .describe("Overrides the generated signing secret; with Bearer credentials only."),
};

/** Token present exactly when the authentication type needs one; a signing override only with Bearer. */
function checkCredentials(body: { authenticationType: string; token?: string; signingToken?: string }, ctx: z.RefinementCtx): void {
  if (body.authenticationType === "None" && body.token !== undefined) {
    ctx.addIssue({ code: "custom", path: ["token"], message: "Not used with authenticationType None." });
  }
  if (body.authenticationType !== "None" && body.token === undefined) {
    ctx.addIssue({ code: "custom", path: ["token"], message: `Required with authenticationType ${body.authenticationType}.` });
  }
  if (body.authenticationType === "Basic" && body.token !== undefined && !body.token.includes(":")) {
    ctx.addIssue({ code: "custom", path: ["token"], message: "Basic needs `user:password`." });
  }
  if (body.signingToken !== undefined && body.authenticationType !== "Bearer") {
    ctx.addIssue({ code: "custom", path: ["signingToken"], message: "A signing override goes with Bearer credentials only." });
  }
}

export const createWebhookBody = z
  .object({ ...webhookFields, ...credentialFields })
  .strict()
  .superRefine(checkCredentials)
  .meta({ examples: [createWebhookExample] });

/**
 * PUT replaces the configuration, every field of it: `monitoredAccountIds` too, so that leaving it out
 * can never widen the webhook to every managed account. Credentials change apart.
 */
export const updateWebhookBody = z
  .object({
    ...webhookFields,
    monitoredAccountIds: monitoredAccountIds.describe(
      "Provider webhooks: only events of these accounts; the provider's own only when listed too. Empty: the provider's own and every managed account's. " +
        "Required: a change never widens what the webhook receives by leaving it out.",
    ),
  })
  .strict()
  .meta({ examples: [updateWebhookExample] });

export const updateCredentialsBody = z
  .object({
    ...credentialFields,
    rotateSigningSecret: z
      .boolean()
      .default(false)
      .describe("Issue a new signing secret (shown once); the previous one keeps signing alongside for 24 hours."),
  })
  .strict()
  .superRefine(checkCredentials)
  .meta({ examples: [updateCredentialsExample] });

/** The endpoint credential alone: what the receiver checks on each delivery. The signing secret rotates apart. */
export const endpointCredentialsBody = z
  .object(endpointCredentialFields)
  .strict()
  .superRefine(checkCredentials)
  .meta({ examples: [endpointCredentialsExample] });
