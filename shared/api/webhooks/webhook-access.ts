import type { RequestContext } from "../route-kinds";
import type { Versioned } from "../../platform/store/ports";
import type { WebhookRecord } from "../../model/webhooks/webhook";
import { organizationWebhook } from "../../domain/webhooks/webhook-changes";

/** A webhook of the caller's organization; any other id is 404, never "forbidden". */
export function visibleWebhook(input: RequestContext, id: string): Promise<Versioned<WebhookRecord>> {
  return organizationWebhook(input, input.principal.organizationAccountIds, id);
}
