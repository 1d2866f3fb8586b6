import { app } from "@azure/functions";
import { ALL_METHODS, httpHandler } from "../shared/azure/http-function";
import { userRoutes } from "../shared/identity/user-routes";

app.http(userRoutes.name, {
  route: userRoutes.azureRoute,
  methods: [...ALL_METHODS],
  authLevel: "anonymous",
  handler: httpHandler(userRoutes),
});
