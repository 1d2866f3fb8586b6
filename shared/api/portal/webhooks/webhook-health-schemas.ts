import { z } from "zod";
import { pageQueryFields } from "../../../platform/http/paging";
import { deliveryStatuses, statusClasses } from "../../../model/webhooks/delivery-log";
import { healthWindows } from "../../../domain/webhooks/delivery-health";
import { webhookStateActions, type WebhookStateAction } from "../../../domain/webhooks/webhook-changes";
import { deliveryLogView, webhookView } from "../../schemas/webhook-view";
import { EXAMPLE_FAILED_DELIVERY_CREATED_AT, EXAMPLE_FAILED_DELIVERY_LOG_ID, EXAMPLE_WEBHOOK_ID } from "../../../platform/http/examples";
import {
  deliveryLogExample,
  EXAMPLE_CHANGE_BOARD_WEBHOOK_ID,
  EXAMPLE_CHATOPS_WEBHOOK_ID,
  EXAMPLE_DATA_LAKE_WEBHOOK_ID,
  webhookExample,
} from "../../examples/webhook-examples";

const timestamp = z.iso.datetime({ offset: true });
const webhookId = z.guid().describe("The webhook's id.");

export const webhookParams = z.object({ webhookId: webhookId.meta({ examples: [EXAMPLE_WEBHOOK_ID] }) });
// Each state action's example has a demo webhook of its own, in the state it acts from.
export const pauseParams = z.object({ webhookId: webhookId.meta({ examples: [EXAMPLE_DATA_LAKE_WEBHOOK_ID] }) });
export const resumeParams = z.object({ webhookId: webhookId.meta({ examples: [EXAMPLE_CHANGE_BOARD_WEBHOOK_ID] }) });
export const enableParams = z.object({ webhookId: webhookId.meta({ examples: [EXAMPLE_CHATOPS_WEBHOOK_ID] }) });
export const entryParams = z.object({
  webhookId: webhookId.meta({ examples: [EXAMPLE_WEBHOOK_ID] }),
  logId: z.guid().describe("The entry's id, as listed.").meta({ examples: [EXAMPLE_FAILED_DELIVERY_LOG_ID] }),
});
export const entryQuery = z
  .object({ createdAt: timestamp.describe("The entry's createdAt, as listed: it locates the entry.").meta({ examples: [EXAMPLE_FAILED_DELIVERY_CREATED_AT] }) })
  .strict();

const actionsField = z
  .array(z.enum(Object.keys(webhookStateActions) as [WebhookStateAction, ...WebhookStateAction[]]))
  .describe("The state actions its status allows: `pause` when Active, `resume` when Paused, `enable` when Disabled.");

const countsFields = {
  succeeded: z.number().int().describe("Attempts the endpoint answered with 2xx."),
  pending: z.number().int().describe("Deliveries not attempted yet: held while the webhook is paused."),
  failed: z.number().int().describe("Failed attempts, those that will be retried included."),
  successRate: z.number().min(0).max(1).nullable().describe("succeeded / (succeeded + failed), 0 to 1; null when nothing finished."),
};

const latencyView = z
  .object({
    p50: z.number().int(),
    p95: z.number().int(),
    p99: z.number().int(),
    sampleSize: z.number().int().describe("Attempts answered with an HTTP status: the percentiles' population."),
  })
  .describe("Nearest-rank percentiles of `durationMs`, over attempts that got an HTTP answer; null when none did.");

const figuresView = z.object({
  from: z.string(),
  to: z.string(),
  ...countsFields,
  finalFailures: z.number().int().describe("Failed attempts that ended their delivery: retries exhausted, a permanent answer, or not sent."),
  latencyMs: latencyView.nullable(),
  truncated: z.boolean().describe("The window held more than 10,000 attempts: the figures are the newest 10,000's."),
});

const recentFailureView = z.object({
  logId: z.string(),
  createdAt: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  httpStatusCode: z.number().int().describe("0: no HTTP answer (see `error`)."),
  statusClass: z.enum(statusClasses),
  attempt: z.number().int(),
  final: z.boolean().describe("No retry follows."),
  error: z.string().nullable(),
});

const summaryExample = {
  from: "2026-03-01T09:15:00.000Z",
  to: "2026-03-02T09:15:00.000Z",
  succeeded: 12,
  pending: 0,
  failed: 12,
  successRate: 0.5,
  lastAttemptAt: "2026-03-02T06:33:30.000Z",
  lastFailureAt: "2026-03-02T06:33:30.000Z",
};

export const webhookHealthList = z
  .array(
    z.object({
      webhook: webhookView,
      actions: actionsField,
      last24h: z
        .object({
          from: z.string(),
          to: z.string(),
          ...countsFields,
          lastAttemptAt: z.string().nullable(),
          lastFailureAt: z.string().nullable(),
        })
        .describe("The last 24 hours' attempts (test events left out)."),
    }),
  )
  .meta({ examples: [[{ webhook: webhookExample, actions: ["pause"], last24h: summaryExample }]] });

