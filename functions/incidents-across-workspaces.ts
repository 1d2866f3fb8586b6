import { app } from "@azure/functions";
import { ALL_METHODS, httpHandler } from "../shared/azure/http-function";
import { incidentsAcrossWorkspacesRoutes } from "../shared/incidents/across-workspaces-routes";

app.http(incidentsAcrossWorkspacesRoutes.name, {
  route: incidentsAcrossWorkspacesRoutes.azureRoute,
  methods: [...ALL_METHODS],
  authLevel: "anonymous",
  handler: httpHandler(incidentsAcrossWorkspacesRoutes),
});
