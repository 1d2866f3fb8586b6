import { z } from "zod";
import { personRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { EXAMPLE_RETIRED_WEBHOOK_ID } from "../../../platform/http/examples";
import { EXAMPLE_TICKET_RELAY_WEBHOOK_ID, portalCreatedWebhookExample, signingSecretRotatedExample, webhookExample } from "../../examples/webhook-examples";
import { deliveryAttempt, deliveryAttemptView } from "./delivery-attempt";
import { findDeliveryLogEntry } from "../../../domain/webhooks/delivery-log-access";
import { sendTestEvent } from "../../../domain/webhooks/test-event";
import { stateActionsOf } from "../../../domain/webhooks/webhook-changes";
import { createWebhookBody, endpointCredentialsBody, updateWebhookBody } from "../../schemas/webhook-schemas";
import { toWebhookView, webhookView } from "../../schemas/webhook-view";
import { changeWebhookCredentials, createWebhook, deleteWebhook, previousKeyRetiresAt, updateWebhook } from "../../../domain/webhooks/webhook-writes";
import type { WebhookRecord } from "../../../model/webhooks/webhook";
import { personSeesWorkspace } from "../../../domain/organizations/mapped-workspaces";
import { OPERATORS, webhookOf } from "./portal-webhook-access";
import { acceptedView, entryParams, entryQuery, webhookParams, webhookStateView } from "./webhook-health-schemas";

const tag = "Portal: webhooks";
const base = "/portal/webhooks";

const webhookId = z.guid().describe("The webhook's id.");
// The examples that change a configuration or remove one each name a retired demo webhook of their own.
const retiredParams = z.object({ webhookId: webhookId.meta({ examples: [EXAMPLE_RETIRED_WEBHOOK_ID] }) });
const relayParams = z.object({ webhookId: webhookId.meta({ examples: [EXAMPLE_TICKET_RELAY_WEBHOOK_ID] }) });

const actionsField = webhookStateView.shape.actions;
const signingSecretField = z.string().describe("Shown once, in this answer only: the new signing secret (`whsec_` + base64). Store it now; it is never shown again.");

const createdView = z
  .object({ webhook: webhookView, actions: actionsField, signingSecret: signingSecretField.optional().describe("Shown once: the generated signing secret; absent when `signingToken` was supplied.") })
  .meta({ examples: [portalCreatedWebhookExample] });

const rotatedView = z
  .object({
    webhook: webhookView,
    actions: actionsField,
    signingSecret: signingSecretField,
    previousSecretRetiresAt: z.string().nullable().describe("Until then the previous secret keeps signing beside the new one (both signatures in each header), so receivers can switch."),
  })
  .meta({ examples: [signingSecretRotatedExample] });

const stateOf = (w: WebhookRecord) => ({ webhook: toWebhookView(w), actions: stateActionsOf(w.status) });

/**
 * Configuring the organization's webhooks in the portal, as Svix's and Stripe's endpoint pages do:
 * create one (its signing secret shown once), change it, delete it, send it a test event, rotate its
 * signing secret or change its endpoint credential, and open one delivery attempt to see what was
 * sent and what the receiver answered. The contract's operations (`/webhooks`), done as the person:
 * the same rules and audit events, the person as actor. `WorkspaceAdmin` and `Admin` act; anyone of
 * the organization reads; another organization's webhook is 404.
 */
export const portalWebhookConfigurationRoutes: RouteGroup = {
  name: "portal-webhook-configuration",
  routes: [
    personRoute({
      method: "POST",
      path: base,
      idempotencyKey: true,
      responseHeaders: ["Location", "ETag"],
      summary: "Create a webhook of your organization: its signing secret is in this answer only",
      description:
        "As the contract's create: an HTTPS URL on public addresses (no credentials in it), at least one subscribable event type, monitored " +
        "accounts of your organization (empty: every managed account), and the endpoint credential its authentication type needs. It belongs to " +
        "your own account. Audited.",
      tag,
      roles: OPERATORS,
      body: createWebhookBody,
      response: createdView,
      successStatus: 201,
      async handler(input) {
        const { saved, signingSecret } = await createWebhook(input, input.person, input.body);
        return {
          status: 201,
          data: { ...stateOf(saved.value), ...(signingSecret ? { signingSecret } : {}) },
          headers: { Location: `${input.origin}/api/v2${base}/${saved.value.id}`, ETag: saved.etag },
        };
      },
    }),
    personRoute({
      method: "PUT",
      path: `${base}/{webhookId}`,
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Change a webhook's name, URL, event types and monitored accounts (all four)",
      description:
        "The URL is checked as at creation when it changes. `If-Match` (the webhook's ETag) is honoured when sent: a mismatch is 409 and " +
        "changes nothing. Credentials change apart. Audited.",
      tag,
      roles: OPERATORS,
      params: retiredParams,
      body: updateWebhookBody,
      problems: ["CONFLICT"],
      response: webhookStateView,
      async handler(input) {
        const saved = await updateWebhook(input, input.person, () => webhookOf(input), input.body, input.header("if-match"));
        return { data: stateOf(saved.value), headers: { ETag: saved.etag } };
      },
    }),
    personRoute({
      method: "DELETE",
      path: `${base}/{webhookId}`,
      ifMatch: true,
      summary: "Delete a webhook: nothing more is delivered to it",
      description: "Deliveries still queued for it are dropped; its delivery log expires as usual. `If-Match` honoured when sent. Audited.",
      tag,
      roles: OPERATORS,
      params: relayParams,
      problems: ["CONFLICT"],
      successStatus: 204,
      async handler(input) {
        await deleteWebhook(input, () => webhookOf(input), input.header("if-match"));
        return { status: 204 };
      },
    }),
    personRoute({
      method: "POST",
      path: `${base}/{webhookId}/test`,
      idempotencyKey: true,
      summary: "Send a webhook.test.v1 event to this webhook",
      description:
        "Sample data, sent whatever the webhook's subscriptions or state, never counted for auto-disable. Answers 202 with the event id: the " +
        "attempt shows up in the delivery log once sent, with the start of the receiver's answer. Audited.",
      tag,
      roles: OPERATORS,
      params: webhookParams,
      successStatus: 202,
      response: acceptedView,
      async handler(input) {
        const { eventId } = await sendTestEvent(input, (await webhookOf(input)).value);
        return { status: 202, data: { eventId, status: "Pending" as const } };
      },
    }),
    personRoute({
      method: "POST",
      path: `${base}/{webhookId}/rotate-signing-secret`,
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Rotate a webhook's signing secret: the new one is in this answer only",
      description:
        "The previous secret keeps signing beside the new one for 24 hours (both signatures in each header), so the receiver can move to the " +
        "new one without missing a delivery. The endpoint credential stays. `If-Match` honoured when sent. Audited (never the secret).",
      tag,
      roles: OPERATORS,
      params: webhookParams,
      problems: ["CONFLICT"],
      response: rotatedView,
      async handler(input) {
        const { saved, signingSecret } = await changeWebhookCredentials(input, () => webhookOf(input), { signingKey: {} }, input.header("if-match"));
        return {
          data: { ...stateOf(saved.value), signingSecret: signingSecret!, previousSecretRetiresAt: previousKeyRetiresAt(saved.value, input.now()) },
          headers: { ETag: saved.etag },
        };
      },
    }),
    personRoute({
      method: "POST",
      path: `${base}/{webhookId}/credentials`,
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Replace the credential a webhook's deliveries carry to its endpoint",
      description:
        "`authenticationType` and its `token` (Bearer token, `user:password` for Basic, the `X-Api-Key` value for ApiKey; none with None), " +
        "used from the next attempt on. Never shown again. The signing secret stays. `If-Match` honoured when sent. Audited (never the token).",
      tag,
      roles: OPERATORS,
      params: webhookParams,
      body: endpointCredentialsBody,
      problems: ["CONFLICT"],
      response: webhookStateView.meta({ examples: [{ webhook: webhookExample, actions: ["pause"] }] }),
      async handler(input) {
        const { saved } = await changeWebhookCredentials(input, () => webhookOf(input), { endpoint: input.body }, input.header("if-match"));
        return { data: stateOf(saved.value), headers: { ETag: saved.etag } };
      },
    }),
    personRoute({
      method: "GET",
      path: `${base}/{webhookId}/delivery-logs/{logId}`,
      summary: "One delivery attempt: the request as sent and the receiver's answer",
      description:
        "The URL and headers as sent (credentials and signatures redacted); a body, which `bodySource` says is either the test event's sample " +
        "data (what was sent) or the event rebuilt now from the incident as it stands (the log keeps no copy of an event); the answer's status, " +
        "time taken and error, and for a test delivery the start of its body. `createdAt`, as listed, locates the entry.",
      tag,
      roles: "any",
      params: entryParams,
      query: entryQuery,
      problems: ["EXTENSION_NOT_ENABLED"],
      response: deliveryAttemptView,
      async handler(input) {
        const webhook = (await webhookOf(input)).value;
        const entry = await findDeliveryLogEntry(input, webhook, input.params.logId, input.query.createdAt);
        return { data: await deliveryAttempt(input, webhook, entry, (workspace) => personSeesWorkspace(input.person, workspace)) };
      },
    }),
  ],
};
