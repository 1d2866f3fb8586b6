import { app } from "@azure/functions";
import { azureRouteOf } from "../shared/azure/route-templates";
import { ALL_METHODS, httpHandler } from "../shared/azure/http-function";
import { allRoutes, apiGroups, metaGroup } from "../shared/route-groups";

// One HTTP function per endpoint group, each on the route its paths share plus a catch-all, every
// method: the shared router decides 404 and 405. The meta group's catch-all (`v2/{*rest}`) answers
// whatever no other group claims through the full route table, so unknown paths get a 404 problem
// and known paths with a wrong verb a 405, never the host's own page.
for (const group of [...apiGroups, metaGroup]) {
  app.http(group.name, {
    route: azureRouteOf(group),
    methods: [...ALL_METHODS],
    authLevel: "anonymous",
    handler: httpHandler(group === metaGroup ? { ...group, routes: allRoutes() } : group),
  });
}
