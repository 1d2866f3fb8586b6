import { notFound } from "../../platform/errors/api-error";
import type { RequestContext } from "../../platform/http/route";
import type { Versioned } from "../../platform/store/ports";
import type { WebhookRecord } from "../../domain/webhooks/webhook";

/** A webhook of the caller's organization; any other id is 404, never "forbidden". */
export async function visibleWebhook(input: RequestContext, id: string): Promise<Versioned<WebhookRecord>> {
  const found = await input.stores.webhooks.get(id.toLowerCase());
  if (!found || !input.principal.organizationAccountIds.includes(found.value.targetAccountId)) throw notFound("The webhook", "id");
  return found;
}
