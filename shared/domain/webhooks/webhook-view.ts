import type { z } from "zod";
import type { WebhookRecord } from "../../domain/webhooks/webhook";
import type { webhookView } from "./webhook-schemas";

/** Contract 2.8: secrets never leave, only whether a signing key exists. */
export function toWebhookView(w: WebhookRecord): z.output<typeof webhookView> {
  return {
    id: w.id,
    serviceProviderId: w.serviceProviderId,
    targetAccountId: w.targetAccountId,
    targetAccountName: w.targetAccountName,
    workspaceId: w.workspaceId,
    name: w.name,
    url: w.url,
    status: w.status,
    eventTypes: w.eventTypes,
    monitoredAccountIds: w.monitoredAccountIds,
    authenticationType: w.authenticationType,
    hasSigningToken: w.signingKeys.length > 0,
    disableReason: w.disableReason,
    disabledAt: w.disabledAt,
    createdAt: w.createdAt,
    lastModifiedAt: w.lastModifiedAt,
  };
}
