import { app, HttpResponse } from "@azure/functions";
import { PORTAL_PAGE_PATH, PortalPage } from "../shared/platform/http/portal-page";

// The portal page: static files in the package (no CDN), outside the API's `api/v2` routes, so
// host.json's route prefix is empty and every API function names `api/` itself. The module is
// small (node:fs, and the negotiation of a content coding); the files are read on first request.
const page = new PortalPage();

for (const [name, route] of [
  ["portal-page", "portal/{*path}"],
  ["portal-page-root", "portal"],
] as const) {
  app.http(name, {
    route,
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    authLevel: "anonymous",
    async handler(request) {
      const pathname = new URL(request.url).pathname;
      const answer = page.respond(request.method, pathname.startsWith(PORTAL_PAGE_PATH) ? pathname : PORTAL_PAGE_PATH, request.headers.get("accept-encoding") ?? "");
      return new HttpResponse({ status: answer.status, headers: answer.headers, body: request.method === "HEAD" ? undefined : answer.body });
    },
  });
}
