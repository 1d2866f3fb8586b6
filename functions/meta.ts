import { app } from "@azure/functions";
import { ALL_METHODS, httpHandler } from "../shared/azure/http-function";
import { allRoutes, metaGroup } from "../shared/route-groups";

// The API-wide catch-all: it serves the reference routes and answers everything no other group
// claims through the full route table, so unknown paths get a 404 problem and known paths with a
// wrong verb a 405, never the host's own page.
app.http(metaGroup.name, {
  route: metaGroup.azureRoute,
  methods: [...ALL_METHODS],
  authLevel: "anonymous",
  handler: httpHandler({ ...metaGroup, routes: allRoutes() }),
});
