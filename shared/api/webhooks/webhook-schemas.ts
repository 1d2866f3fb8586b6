import { z } from "zod";
import { EXAMPLE_DISABLED_WEBHOOK_ID, EXAMPLE_PAUSED_WEBHOOK_ID, EXAMPLE_RETIRED_WEBHOOK_ID, EXAMPLE_WEBHOOK_ID } from "../../platform/http/examples";

const webhookId = z.guid().describe("The webhook's id.");
export const webhookIdParams = z.object({ id: webhookId.meta({ examples: [EXAMPLE_WEBHOOK_ID] }) });
// Examples that change a webhook's state or remove it each have a target of their own, in the state
// they need: a paused webhook to resume, a disabled one to enable, a retired one to change and delete.
export const pausedWebhookIdParams = z.object({ id: webhookId.meta({ examples: [EXAMPLE_PAUSED_WEBHOOK_ID] }) });
export const disabledWebhookIdParams = z.object({ id: webhookId.meta({ examples: [EXAMPLE_DISABLED_WEBHOOK_ID] }) });
export const retiredWebhookIdParams = z.object({ id: webhookId.meta({ examples: [EXAMPLE_RETIRED_WEBHOOK_ID] }) });
