import { z } from "zod";
import { organizationRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { changeWebhookState, type WebhookStateAction } from "../../domain/webhooks/webhook-changes";
import { changeWebhookCredentials, createWebhook, deleteWebhook, updateWebhook } from "../../domain/webhooks/webhook-writes";
import { createWebhookBody, updateCredentialsBody, updateWebhookBody } from "../schemas/webhook-schemas";
import { toWebhookView, webhookView } from "../schemas/webhook-view";
import { createdWebhookExample, credentialsChangedExample, webhookExample } from "../examples/webhook-examples";
import { disabledWebhookIdParams, pausedWebhookIdParams, retiredWebhookIdParams, webhookIdParams } from "./webhook-schemas";
import { visibleWebhook } from "./webhook-access";
import { deliveryLogRoutes } from "./delivery-log-routes";
import { testEventRoute } from "./webhook-test-event";

const tag = "Webhooks";

const createdWebhookView = webhookView.extend({
  signingSecret: z.string().optional().describe("Shown once: the generated signing secret (absent when you supplied signingToken)."),
});
const createdWebhookResponse = createdWebhookView.meta({ examples: [createdWebhookExample] });
const credentialsChangedResponse = createdWebhookView.meta({ examples: [credentialsChangedExample] });

export const webhookRoutes: RouteGroup = {
  name: "webhooks",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/webhooks",
      summary: "List the webhook configurations of your organization",
      tag,
      auth: "webhooks:read",
      response: z.array(webhookView).meta({ examples: [[webhookExample]] }),
      async handler(input) {
        const all = await input.stores.webhooks.listByAccounts(input.principal.organizationAccountIds);
        return { data: all.map(toWebhookView) };
      },
    }),
    organizationRoute({
      method: "GET",
      path: "/webhooks/{id}",
      summary: "Get one webhook configuration",
      tag,
      auth: "webhooks:read",
      params: webhookIdParams,
      response: webhookView,
      responseHeaders: ["ETag"],
      async handler(input) {
        const found = await visibleWebhook(input, input.params.id);
        return { data: toWebhookView(found.value), headers: { ETag: found.etag } };
      },
    }),
    organizationRoute({
      method: "POST",
      path: "/webhooks",
      idempotencyKey: true,
      summary: "Create a webhook; its signing secret is shown once",
      tag,
      auth: "webhooks:manage",
      body: createWebhookBody,
      response: createdWebhookResponse,
      successStatus: 201,
      responseHeaders: ["Location", "ETag"],
      async handler(input) {
        const { saved, signingSecret } = await createWebhook(input, input.principal, input.body);
        return {
          status: 201,
          data: { ...toWebhookView(saved.value), ...(signingSecret ? { signingSecret } : {}) },
          headers: { Location: `${input.origin}/api/v2/webhooks/${saved.value.id}`, ETag: saved.etag },
        };
      },
    }),
    organizationRoute({
      method: "PUT",
      path: "/webhooks/{id}",
      summary: "Replace a webhook's name, URL, event types and monitored accounts (all four required)",
      tag,
      auth: "webhooks:manage",
      problems: ["CONFLICT"],
      params: retiredWebhookIdParams,
      body: updateWebhookBody,
      response: webhookView,
      responseHeaders: ["ETag"],
      ifMatch: true,
      async handler(input) {
        const saved = await updateWebhook(input, input.principal, () => visibleWebhook(input, input.params.id), input.body, input.header("if-match"));
        return { data: toWebhookView(saved.value), headers: { ETag: saved.etag } };
      },
    }),
    organizationRoute({
      method: "DELETE",
      path: "/webhooks/{id}",
      summary: "Delete a webhook; nothing more is delivered to it",
      tag,
      auth: "webhooks:manage",
      problems: ["CONFLICT"],
      params: retiredWebhookIdParams,
      successStatus: 204,
      ifMatch: true,
      async handler(input) {
        await deleteWebhook(input, () => visibleWebhook(input, input.params.id), input.header("if-match"));
        return { status: 204 };
      },
    }),
    stateRoute("pause", "Pause delivery; new deliveries are held as Pending until resume", webhookIdParams),
    stateRoute("resume", "Resume a paused webhook; held deliveries are sent", pausedWebhookIdParams),
    stateRoute("enable", "Re-enable a webhook that was disabled after repeated failures", disabledWebhookIdParams),
    organizationRoute({
      method: "POST",
      path: "/webhooks/{id}/credentials",
      summary: "Change the endpoint credentials and, optionally, rotate the signing secret",
      tag,
      auth: "webhooks:manage",
      problems: ["CONFLICT"],
      params: webhookIdParams,
      body: updateCredentialsBody,
      response: credentialsChangedResponse,
      responseHeaders: ["ETag"],
      ifMatch: true,
      async handler(input) {
        const { authenticationType, token, signingToken, rotateSigningSecret } = input.body;
        const rotate = rotateSigningSecret || signingToken !== undefined;
        const { saved, signingSecret } = await changeWebhookCredentials(
          input,
          () => visibleWebhook(input, input.params.id),
          { endpoint: { authenticationType, token }, ...(rotate ? { signingKey: { override: signingToken } } : {}) },
          input.header("if-match"),
        );
        return { data: { ...toWebhookView(saved.value), ...(signingSecret ? { signingSecret } : {}) }, headers: { ETag: saved.etag } };
      },
    }),
    testEventRoute,
    ...deliveryLogRoutes,
  ],
};

/** pause / resume / enable: one state to another; from any other state the call is 409 CONFLICT. */
function stateRoute(action: WebhookStateAction, summary: string, params: typeof webhookIdParams) {
  return organizationRoute({
    method: "POST",
    path: `/webhooks/{id}/${action}`,
    summary,
    tag,
    auth: "webhooks:manage",
    problems: ["CONFLICT"],
    params,
    response: webhookView.meta({ examples: [{ ...webhookExample, status: action === "pause" ? "Paused" : "Active" }] }),
    responseHeaders: ["ETag"],
    ifMatch: true,
    async handler(input) {
      const saved = await changeWebhookState(input, () => visibleWebhook(input, input.params.id), action, input.header("if-match"));
      return { data: toWebhookView(saved.value), headers: { ETag: saved.etag } };
    },
  });
}
