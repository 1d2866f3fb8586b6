import { randomUUID } from "node:crypto";
import { checkWebhookUrl } from "../../platform/delivery/address-policy";
import { generateSigningSecret } from "../../platform/delivery/signer";
import { ApiError } from "../../platform/errors/api-error";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import type { Versioned } from "../../platform/store/ports";
import type { SealedSigningKey, WebhookAuthenticationType, WebhookRecord } from "../../model/webhooks/webhook";
import { changeWebhook, webhookAudit } from "./webhook-changes";

/*
 * Creating, changing and deleting a webhook, whoever does it: a service account holding
 * `webhooks:manage` on the contract's routes, or a person in the portal. The caller's account owns
 * what it creates; its organization bounds the accounts a webhook may monitor. Secrets are generated
 * here, sealed at rest and handed to the caller once; each write commits with its audit event, the
 * caller's actor as its actor.
 */

/** A rotated-out signing key keeps signing alongside the new one this long, so receivers can switch. */
export const SIGNING_KEY_OVERLAP_MS = 24 * 3600_000;

/** What a webhook is configured with: where it delivers, which events, and for which accounts. The API's bodies parse to it. */
export interface WebhookConfiguration {
  name: string;
  url: string;
  eventTypes: string[];
  /** Provider webhooks: only events of these accounts; empty: the provider's own and every managed account's. */
  monitoredAccountIds: string[];
}

/** A new webhook: its configuration and the credential its endpoint checks, with an optional signing override. */
export interface NewWebhook extends WebhookConfiguration {
  authenticationType: WebhookAuthenticationType;
  token?: string | undefined;
  signingToken?: string | undefined;
}

/** Who configures webhooks: their own account, and the accounts of their organization. */
export interface WebhookCaller {
  accountId: string;
  organizationAccountIds: readonly string[];
}

/** What configuring a webhook runs with. */
export type WebhookWriteContext = Uses<"actor" | "config" | "events" | "now" | "resolveHost" | "secretBox" | "stores">;

/** A webhook as it was saved, and the signing secret when this change generated one (shown once). */
export interface SavedWebhook {
  saved: Versioned<WebhookRecord>;
  signingSecret?: string;
}

/** The endpoint credential and the signing key a credentials change replaces; each left as it is when absent. */
export interface CredentialsChange {
  endpoint?: { authenticationType: WebhookAuthenticationType; token?: string };
  /** A new signing key: the caller's override, or else one generated and returned once. */
  signingKey?: { override?: string };
}

/** Creates a webhook of the caller's own account; its signing secret is returned once (unless the caller supplied one). */
export async function createWebhook(ctx: WebhookWriteContext, caller: WebhookCaller, body: NewWebhook): Promise<SavedWebhook> {
  await checkTarget(ctx, caller, body.url, body.monitoredAccountIds);
  const account = await ctx.stores.accounts.get(caller.accountId);
  if (!account) throw new Error(`The caller's account ${caller.accountId} does not exist.`);
  const stamp = ctx.now().toISOString();
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
    sealedToken: body.token === undefined ? null : ctx.secretBox.seal(body.token),
    signingKeys: [{ sealed: ctx.secretBox.seal(body.signingToken ?? generated!), createdAt: stamp, retiresAt: null }],
    disableReason: null,
    disabledAt: null,
    finalFailures: [],
    createdAt: stamp,
    lastModifiedAt: stamp,
  };
  const saved = await commit({
    deadline: ctx.deadline,
    read: async () => ({ value: record, etag: null }),
    change: (w) => [webhookAudit(ctx, w, "Create", { url: w.url, eventTypes: w.eventTypes, authenticationType: w.authenticationType })],
    write: (w, _etag, outbox) => ctx.stores.webhooks.create(w, outbox),
    outbox: ctx.events.outbox,
    // A new webhook's id is its own: a create conflicts only with itself.
    maxAttempts: 1,
  });
  return { saved, ...(generated ? { signingSecret: generated } : {}) };
}

/** Replaces the webhook's name, URL, event types and monitored accounts; `ifMatch` honoured. */
export async function updateWebhook(
  ctx: WebhookWriteContext,
  caller: WebhookCaller,
  read: () => Promise<Versioned<WebhookRecord>>,
  body: WebhookConfiguration,
  ifMatch?: string,
): Promise<Versioned<WebhookRecord>> {
  // The URL is checked when it changes: a configuration written back as read keeps its endpoint,
  // which the sender checks again on every connection anyway.
  const current = await read();
  await checkTarget(ctx, caller, body.url, body.monitoredAccountIds, body.url === current.value.url);
  return changeWebhook(
    ctx,
    read,
    { url: body.url, eventTypes: body.eventTypes, monitoredAccountIds: body.monitoredAccountIds },
    (w) => {
      w.name = body.name;
      w.url = body.url;
      w.eventTypes = body.eventTypes;
      w.monitoredAccountIds = body.monitoredAccountIds.map((a) => a.toLowerCase());
    },
    ifMatch,
  );
}

