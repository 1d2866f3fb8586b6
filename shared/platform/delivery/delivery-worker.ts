import { createHash } from "node:crypto";
import { derivedGuid } from "../ids/derived-guid";
import type { Logger } from "../logger";
import type { MessageHandler, QueueSender } from "../queue/queue";
import type { DeliveryLogStore, WebhookStore } from "../store/ports";
import { deliveryLogPartition } from "../store/delivery-log-partition";
import { commit } from "../store/commit";
import { RETRY_SCHEDULED, type DeliveryLogRecord, type DeliveryStatus, type ResponseExcerpt } from "../../model/webhooks/delivery-log";
import { API_KEY_HEADER, type WebhookRecord } from "../../model/webhooks/webhook";
import { countFinalFailure, distinctFailedIncidents } from "../../model/webhooks/auto-disable";
import type { SecretBox } from "./secret-box";
import { deliveryMessageId, type DeliveryMessage } from "./delivery-message";
import type { GuardedSender, SendOutcome } from "./guarded-sender";
import { responseExcerpt } from "./response-excerpt";
import { decideRetry, DEFAULT_MAX_ATTEMPTS, type RetryDecision } from "./retry-policy";
import { signatureHeaders, signingKeyOf } from "./signer";

/** Auto-disable (docs/contract.md §6.6.5): this many distinct incidents failing final delivery within the window. */
/** The `User-Agent` of every delivery. */
export const DELIVERY_USER_AGENT = "SecOps-Webhooks/2";
const REDACTED = "[redacted]";
const SECRET_HEADERS = new Set(["authorization", API_KEY_HEADER.toLowerCase(), "x-svc-signature", "webhook-signature"]);

export interface DeliveryWorkerDeps {
  webhooks: WebhookStore;
  logs: DeliveryLogStore;
  deliveries: QueueSender<DeliveryMessage>;
  sender: GuardedSender;
  secretBox: SecretBox;
  now: () => Date;
  logger: Logger;
  backoffMs: number;
  windowMs: number;
  logTtlSeconds: number;
}

/**
 * The `deliveries` queue handler: one attempt per message. It signs and sends the fixed body, logs
 * the attempt, and either finishes, schedules the next attempt as a new message (never sleeps), or
 * records the final failure, which counts towards auto-disable. A crash before the message completes
 * makes the queue deliver it again: the same event id and body go out again, which receivers dedupe.
 */
export function createDeliveryHandler(deps: DeliveryWorkerDeps): MessageHandler<DeliveryMessage> {
  return async ({ body: message }) => {
    const found = await deps.webhooks.get(message.webhookId);
    if (!found) {
      deps.logger.info("delivery dropped: webhook deleted", { webhookId: message.webhookId, eventId: message.eventId });
      return;
    }
    const webhook = found.value;
    if (webhook.status === "Disabled" && !message.isTest) {
      await writeLog(deps, message, webhook, { status: "Failed", error: "Not sent: the webhook is disabled; dead-lettered.", createdAt: deps.now() });
      return;
    }
    if (webhook.status === "Paused" && !message.isTest) return hold(deps, message, webhook);

    const now = deps.now();
    const { headers, secrets } = request(deps, webhook, message, now);
    const outcome = await deps.sender.send({ url: webhook.url, headers, body: message.body });
    const firstAttemptAt = message.firstAttemptAt ? new Date(message.firstAttemptAt) : now;
    const decision = decideRetry({
      outcome,
      attempt: message.attempt,
      firstAttemptAt,
      now: deps.now(),
      backoffMs: deps.backoffMs,
      windowMs: deps.windowMs,
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
    });
    // A held delivery's attempt completes the Pending entry made when it was held (same id and time).
    const createdAt = message.heldAt ? new Date(message.heldAt) : now;
    await writeLog(deps, message, webhook, {
      status: decision.action === "succeeded" ? "Succeeded" : "Failed",
      outcome,
      headers,
      error: describe(outcome, decision),
      createdAt,
      // A person testing an endpoint needs its answer; an event's answer is read and dropped (docs/contract.md §6.6.6).
      responseExcerpt: message.isTest && outcome.kind === "response" ? responseExcerpt({ head: outcome.snippet, bodyBytes: outcome.responseBytesRead, cut: outcome.truncated }, secrets) : null,
    });
    // One line per attempt, its outcome as fields: the workbook's webhook delivery outcomes read it.
    deps.logger.info("webhook delivery attempt", {
      webhookId: webhook.id,
      eventId: message.eventId,
      eventType: message.eventType,
      attempt: message.attempt,
      outcome: decision.action,
      httpStatus: outcome.kind === "response" ? outcome.status : 0,
      errorKind: outcome.kind === "error" ? outcome.error : undefined,
      durationMs: Math.round(outcome.durationMs),
      isTest: message.isTest,
    });

    if (decision.action === "retry") {
      const next: DeliveryMessage = { ...message, attempt: message.attempt + 1, firstAttemptAt: firstAttemptAt.toISOString(), heldAt: undefined, heldChecks: undefined };
      await deps.deliveries.schedule([{ messageId: deliveryMessageId(next), body: next }], decision.at);
    } else if (decision.action === "fail" && !message.isTest && message.incident) {
      await recordFinalFailure(deps, webhook.id, incidentKey(message));
    }
  };
}

