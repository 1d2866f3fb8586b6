import { cycles, importGraph, type Import } from "./import-graph";

/*
 * The dependency direction of docs/architecture.md, as rules over the compiler's own reading of every
 * import. Each rule names the imports that break it; the tree is right when every list is empty.
 *
 *   functions/, scripts/ → shared/hosts/ → shared/api/ → shared/domain/ → shared/systems/, shared/platform/
 *
 * A kind is known by its folder alone: shared/<kind>/… . An adapter is any file in a subfolder of a
 * port's folder (shared/systems/<system>/<adapter>/…, shared/platform/<port>/<adapter>/…), or a
 * platform module that imports an SDK.
 */

export type Kind = "functions" | "scripts" | "hosts" | "api" | "domain" | "systems" | "platform" | "other";
export type Edge = { from: string } & Import;

export const kindOf = (file: string): Kind => {
  const [top, second] = file.split("/");
  if (top === "functions" || top === "scripts") return top;
  if (top === "shared" && ["hosts", "api", "domain", "systems", "platform"].includes(second!)) return second as Kind;
  return "other";
};

/** The lists of endpoint groups: every group built at once (`route-groups.ts`), and each on first use (`route-table.ts`). */
const routeTables = ["shared/api/route-groups.ts", "shared/api/route-table.ts"];

/** `shared/api/<group>/…` → the group; "" for anything else (the route tables included). */
export const groupOf = (file: string): string => {
  const parts = file.split("/");
  return parts[0] === "shared" && parts[1] === "api" && parts.length > 3 ? parts[2]! : "";
};

/** The portal group's assembly: the one module that gathers its areas' routes. */
const portalAssembly = "shared/api/portal/portal-groups.ts";

/** `shared/api/portal/<area>/…` → the area; "" for anything else (what the areas share, directly under portal/, included). */
const portalAreaOf = (file: string): string => {
  const parts = file.split("/");
  return parts[0] === "shared" && parts[1] === "api" && parts[2] === "portal" && parts.length > 4 ? parts[3]! : "";
};

/** A module of a portal area's routes (`*-routes.ts`, `*-route.ts`). */
const isPortalRoutes = (file: string) => portalAreaOf(file) !== "" && /-routes?\.ts$/.test(file);

/** `shared/systems/<system>/…` and `shared/platform/<port>/…` → that folder; "" otherwise. */
export const portFolderOf = (file: string): string => {
  const parts = file.split("/");
  return parts[0] === "shared" && (parts[1] === "systems" || parts[1] === "platform") && parts.length > 3 ? parts.slice(0, 3).join("/") : "";
};

export const isSdk = (specifier: string) => (specifier.startsWith("@azure/") && specifier !== "@azure/functions") || specifier === "undici" || specifier.startsWith("@microsoft/");

/** Which imports break which rule. */
export function ruleViolations(graph: Map<string, Import[]>): Record<string, string[]> {
  const edges: Edge[] = [...graph].flatMap(([from, imports]) => imports.map((i) => ({ from, ...i })));
  const local = edges.filter((e) => !e.external);
  const sdkUsers = new Set(edges.filter((e) => e.external && isSdk(e.to) && !e.typeOnly).map((e) => e.from));
  const inAdapterFolder = (file: string) => portFolderOf(file) !== "" && file.split("/").length > 4;
  /** A platform mechanism that wraps an SDK (the webhook sender, the Azure credential) is an adapter too. */
  const isAdapter = (file: string) => inAdapterFolder(file) || (kindOf(file) === "platform" && sdkUsers.has(file));
  /**
   * The domain's model: aggregates, value tables and the pure rules on them. A domain module is model
   * when what it runs at import is only more model, ports' declarations and the platform's errors and
   * ids: it does no I/O and knows no mechanism.
   */
  const modelMemo = new Map<string, boolean>();
  const isModel = (file: string): boolean => {
    if (kindOf(file) !== "domain") return false;
    if (modelMemo.has(file)) return modelMemo.get(file)!;
    modelMemo.set(file, false);
    const ok = (graph.get(file) ?? []).every(
      (i) => i.external || i.typeOnly || isModel(i.to) || i.to.endsWith("/port.ts") || /^shared\/platform\/(errors|ids)\//.test(i.to),
    );
    modelMemo.set(file, ok);
    return ok;
  };
  /** Left out of the deployment package (tsconfig.deploy.json): the embedded default's own parts. */
  const isLocalOnly = (file: string) => file.startsWith("shared/hosts/local/") || /^shared\/systems\/[^/]+\/simulated\//.test(file);
  const composes = (file: string) => ["functions", "scripts", "hosts"].includes(kindOf(file));
  const show = (list: Edge[]) => list.map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`);
  const below: Record<Kind, Kind[]> = {
    functions: ["functions", "hosts", "api", "domain", "systems", "platform"],
    scripts: ["scripts", "hosts", "api", "domain", "systems", "platform"],
    hosts: ["hosts", "api", "domain", "systems", "platform"],
    api: ["api", "domain", "systems", "platform"],
    domain: ["domain", "systems", "platform"],
    systems: ["systems", "domain", "platform"],
    platform: ["platform", "domain", "systems"],
    other: [],
  };
  return {
    cycles: cycles(graph).map((c) => c.join(" ↔ ")),
    "each kind imports only the kinds below it": show(local.filter((e) => kindOf(e.from) !== "other" && !below[kindOf(e.from)].includes(kindOf(e.to)))),
    "no endpoint group imports another group": show(local.filter((e) => groupOf(e.from) !== "" && groupOf(e.to) !== "" && groupOf(e.from) !== groupOf(e.to))),
    "only the route tables and the hosts import a group": show(local.filter((e) => groupOf(e.to) !== "" && groupOf(e.from) === "" && !routeTables.includes(e.from) && !composes(e.from))),
    "no portal area imports another area: what they share sits directly under portal/": show(
      local.filter((e) => portalAreaOf(e.from) !== "" && portalAreaOf(e.to) !== "" && portalAreaOf(e.from) !== portalAreaOf(e.to)),
    ),
    "only the portal's assembly imports an area's routes": show(local.filter((e) => isPortalRoutes(e.to) && e.from !== portalAssembly)),
    "the platform and the systems use the domain's model, never its operations": show(
      local.filter((e) => ["platform", "systems"].includes(kindOf(e.from)) && kindOf(e.to) === "domain" && !e.typeOnly && !isModel(e.to)),
    ),
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

export function treeViolations(root: string) {
  return ruleViolations(importGraph(root, ["shared", "functions", "scripts"]));
}
