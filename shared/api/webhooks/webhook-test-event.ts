import { z } from "zod";
import { organizationRoute } from "../route-kinds";
import { deliveryAcceptedExample } from "../examples/webhook-examples";
import { sendTestEvent } from "../../domain/webhooks/test-event";
import { webhookIdParams } from "./webhook-schemas";
import { visibleWebhook } from "./webhook-access";

export const testEventRoute = organizationRoute({
  method: "POST",
  path: "/webhooks/{id}/test",
  idempotencyKey: true,
  summary: "Send a webhook.test.v1 event to this webhook",
  tag: "Webhooks",
  auth: "webhooks:manage",
  params: webhookIdParams,
  successStatus: 202,
  response: z.object({ eventId: z.string(), status: z.literal("Pending") }).meta({ examples: [deliveryAcceptedExample] }),
  async handler(input) {
    const { eventId } = await sendTestEvent(input, (await visibleWebhook(input, input.params.id)).value);
    return { status: 202, data: { eventId, status: "Pending" as const } };
  },
});