/** Paused: record the delivery as Pending (once) and look again later; it goes out after resume. */
async function hold(deps: DeliveryWorkerDeps, message: DeliveryMessage, webhook: WebhookRecord): Promise<void> {
  const heldAt = message.heldAt ? new Date(message.heldAt) : deps.now();
  if (!message.heldAt) await writeLog(deps, message, webhook, { status: "Pending", error: "Held: the webhook is paused.", createdAt: heldAt });
  const again: DeliveryMessage = { ...message, heldAt: heldAt.toISOString(), heldChecks: (message.heldChecks ?? 0) + 1 };
  const at = new Date(deps.now().getTime() + Math.min(deps.backoffMs, 60_000));
  // A fixed-length id per look (message ids are at most 128 characters), the same if this look is
  // repeated after a lost lock, so duplicate detection keeps a single hold loop going.
  const id = createHash("sha256").update(deliveryMessageId(message)).digest("hex").slice(0, 40);
  await deps.deliveries.schedule([{ messageId: `held:${id}:${again.heldChecks}`, body: again }], at);
}

/** An attempt's headers, and the secret values among them (and the endpoint token), which nothing may keep. */
function request(deps: DeliveryWorkerDeps, webhook: WebhookRecord, message: DeliveryMessage, now: Date): { headers: Record<string, string>; secrets: string[] } {
  const live = webhook.signingKeys.filter((k) => k.retiresAt === null || Date.parse(k.retiresAt) > now.getTime());
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": DELIVERY_USER_AGENT,
    ...signatureHeaders({
      eventId: message.eventId,
      eventType: message.eventType,
      timestamp: Math.floor(now.getTime() / 1000),
      body: message.body,
      keys: live.map((k) => signingKeyOf(deps.secretBox.open(k.sealed))),
      isTest: message.isTest,
    }),
  };
  const token = webhook.sealedToken === null ? null : deps.secretBox.open(webhook.sealedToken);
  if (token !== null && webhook.authenticationType === "Bearer") headers.Authorization = `Bearer ${token}`;
  if (token !== null && webhook.authenticationType === "Basic") headers.Authorization = `Basic ${Buffer.from(token).toString("base64")}`;
  if (token !== null && webhook.authenticationType === "ApiKey") headers[API_KEY_HEADER] = token;
  return { headers, secrets: [...(token === null ? [] : [token]), ...secretValues(headers)] };
}

