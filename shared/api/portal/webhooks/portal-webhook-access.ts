import type { PersonInput } from "../../route-kinds";
import type { Versioned } from "../../../platform/store/ports";
import type { WebhookRecord } from "../../../model/webhooks/webhook";
import { organizationWebhook } from "../../../domain/webhooks/webhook-changes";

/** Who configures webhooks, changes their state or sends to them: the organization's integrations are the WorkspaceAdmin's (and Admin's). */
export const OPERATORS = ["WorkspaceAdmin"] as const;

/** A webhook of the person's organization; any other is 404 at `webhookId`. */
export function webhookOf(input: PersonInput<{ webhookId: string }, unknown, unknown>): Promise<Versioned<WebhookRecord>> {
  return organizationWebhook(input, input.person.organizationAccountIds, input.params.webhookId, "webhookId");
}