const failureExample = {
  logId: EXAMPLE_FAILED_DELIVERY_LOG_ID,
  createdAt: "2026-03-02T06:33:30.000Z",
  eventId: deliveryLogExample.eventId,
  eventType: "incident.created.v1",
  httpStatusCode: 0,
  statusClass: "none",
  attempt: 3,
  final: true,
  error: "timeout: no answer within 30 s; retries exhausted, dead-lettered",
};

export const webhookHealthView = z
  .object({
    webhook: webhookView,
    actions: actionsField,
    last24h: figuresView,
    last7d: figuresView,
    recentFailures: z.array(recentFailureView).describe("The newest failed attempts of the last 7 days, at most 10, newest first."),
  })
  .meta({
    examples: [
      {
        webhook: webhookExample,
        actions: ["pause"],
        last24h: {
          from: summaryExample.from,
          to: summaryExample.to,
          succeeded: 12,
          pending: 0,
          failed: 12,
          successRate: 0.5,
          finalFailures: 4,
          latencyMs: { p50: 260, p95: 2100, p99: 30000, sampleSize: 20 },
          truncated: false,
        },
        last7d: {
          from: "2026-02-23T09:15:00.000Z",
          to: "2026-03-02T09:15:00.000Z",
          succeeded: 86,
          pending: 0,
          failed: 16,
          successRate: 0.8431,
          finalFailures: 5,
          latencyMs: { p50: 231, p95: 2100, p99: 30000, sampleSize: 98 },
          truncated: false,
        },
        recentFailures: [failureExample],
      },
    ],
  });

export const webhookStateView = z
  .object({ webhook: webhookView, actions: actionsField })
  .meta({ examples: [{ webhook: { ...webhookExample, status: "Paused" }, actions: ["resume"] }] });

export const chartQuery = z
  .object({
    window: z
      .enum(Object.keys(healthWindows) as ["24h", "7d"])
      .default("24h")
      .describe("`24h`: 24 hourly buckets, the last one the current hour; `7d`: 7 daily buckets (UTC days), the last one today."),
  })
  .strict();

export const chartView = z
  .object({
    window: z.enum(["24h", "7d"]),
    bucket: z.enum(["1h", "1d"]).describe("Each bucket's length."),
    from: z.string().describe("The first bucket's start."),
    to: z.string(),
    buckets: z.array(z.object({ start: z.string(), succeeded: countsFields.succeeded, pending: countsFields.pending, failed: countsFields.failed })).describe("Oldest first."),
    truncated: z.boolean().describe("The window held more than 10,000 attempts: the oldest buckets miss some."),
  })
  .meta({
    examples: [
      {
        window: "24h",
        bucket: "1h",
        from: "2026-03-01T10:00:00.000Z",
        to: "2026-03-02T09:15:00.001Z",
        buckets: [
          { start: "2026-03-02T06:00:00.000Z", succeeded: 0, pending: 0, failed: 12 },
          { start: "2026-03-02T07:00:00.000Z", succeeded: 1, pending: 0, failed: 0 },
        ],
        truncated: false,
      },
    ],
  });

export const logListQuery = z
  .object({
    outcome: z.enum(deliveryStatuses).optional().describe("Only attempts with this status."),
    statusClass: z.enum(statusClasses).optional().describe("Only attempts whose HTTP status is of this class; `none`: no HTTP answer (network error, timeout, not sent, held)."),
    from: timestamp.optional().describe("Oldest createdAt; default: the start of the retention period."),
    to: timestamp.optional().describe("Entries created before this; default: now."),
    ...pageQueryFields,
  })
  .strict()
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { path: ["to"], message: "Must be after from." });

export const logListView = z
  .array(deliveryLogView.extend({ statusClass: z.enum(statusClasses) }))
  .meta({ examples: [[{ ...deliveryLogExample, statusClass: "5xx" }]] });

export const acceptedView = z
  .object({ eventId: z.string(), status: z.literal("Pending") })
  .meta({ examples: [{ eventId: deliveryLogExample.eventId, status: "Pending" }] });

/** A time the demo's outage is after: six hours before its failed delivery, whenever the demo started. */
const sinceExample = new Date(Date.parse(EXAMPLE_FAILED_DELIVERY_CREATED_AT) - 6 * 3_600_000).toISOString();

export const redeliverFailedBody = z
  .object({
    since: timestamp.describe("Failed deliveries created at or after this, at most 7 days back.").meta({ examples: [sinceExample] }),
  })
  .strict()
  .meta({ examples: [{ since: sinceExample }] });

export const redeliverFailedView = z
  .object({
    since: z.string(),
    queued: z.number().int().describe("Events sent again (at most 100 per call), each rebuilt from its incident as it is now, with its event id."),
    eventIds: z.array(z.string()),
    notRedeliverable: z.number().int().describe("Finally failed events of a type that cannot be rebuilt (only incident.created.v1 can)."),
    incidentGone: z.number().int().describe("Finally failed events whose incident no longer exists at its source."),
    nextSince: z.string().nullable().describe("Set when the bounds stopped this call: call again with it as `since` for the rest."),
  })
  .meta({ examples: [{ since: sinceExample, queued: 1, eventIds: [deliveryLogExample.eventId], notRedeliverable: 0, incidentGone: 0, nextSince: null }] });
