import { app } from "@azure/functions";
import { ALL_METHODS, httpHandler } from "../shared/azure/http-function";
import { webhookRoutes } from "../shared/webhooks/webhook-routes";

app.http(webhookRoutes.name, {
  route: webhookRoutes.azureRoute,
  methods: [...ALL_METHODS],
  authLevel: "anonymous",
  handler: httpHandler(webhookRoutes),
});