/** Deletes the webhook; deliveries still queued for it are dropped. `ifMatch` honoured. */
export async function deleteWebhook(ctx: Uses<"actor" | "events" | "now" | "stores">, read: () => Promise<Versioned<WebhookRecord>>, ifMatch?: string): Promise<void> {
  await commit({
    deadline: ctx.deadline,
    read,
    ifMatch,
    change: (w) => [webhookAudit(ctx, w, "Delete", {})],
    write: (w, etag, outbox) => ctx.stores.webhooks.delete(w.id, etag!, outbox),
    outbox: ctx.events.outbox,
  });
}

/**
 * Replaces the endpoint credential, rotates the signing key, or both. A rotated-out key keeps signing
 * beside the new one for `SIGNING_KEY_OVERLAP_MS`; a generated secret is returned once.
 */
export async function changeWebhookCredentials(
  ctx: Uses<"actor" | "events" | "now" | "secretBox" | "stores">,
  read: () => Promise<Versioned<WebhookRecord>>,
  change: CredentialsChange,
  ifMatch?: string,
): Promise<SavedWebhook> {
  const { endpoint, signingKey } = change;
  const generated = signingKey && signingKey.override === undefined ? generateSigningSecret() : undefined;
  const now = ctx.now();
  const metadata = { ...(endpoint ? { credentials: true, authenticationType: endpoint.authenticationType } : {}), signingSecretRotated: signingKey !== undefined };
  const saved = await changeWebhook(
    ctx,
    read,
    metadata,
    (w) => {
      if (endpoint) {
        w.authenticationType = endpoint.authenticationType;
        w.sealedToken = endpoint.token === undefined ? null : ctx.secretBox.seal(endpoint.token);
      }
      if (signingKey) w.signingKeys = rotatedKeys(w.signingKeys, ctx.secretBox.seal(signingKey.override ?? generated!), now);
    },
    ifMatch,
  );
  return { saved, ...(generated ? { signingSecret: generated } : {}) };
}

/** When the signing key rotated out most recently stops signing; null when only one key signs. */
export function previousKeyRetiresAt(webhook: WebhookRecord, now: Date): string | null {
  const stamp = now.toISOString();
  const retiring = webhook.signingKeys.map((k) => k.retiresAt).filter((at): at is string => at !== null && at > stamp);
  return retiring.sort().at(-1) ?? null;
}

/** The new key first; keys already retired drop out; the previous current key retires after the overlap. */
function rotatedKeys(keys: SealedSigningKey[], sealed: string, now: Date): SealedSigningKey[] {
  const stamp = now.toISOString();
  const retiresAt = new Date(now.getTime() + SIGNING_KEY_OVERLAP_MS).toISOString();
  const kept = keys.filter((k) => k.retiresAt === null || k.retiresAt > stamp).map((k) => (k.retiresAt === null ? { ...k, retiresAt } : k));
  return [{ sealed, createdAt: stamp, retiresAt: null }, ...kept];
}

/**
 * The URL must be an HTTPS endpoint on public addresses (unless it is `unchanged`: the webhook's own);
 * monitored accounts must be the caller's organization's.
 */
async function checkTarget(ctx: Uses<"config" | "resolveHost">, caller: WebhookCaller, url: string, monitoredAccountIds: readonly string[], unchanged = false): Promise<void> {
  const problem = unchanged ? undefined : await checkWebhookUrl(url, { allowPrivateTargets: ctx.config.webhooks.allowPrivateTargets, resolve: ctx.resolveHost });
  if (problem) throw new ApiError("VALIDATION_ERROR", problem, { target: "url", errors: { url: [problem] } });
  const foreign = monitoredAccountIds.filter((a) => !caller.organizationAccountIds.includes(a.toLowerCase()));
  if (foreign.length > 0) {
    const message = `Not accounts of your organization: ${foreign.join(", ")}.`;
    throw new ApiError("VALIDATION_ERROR", message, { target: "monitoredAccountIds", errors: { monitoredAccountIds: [message] } });
  }
}
