import { randomUUID } from "node:crypto";
import { z } from "zod";
import { checkWebhookUrl } from "../../platform/delivery/address-policy";
import { generateSigningSecret } from "../../platform/delivery/signer";
import { ApiError } from "../../platform/errors/api-error";
import { commit } from "../../platform/store/commit";
import { organizationRoute, type RequestContext, type RouteGroup } from "../../platform/http/route";
import type { Versioned } from "../../platform/store/ports";
import type { SealedSigningKey, WebhookRecord } from "../../domain/webhooks/webhook";
import { changeWebhook, changeWebhookState, webhookAudit, type WebhookStateAction } from "../../domain/webhooks/webhook-changes";
import { toWebhookView, webhookView } from "../../domain/webhooks/webhook-view";
import { createdWebhookExample, credentialsChangedExample, webhookExample } from "../../domain/examples/webhook-examples";
import {
  createWebhookBody,
  disabledWebhookIdParams,
  pausedWebhookIdParams,
  retiredWebhookIdParams,
  updateCredentialsBody,
  updateWebhookBody,
  webhookIdParams,
} from "./webhook-schemas";
import { visibleWebhook } from "./webhook-access";
import { deliveryLogRoutes } from "./delivery-log-routes";
import { testEventRoute } from "./webhook-test-event";


const tag = "Webhooks";
/** A rotated-out signing key keeps signing alongside the new one this long, so receivers can switch. */
export const SIGNING_KEY_OVERLAP_MS = 24 * 3600_000;

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
      summary: "Create a webhook; its signing secret is shown once",
      tag,
      auth: "webhooks:manage",
      body: createWebhookBody,
      response: createdWebhookResponse,
      successStatus: 201,
      responseHeaders: ["Location", "ETag"],
      async handler(input) {
        const { body, principal } = input;
        await checkTarget(input, body.url, body.monitoredAccountIds);
        const account = await input.stores.accounts.get(principal.accountId);
        if (!account) throw new Error(`The caller's account ${principal.accountId} does not exist.`);
        const stamp = input.now().toISOString();
        const generated = body.signingToken === undefined ? generateSigningSecret() : undefined;
        const record: WebhookRecord = {
          id: randomUUID(),
          targetAccountId: account.id,
          targetAccountName: account.name,
          serviceProviderId: account.kind === "ServiceProvider" ? account.id : (account.managedByAccountId ?? account.id),
          workspaceId: null,
          name: body.name,
          url: body.url,
          status: "Active",
          eventTypes: body.eventTypes,
          monitoredAccountIds: body.monitoredAccountIds.map((a) => a.toLowerCase()),
          authenticationType: body.authenticationType,
          sealedToken: body.token === undefined ? null : input.secretBox.seal(body.token),
          signingKeys: [{ sealed: input.secretBox.seal(body.signingToken ?? generated!), createdAt: stamp, retiresAt: null }],
          disableReason: null,
          disabledAt: null,
          finalFailures: [],
          createdAt: stamp,
          lastModifiedAt: stamp,
        };
        const created = await commit({
          read: async () => ({ value: record, etag: null }),
          change: (w) => [webhookAudit(input, w, "Create", { url: w.url, eventTypes: w.eventTypes, authenticationType: w.authenticationType })],
          write: (w, _etag, outbox) => input.stores.webhooks.create(w, outbox),
          outbox: input.events.outbox,
          // A new webhook's id is its own: a create conflicts only with itself.
          maxAttempts: 1,
        });
        return {
          status: 201,
          data: { ...toWebhookView(created.value), ...(generated ? { signingSecret: generated } : {}) },
          headers: { Location: `${input.origin}/api/v2/webhooks/${created.value.id}`, ETag: created.etag },
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
        const { body } = input;
        // The URL is checked when it changes: a configuration written back as read keeps its endpoint,
        // which the sender checks again on every connection anyway.
        const current = await visibleWebhook(input, input.params.id);
        await checkTarget(input, body.url, body.monitoredAccountIds, body.url === current.value.url);
        const saved = await modifyWebhook(input, input.params.id, { url: body.url, eventTypes: body.eventTypes, monitoredAccountIds: body.monitoredAccountIds }, (w) => {
          w.name = body.name;
          w.url = body.url;
          w.eventTypes = body.eventTypes;
          w.monitoredAccountIds = body.monitoredAccountIds.map((a) => a.toLowerCase());
        });
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
        await commit({
          read: () => visibleWebhook(input, input.params.id),
          ifMatch: input.header("if-match"),
          change: (w) => [webhookAudit(input, w, "Delete", {})],
          write: (w, etag, outbox) => input.stores.webhooks.delete(w.id, etag!, outbox),
          outbox: input.events.outbox,
        });
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
        const { body } = input;
        const rotate = body.rotateSigningSecret || body.signingToken !== undefined;
        const generated = rotate && body.signingToken === undefined ? generateSigningSecret() : undefined;
        const now = input.now();
        const metadata = { credentials: true, authenticationType: body.authenticationType, signingSecretRotated: rotate };
        const saved = await modifyWebhook(input, input.params.id, metadata, (w) => {
          w.authenticationType = body.authenticationType;
          w.sealedToken = body.token === undefined ? null : input.secretBox.seal(body.token);
          if (rotate) w.signingKeys = rotatedKeys(w.signingKeys, input.secretBox.seal(body.signingToken ?? generated!), now);
        });
        return {
          data: { ...toWebhookView(saved.value), ...(generated ? { signingSecret: generated } : {}) },
          headers: { ETag: saved.etag },
        };
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

/** The new key first; keys already retired drop out; the previous current key retires in 24 hours. */
function rotatedKeys(keys: SealedSigningKey[], sealed: string, now: Date): SealedSigningKey[] {
  const stamp = now.toISOString();
  const retiresAt = new Date(now.getTime() + SIGNING_KEY_OVERLAP_MS).toISOString();
  const kept = keys
    .filter((k) => k.retiresAt === null || k.retiresAt > stamp)
    .map((k) => (k.retiresAt === null ? { ...k, retiresAt } : k));
  return [{ sealed, createdAt: stamp, retiresAt: null }, ...kept];
}

/** A change to a webhook of the caller's organization, its audit event committed with it; `If-Match` honoured. */
function modifyWebhook(input: RequestContext, id: string, metadata: Record<string, unknown>, mutate: (w: WebhookRecord) => void): Promise<Versioned<WebhookRecord>> {
  return changeWebhook(input, () => visibleWebhook(input, id), metadata, mutate, input.header("if-match"));
}

/**
 * The URL must be an HTTPS endpoint on public addresses (unless it is `unchanged`: the webhook's own);
 * monitored accounts must be the caller's organization's.
 */
async function checkTarget(input: RequestContext, url: string, monitoredAccountIds: readonly string[], unchanged = false): Promise<void> {
  const { config, resolveHost } = input;
  const problem = unchanged ? undefined : await checkWebhookUrl(url, { allowPrivateTargets: config.webhooks.allowPrivateTargets, resolve: resolveHost });
  if (problem) throw new ApiError("VALIDATION_ERROR", problem, { target: "url", errors: { url: [problem] } });
  const foreign = monitoredAccountIds.filter((a) => !input.principal.organizationAccountIds.includes(a.toLowerCase()));
  if (foreign.length > 0) {
    const message = `Not accounts of your organization: ${foreign.join(", ")}.`;
    throw new ApiError("VALIDATION_ERROR", message, { target: "monitoredAccountIds", errors: { monitoredAccountIds: [message] } });
  }
}
