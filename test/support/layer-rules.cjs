// @ts-check
/*
 * The dependency direction of docs/architecture.md, as rules on single imports. Each rule names the
 * imports that break it; the tree is right when every list is empty. Two readers apply them: the
 * import-rules test, on the compiler's reading of the whole tree (it adds the cycles), and ESLint's
 * `layers/imports` rule (eslint.config.mjs), on one file at a time as it is edited. Plain CommonJS so
 * that both can load it: the ESLint configuration is not compiled.
 *
 *   functions/, scripts/ → shared/hosts/ → shared/api/ → shared/domain/ → shared/systems/ → shared/platform/ → shared/model/
 *
 * Under shared/api/, a folder is an endpoint group, except the folders the groups share
 * (`sharedApiFolders`: examples/, schemas/), which any group may import.
 *
 * A kind is known by its folder alone: shared/<kind>/… . An adapter is any file in a subfolder of a
 * port's folder (shared/systems/<system>/<adapter>/…, shared/platform/<port>/<adapter>/…), or a
 * platform module that imports an SDK.
 */

/** @typedef {import("./layer-rules.cjs").Kind} Kind */
/** @typedef {import("./layer-rules.cjs").Import} Import */
/** @typedef {{ from: string } & Import} Edge */

/** @type {(file: string) => Kind} */
const kindOf = (file) => {
  const [top, second] = file.split("/");
  if (top === "functions" || top === "scripts") return top;
  if (top === "shared" && ["hosts", "api", "domain", "systems", "platform", "model"].includes(second ?? "")) return /** @type {Kind} */ (second);
  return "other";
};

/** The lists of endpoint groups: every group built at once (`route-groups.ts`), and each on first use (`route-table.ts`). */
const routeTables = ["shared/api/route-groups.ts", "shared/api/route-table.ts"];

/**
 * The folders of shared/api/ that are no endpoint group: what the groups and their twins (the
 * service accounts' and the portal's) share, beside the route tables. Every group may import them.
 */
const sharedApiFolders = ["examples", "schemas"];

/** `shared/api/<group>/…` → the group; "" for anything else (the route tables and the shared folders included). @type {(file: string) => string} */
const groupOf = (file) => {
  const parts = file.split("/");
  return parts[0] === "shared" && parts[1] === "api" && parts.length > 3 && !sharedApiFolders.includes(parts[2] ?? "") ? (parts[2] ?? "") : "";
};

/** The portal group's assembly: the one module that gathers its areas' routes. */
const portalAssembly = "shared/api/portal/portal-groups.ts";

/** `shared/api/portal/<area>/…` → the area; "" for anything else (what the areas share, directly under portal/, included). @type {(file: string) => string} */
const portalAreaOf = (file) => {
  const parts = file.split("/");
  return parts[0] === "shared" && parts[1] === "api" && parts[2] === "portal" && parts.length > 4 ? (parts[3] ?? "") : "";
};

/** A module of a portal area's routes (`*-routes.ts`, `*-route.ts`). @type {(file: string) => boolean} */
const isPortalRoutes = (file) => portalAreaOf(file) !== "" && /-routes?\.ts$/.test(file);

/** `shared/systems/<system>/…` and `shared/platform/<port>/…` → that folder; "" otherwise. @type {(file: string) => string} */
const portFolderOf = (file) => {
  const parts = file.split("/");
  return parts[0] === "shared" && (parts[1] === "systems" || parts[1] === "platform") && parts.length > 3 ? parts.slice(0, 3).join("/") : "";
};

/** @type {(specifier: string) => boolean} */
const isSdk = (specifier) => (specifier.startsWith("@azure/") && specifier !== "@azure/functions") || specifier === "undici" || specifier.startsWith("@microsoft/");

/**
 * The floors, literally: each kind imports itself and the kinds below it, never one above. The
 * systems use the platform's mechanisms (its upstream clients, its errors); the platform knows no
 * system. The model imports only itself.
 * @type {Record<Kind, Kind[]>}
 */
const below = {
  functions: ["functions", "hosts", "api", "domain", "systems", "platform", "model"],
  scripts: ["scripts", "hosts", "api", "domain", "systems", "platform", "model"],
  hosts: ["hosts", "api", "domain", "systems", "platform", "model"],
  api: ["api", "domain", "systems", "platform", "model"],
  domain: ["domain", "systems", "platform", "model"],
  systems: ["systems", "platform", "model"],
  platform: ["platform", "model"],
  model: ["model"],
  other: [],
};

