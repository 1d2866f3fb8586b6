import { issuePageToken, readPageToken } from "../../../platform/http/paging";
import { mapLimited } from "../../../platform/concurrency/map-limited";
import { personRoute, type PersonInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { statusClassOf, type DeliveryOutcome } from "../../../model/webhooks/delivery-log";
import { chartRange, deliveryBuckets, deliveryCounts, deliveryFigures, healthWindows, HEALTH_SCAN_LIMIT, recentFailures } from "../../../domain/webhooks/delivery-health";
import { redeliver, redeliverFailedSince } from "../../../domain/webhooks/redelivery";
import { deliveryLogCursor, deliveryLogListing, deliveryLogNotBefore, findDeliveryLogEntry } from "../../../domain/webhooks/delivery-log-access";
import type { WebhookRecord } from "../../../model/webhooks/webhook";
import { changeWebhookState, stateActionsOf, type WebhookStateAction } from "../../../domain/webhooks/webhook-changes";
import { toDeliveryLogView, toWebhookView } from "../../schemas/webhook-view";
import { fieldProblem } from "../portal-access";
import { OPERATORS, webhookOf } from "./portal-webhook-access";
import {
  acceptedView,
  chartQuery,
  chartView,
  enableParams,
  entryParams,
  entryQuery,
  logListQuery,
  logListView,
  pauseParams,
  redeliverFailedBody,
  redeliverFailedView,
  resumeParams,
  webhookHealthList,
  webhookHealthView,
  webhookParams,
  webhookStateView,
} from "./webhook-health-schemas";

const tag = "Portal: webhooks";
const base = "/portal/webhooks";
/** How far back a bulk redelivery may reach. */
const REDELIVER_FAILED_MAX_MS = healthWindows["7d"].spanMs;

/** The outcome fields of the webhook's attempts from `from` to now, newest first, bounded. */
function outcomesSince(input: PersonInput<unknown, unknown, unknown>, webhook: WebhookRecord, from: string) {
  const range = { from, to: new Date(input.now().getTime() + 1).toISOString(), notBefore: deliveryLogNotBefore(input) };
  return input.stores.deliveryLogs.outcomes(webhook.id, range, HEALTH_SCAN_LIMIT);
}

/** Webhooks whose figures the list reads at once. */
const WEBHOOK_READ_CONCURRENCY = 8;

const ago = (input: PersonInput<unknown, unknown, unknown>, ms: number) => new Date(input.now().getTime() - ms).toISOString();
const within = (items: readonly DeliveryOutcome[], from: string) => items.filter((e) => e.createdAt >= from);

function stateRoute(action: WebhookStateAction, summary: string, description: string, params: typeof webhookParams) {
  return personRoute({
    method: "POST",
    path: `${base}/{webhookId}/${action}`,
    responseHeaders: ["ETag"],
    ifMatch: true,
    summary,
    description: `${description} From any other state 409 \`CONFLICT\`. \`If-Match\` (the webhook's ETag) is honoured when sent. Audited.`,
    tag,
    roles: OPERATORS,
    params,
    problems: ["CONFLICT"],
    response: webhookStateView,
    async handler(input) {
      const saved = await changeWebhookState(input, () => webhookOf(input), action, input.header("if-match"));
      return { data: { webhook: toWebhookView(saved.value), actions: stateActionsOf(saved.value.status) }, headers: { ETag: saved.etag } };
    },
  });
}

/**
 * Webhooks and their health, as people of the organization see them in the portal (the model of
 * Svix's and Stripe's endpoint pages): each webhook with its last day's figures; one webhook's
 * figures over 24 hours and 7 days, latency percentiles and last failures; a chart's buckets; the
 * delivery log filtered by outcome and status class; pause, resume and enable; redelivery of one entry
 * or of every failed delivery since a time. Anyone of the organization reads; `WorkspaceAdmin` and
 * `Admin` act. A webhook of another organization does not exist for them: 404.
 */
export const portalWebhookRoutes: RouteGroup = {
  name: "portal-webhooks",
  routes: [
    personRoute({
      method: "GET",
      path: base,
      summary: "Your organization's webhooks, each with its last 24 hours' delivery figures",
      description: "By name. Attempts are counted one per delivery-log entry (a retried delivery counts each attempt); test events are left out.",
      tag,
      roles: "any",
      response: webhookHealthList,
      async handler(input) {
        const webhooks = (await input.stores.webhooks.listByAccounts(input.person.organizationAccountIds)).sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
        const from = ago(input, healthWindows["24h"].spanMs);
        const to = input.now().toISOString();
        // One bounded store read per webhook, a few at a time: an organization may hold many.
        const data = await mapLimited(
          webhooks,
          WEBHOOK_READ_CONCURRENCY,
          async (webhook) => {
            const { items } = await outcomesSince(input, webhook, from);
            const counted = items.filter((e) => !e.isTest);
            return {
              webhook: toWebhookView(webhook),
              actions: stateActionsOf(webhook.status),
              last24h: {
                from,
                to,
                ...deliveryCounts(counted),
                lastAttemptAt: counted[0]?.createdAt ?? null,
                lastFailureAt: counted.find((e) => e.status === "Failed")?.createdAt ?? null,
              },
            };
          },
          input.signal,
        );
        return { data };
      },
    }),
    personRoute({
      method: "GET",
      path: `${base}/{webhookId}`,
      responseHeaders: ["ETag"],
      summary: "One webhook's health: figures over 24 hours and 7 days, latency percentiles, last failures",
      description:
        "Counts by outcome and the success rate, the attempts that ended their delivery, and p50, p95 and p99 of `durationMs` over attempts that got an HTTP " +
        "answer (nearest rank); the last 10 failed attempts with their HTTP status. Computed over at most 10,000 attempts of the window, the newest " +
        "(`truncated` says when there were more). Its state (`status`, `disableReason`, `disabledAt`) is the webhook's; `actions` are those it allows.",
      tag,
      roles: "any",
      params: webhookParams,
      response: webhookHealthView,
      async handler(input) {
        const found = await webhookOf(input);
        const webhook = found.value;
        const to = input.now().toISOString();
        const from7d = ago(input, healthWindows["7d"].spanMs);
        const from24h = ago(input, healthWindows["24h"].spanMs);
        const week = await outcomesSince(input, webhook, from7d);
        // One read serves both windows: the day is complete unless the newest 10,000 did not reach back to its start.
        const dayTruncated = week.truncated && (week.items.at(-1)?.createdAt ?? to) > from24h;
        return {
          data: {
            webhook: toWebhookView(webhook),
            actions: stateActionsOf(webhook.status),
            last24h: deliveryFigures(within(week.items, from24h), { from: from24h, to }, dayTruncated),
            last7d: deliveryFigures(week.items, { from: from7d, to }, week.truncated),
            recentFailures: recentFailures(week.items),
          },
          headers: { ETag: found.etag },
        };
      },
    }),
    personRoute({
      method: "GET",
      path: `${base}/{webhookId}/delivery-chart`,
      summary: "A webhook's attempts over time by outcome, for a chart",
      description: "Hourly buckets over the last 24 hours or daily buckets over the last 7 days (UTC), oldest first; test events left out.",
      tag,
      roles: "any",
      params: webhookParams,
      query: chartQuery,
      response: chartView,
      async handler(input) {
        const webhook = (await webhookOf(input)).value;
        const { window } = input.query;
        const { from, to, starts } = chartRange(window, input.now());
        const { items, truncated } = await outcomesSince(input, webhook, from);
        return { data: { window, bucket: healthWindows[window].bucket, from, to, buckets: deliveryBuckets(items, window, starts), truncated } };
      },
    }),
    personRoute({
      method: "GET",
      path: `${base}/{webhookId}/delivery-logs`,
      summary: "A webhook's delivery attempts, newest first, filtered by outcome and status class",
      description: "The contract's delivery-log entries (`eventPayload` always null) with their `statusClass`. Paginated.",
      tag,
      roles: "any",
      params: webhookParams,
      query: logListQuery,
      response: logListView,
      paginated: true,
      async handler(input) {
        const { query } = input;
        const webhook = (await webhookOf(input)).value;
        const range = deliveryLogListing(input, query.from, query.to);
        const listing = `portal-delivery-logs:${webhook.id}:${query.from ?? ""}:${query.to ?? ""}:${query.outcome ?? ""}:${query.statusClass ?? ""}`;
        const cursor = query.continuationToken === undefined ? undefined : readPageToken(input, query.continuationToken, listing, deliveryLogCursor, "continuationToken");
        const page = await input.stores.deliveryLogs.list(webhook.id, range, query.pageSize, cursor, { status: query.outcome, statusClass: query.statusClass });
        return {
          data: page.items.map((e) => ({ ...toDeliveryLogView(e, null), statusClass: statusClassOf(e.httpStatusCode) })),
          pagination: page.next ? { hasMore: true, continuationToken: issuePageToken(input, listing, page.next) } : { hasMore: false },
        };
      },
    }),
    stateRoute("pause", "Pause a webhook: deliveries are held as Pending until it is resumed", "Active only.", pauseParams),
    stateRoute("resume", "Resume a paused webhook: held deliveries go out", "Paused only.", resumeParams),
    stateRoute("enable", "Enable a webhook disabled after repeated failures", "Disabled only; its failure count starts afresh.", enableParams),
    personRoute({
      method: "POST",
      path: `${base}/{webhookId}/delivery-logs/{logId}/redeliver`,
      idempotencyKey: true,
      summary: "Deliver one failed incident.created.v1 again, rebuilt from the incident as it is now, same event id",
      description: "As the contract's redeliver: a non-failed entry is 409, another event type 422, an incident gone from its source 409. Audited.",
      tag,
      roles: OPERATORS,
      params: entryParams,
      query: entryQuery,
      successStatus: 202,
      problems: ["CONFLICT", "EXTENSION_NOT_ENABLED", { code: "VALIDATION_ERROR", status: 422 }],
      response: acceptedView,
      async handler(input) {
        const webhook = (await webhookOf(input)).value;
        const entry = await findDeliveryLogEntry(input, webhook, input.params.logId, input.query.createdAt);
        const { eventId } = await redeliver(input, webhook, entry);
        return { status: 202, data: { eventId, status: "Pending" as const } };
      },
    }),
    personRoute({
      method: "POST",
      path: `${base}/{webhookId}/redeliver-failed`,
      idempotencyKey: true,
      summary: "Deliver again every event whose delivery finally failed since a time",
      description:
        "Events whose latest attempt since `since` is a final failure (retries exhausted, a permanent answer, or not sent); a later success, a held " +
        "delivery or a retry to come leaves an event alone. Only `incident.created.v1` can be rebuilt; the others are counted in `notRedeliverable`. " +
        "Bounded: `since` at most 7 days back; oldest first, at most 100 events per call and 10,000 attempts read; `nextSince` says where to go on. " +
        "Answers 202 with how many were queued; they show up in the delivery log. One audit event names the events sent.",
      tag,
      roles: OPERATORS,
      params: webhookParams,
      body: redeliverFailedBody,
      successStatus: 202,
      problems: ["EXTENSION_NOT_ENABLED"],
      response: redeliverFailedView,
      async handler(input) {
        const webhook = (await webhookOf(input)).value;
        const since = new Date(input.body.since);
        const now = input.now();
        if (since.getTime() >= now.getTime()) throw fieldProblem("since", "Must be in the past.");
        if (since.getTime() < now.getTime() - REDELIVER_FAILED_MAX_MS) throw fieldProblem("since", "At most 7 days back.");
        const result = await redeliverFailedSince(input, webhook, since.toISOString());
        return { status: 202, data: { since: since.toISOString(), queued: result.eventIds.length, ...result } };
      },
    }),
  ],
};
