import { app } from "@azure/functions";
import { ALL_METHODS, httpHandler } from "../shared/azure/http-function";
import { serviceAccountRoutes } from "../shared/identity/service-account-routes";

app.http(serviceAccountRoutes.name, {
  route: serviceAccountRoutes.azureRoute,
  methods: [...ALL_METHODS],
  authLevel: "anonymous",
  handler: httpHandler(serviceAccountRoutes),
});
