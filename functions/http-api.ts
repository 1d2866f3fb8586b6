import { app } from "@azure/functions";
import { ALL_METHODS, httpFunctions, lazyHttpHandler } from "../shared/hosts/azure/http-functions";

// One HTTP function per endpoint group, each on the route its paths share plus a catch-all, every
// method: the shared router decides 404 and 405. The meta group's catch-all (`v2/{*rest}`) answers
// whatever no other group claims through the full route table, so unknown paths get a 404 problem
// and known paths with a wrong verb a 405, never the host's own page. The route table loads on the
// first request, not here: the worker imports this module at every cold start.
for (const fn of httpFunctions) {
  app.http(fn.name, {
    route: fn.route,
    methods: [...ALL_METHODS],
    authLevel: "anonymous",
    handler: lazyHttpHandler(fn.name),
  });
}
