/**
 * `npm run routes:azure`: writes shared/hosts/azure/http-functions.json, the Azure Functions HTTP
 * function of each endpoint group in shared/api/route-groups.ts (its name and the route template
 * its paths share). The Functions worker imports every function module at each cold start, so the
 * registrations read this small file rather than load every group and its schemas to derive it.
 * `test/unit/functions-registration.test.ts` fails, naming this command, when the file is stale.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { allGroups } from "../shared/api/route-groups";
import type { RouteGroup } from "../shared/platform/http/route";

/** Where the list lives, from the repository root. */
export const HTTP_FUNCTIONS_PATH = "shared/hosts/azure/http-functions.json";

/**
 * The Azure Functions route template of an endpoint group, derived from its paths: the segments
 * every path of the group starts with (literals and parameters alike), then a catch-all, under the
 * `api/v2` (host.json's route prefix is empty: the portal page lives outside the API). The shared router inside the function
 * then matches the exact route, so the host never decides 404 or 405 itself.
 *
 * @example azureRouteOf({ routes: [GET /webhooks, GET /webhooks/{id}] }) // "v2/webhooks/{*rest}"
 */
export function azureRouteOf(group: Pick<RouteGroup, "routes">): string {
  const paths = group.routes.map((r) => r.path.split("/").filter((s) => s.length > 0));
  const shared: string[] = [];
  for (let i = 0; paths.length > 0 && paths.every((p) => i < p.length && p[i] === paths[0]![i]); i++) shared.push(paths[0]![i]!);
  return ["api", "v2", ...shared, "{*rest}"].join("/");
}

/** The file's content: one HTTP function per group, in the route table's order. */
export function httpFunctionsFile(): string {
  return JSON.stringify(allGroups().map((g) => ({ name: g.name, route: azureRouteOf(g) })), null, 2) + "\n";
}

if (require.main === module) {
  writeFileSync(resolve(__dirname, "../..", HTTP_FUNCTIONS_PATH), httpFunctionsFile());
  console.log(`wrote ${HTTP_FUNCTIONS_PATH}`);
}
