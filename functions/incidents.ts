import { app } from "@azure/functions";
import { ALL_METHODS, httpHandler } from "../shared/azure/http-function";
import { incidentRoutes } from "../shared/incidents/incident-routes";

app.http(incidentRoutes.name, {
  route: incidentRoutes.azureRoute,
  methods: [...ALL_METHODS],
  authLevel: "anonymous",
  handler: httpHandler(incidentRoutes),
});
