import type { WebhookRecord } from "./webhook";

/** docs/contract.md §6.6.5: a webhook whose final deliveries fail for this many distinct incidents within 24 hours is disabled. */
export const AUTO_DISABLE_INCIDENTS = 5;
const AUTO_DISABLE_WINDOW_MS = 24 * 3600_000;

/**
 * Records a final delivery failure for an incident on a webhook (a draft, changed in place): the
 * failures older than 24 hours are forgotten, and the fifth distinct incident disables the webhook.
 */
export function countFinalFailure(draft: WebhookRecord, incidentKey: string, now: Date): void {
  const since = new Date(now.getTime() - AUTO_DISABLE_WINDOW_MS).toISOString();
  draft.finalFailures = [...draft.finalFailures.filter((f) => f.at > since), { incidentKey, at: now.toISOString() }];
  const distinct = distinctFailedIncidents(draft);
  if (distinct >= AUTO_DISABLE_INCIDENTS) {
    draft.status = "Disabled";
    draft.disabledAt = now.toISOString();
    draft.disableReason = `Final delivery failed for ${distinct} distinct incidents within 24 hours.`;
  }
}

/** How many distinct incidents the webhook's recorded final failures are for. */
export function distinctFailedIncidents(webhook: Pick<WebhookRecord, "finalFailures">): number {
  return new Set(webhook.finalFailures.map((f) => f.incidentKey)).size;
}