/**
 * Which imports break which rule. `graph` maps a repository-relative file to its imports; a rule
 * that needs to know what an imported module imports in turn (is a platform module an adapter
 * because it imports an SDK?) learns it from the graph, and where the graph does not have that
 * module (one file at a time, as ESLint reads), gives the import the benefit of the doubt.
 * @param {Map<string, Import[]>} graph
 * @returns {Record<string, string[]>}
 */
function layerViolations(graph) {
  /** @type {Edge[]} */
  const edges = [...graph].flatMap(([from, imports]) => imports.map((i) => ({ from, ...i })));
  const local = edges.filter((e) => !e.external);
  const sdkUsers = new Set(edges.filter((e) => e.external && isSdk(e.to) && !e.typeOnly).map((e) => e.from));
  /** @type {(file: string) => boolean} */
  const inAdapterFolder = (file) => portFolderOf(file) !== "" && file.split("/").length > 4;
  /** A platform mechanism that wraps an SDK (the webhook sender, the Azure credential) is an adapter too. @type {(file: string) => boolean} */
  const isAdapter = (file) => inAdapterFolder(file) || (kindOf(file) === "platform" && sdkUsers.has(file));
  /** Left out of the deployment package (tsconfig.deploy.json): the embedded default's own parts. @type {(file: string) => boolean} */
  const isLocalOnly = (file) => file.startsWith("shared/hosts/local/") || /^shared\/systems\/[^/]+\/simulated\//.test(file);
  /** @type {(file: string) => boolean} */
  const composes = (file) => ["functions", "scripts", "hosts"].includes(kindOf(file));
  /** @type {(list: Edge[]) => string[]} */
  const show = (list) => list.map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`);
  return {
    "each kind imports only the kinds below it": show(local.filter((e) => kindOf(e.from) !== "other" && !below[kindOf(e.from)].includes(kindOf(e.to)))),
    "no endpoint group imports another group": show(local.filter((e) => groupOf(e.from) !== "" && groupOf(e.to) !== "" && groupOf(e.from) !== groupOf(e.to))),
    "only the route tables and the hosts import a group": show(local.filter((e) => groupOf(e.to) !== "" && groupOf(e.from) === "" && !routeTables.includes(e.from) && !composes(e.from))),
    "no portal area imports another area: what they share sits directly under portal/": show(
      local.filter((e) => portalAreaOf(e.from) !== "" && portalAreaOf(e.to) !== "" && portalAreaOf(e.from) !== portalAreaOf(e.to)),
    ),
    "only the portal's assembly imports an area's routes": show(local.filter((e) => isPortalRoutes(e.to) && e.from !== portalAssembly)),
    "the API, the domain and the platform reach a system only through its port": show(local.filter((e) => ["domain", "platform", "api"].includes(kindOf(e.from)) && kindOf(e.to) === "systems" && !e.to.endsWith("/port.ts"))),
    "adapters are chosen by the composition root: reached only from the hosts and their own port's folder": show(
      local.filter((e) => !e.typeOnly && isAdapter(e.to) && !composes(e.from) && !isAdapter(e.from) && portFolderOf(e.from) !== portFolderOf(e.to)),
    ),
    "what Azure does not run (the local host, the simulated systems) is reached only from the local host and scripts": show(
      local.filter((e) => isLocalOnly(e.to) && !isLocalOnly(e.from) && kindOf(e.from) !== "scripts"),
    ),
    "SDKs only in adapters, the platform and the hosts; the Functions runtime only in functions/ and (types) the Azure host": show(
      edges.filter(
        (e) =>
          e.external &&
          ((isSdk(e.to) && !e.typeOnly && (["api", "domain"].includes(kindOf(e.from)) || (kindOf(e.from) === "systems" && !inAdapterFolder(e.from)))) ||
            (e.to === "@azure/functions" && !e.typeOnly && kindOf(e.from) !== "functions") ||
            (e.to === "@azure/functions" && e.typeOnly && !["functions", "hosts"].includes(kindOf(e.from)))),
      ),
    ),
  };
}

module.exports = { kindOf, groupOf, portFolderOf, isSdk, layerViolations };