/** Each secret header's value, its credential after the scheme (`Bearer …`) and each of its signatures. */
function secretValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(([name]) => SECRET_HEADERS.has(name.toLowerCase()))
    .flatMap(([name, value]) => (name.toLowerCase() === "authorization" ? [value, value.slice(value.indexOf(" ") + 1)] : [value, ...value.split(" ")]));
}

export interface LogInput {
  status: DeliveryStatus;
  createdAt: Date;
  outcome?: SendOutcome;
  headers?: Record<string, string>;
  error: string | null;
  /** Test deliveries only. */
  responseExcerpt?: ResponseExcerpt | null;
}

async function writeLog(deps: DeliveryWorkerDeps, message: DeliveryMessage, webhook: WebhookRecord, input: LogInput): Promise<void> {
  await deps.logs.put(deliveryLogEntry(message, webhook, input, deps.logTtlSeconds));
}

/** The delivery-log entry of one attempt (or of a delivery that was never attempted, with why). */
export function deliveryLogEntry(message: DeliveryMessage, webhook: WebhookRecord, input: LogInput, ttlSeconds: number): DeliveryLogRecord {
  const createdAt = input.createdAt.toISOString();
  const response = input.outcome?.kind === "response" ? input.outcome : undefined;
  const entry: DeliveryLogRecord = {
    id: deliveryLogId(message),
    partitionKey: deliveryLogPartition(webhook.id, createdAt),
    webhookConfigurationId: webhook.id,
    eventId: message.eventId,
    eventType: message.eventType,
    eventOccurredAt: message.occurredAt,
    status: input.status,
    httpStatusCode: response?.status ?? 0,
    success: input.status === "Succeeded",
    requestUrl: webhook.url,
    requestHeaders: redact(input.headers ?? {}),
    durationMs: Math.round(input.outcome?.durationMs ?? 0),
    createdAt,
    redelivered: message.redelivered,
    attempt: message.attempt,
    isTest: message.isTest,
    incident: message.incident,
    error: input.error,
    responseExcerpt: input.responseExcerpt ?? null,
    ttl: ttlSeconds,
  };
  return entry;
}

/** One entry per attempt; the same attempt delivered twice (after a crash) rewrites its entry. */
export function deliveryLogId(m: Pick<DeliveryMessage, "eventId" | "webhookId" | "attempt" | "redeliveryId">): string {
  return derivedGuid(deliveryMessageId(m));
}

function redact(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_HEADERS.has(k.toLowerCase()) ? REDACTED : v]));
}

function describe(outcome: SendOutcome, decision: RetryDecision): string | null {
  const what = outcome.kind === "error" ? `${outcome.error}: ${outcome.message}` : outcome.status >= 300 ? `HTTP ${outcome.status}` : null;
  if (decision.action === "retry") return `${what}${RETRY_SCHEDULED}${decision.at.toISOString()}`;
  if (decision.action === "fail") return `${what}; ${decision.reason === "permanent" ? "not retried" : "retries exhausted"}, dead-lettered`;
  return null;
}

function incidentKey(message: DeliveryMessage): string {
  const i = message.incident!;
  return `${i.workspaceId}/${i.source}/${i.incidentId}`;
}

/** Records a final failure on the webhook (`countFinalFailure`: the fifth distinct incident within 24 hours disables it). */
async function recordFinalFailure(deps: DeliveryWorkerDeps, webhookId: string, key: string): Promise<void> {
  const now = deps.now();
  const saved = await commit({
    deadline: undefined,
    async read() {
      const current = await deps.webhooks.get(webhookId);
      return current && current.value.status !== "Disabled" ? current : null;
    },
    change: (draft) => countFinalFailure(draft, key, now),
    write: (draft, etag) => deps.webhooks.replace(draft, etag!),
  });
  if (saved?.value.status === "Disabled") {
    deps.logger.warn("webhook auto-disabled", { webhookId, incidents: distinctFailedIncidents(saved.value) });
  }
}
