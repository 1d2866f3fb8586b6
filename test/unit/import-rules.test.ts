import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cycles, importGraph, type Import } from "../support/import-graph";

/*
 * The dependency direction of DESIGN §1, checked on the compiler's own reading of every import:
 * `functions/`, `shared/local/`, `shared/azure/` and `shared/composition.ts` compose; endpoint groups
 * meet only in `shared/route-groups.ts`; the core mechanisms know no endpoint group; adapters (the
 * modules that talk to an SDK or stand in for an external system) are chosen by the composition root
 * and reached by everyone else through their ports.
 */

const root = join(__dirname, "../..");
const graph = importGraph(root, ["shared", "functions", "scripts"]);
const edges = [...graph].flatMap(([from, imports]) => imports.map((i) => ({ from, ...i })));
type Edge = { from: string } & Import;

/** `shared/<folder>/…` → folder; top-level shared files and other trees → "". */
const folderOf = (file: string) => (file.startsWith("shared/") && file.split("/").length > 2 ? file.split("/")[1]! : "");
const isEntry = (file: string) =>
  file.startsWith("functions/") || file.startsWith("scripts/") || file.startsWith("shared/local/") || file.startsWith("shared/azure/") || file === "shared/composition.ts";
const isRouteFile = (file: string) => file.endsWith("-routes.ts");

/** Endpoint groups: the folders holding route files (the local host's controls are its own). */
const groups = new Set([...graph.keys()].filter((f) => isRouteFile(f) && folderOf(f) !== "local").map(folderOf));
/** The service's own mechanisms, below every endpoint group. */
const core = new Set(["errors", "ids", "upstream", "http", "auth", "store", "queue", "events", "delivery"]);
/**
 * Adapters: an SDK's client, an in-process stand-in, a simulated system, an HTTP bridge. Known by
 * where they live (memory/, cosmos/, simulated/, arm/, a port folder's http/), by their name
 * (simulated-, in-process-, service-bus-, guarded-, graph-, azure-, arm-, http- …, … -bridge), or by
 * importing an SDK.
 */
const adapterPatterns = [/\/memory\//, /\/cosmos\//, /\/simulated\//, /\/arm\//, /^shared\/[^/]+\/http\//, /\/(simulated|in-process|service-bus|guarded|graph|azure|arm|http)-[^/]*\.ts$/, /-bridge\.ts$/];
const isSdk = (specifier: string) => (specifier.startsWith("@azure/") && specifier !== "@azure/functions") || specifier === "undici" || specifier.startsWith("@microsoft/");
const sdkUsers = new Set(edges.filter((e) => e.external && isSdk(e.to) && !e.typeOnly).map((e) => e.from));
const isAdapter = (file: string) => sdkUsers.has(file) || adapterPatterns.some((p) => p.test(file));

const show = (list: Edge[]) => list.map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`);

describe("imports point one way", () => {
  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(groups).toEqual(expect.objectContaining({ size: expect.any(Number) }));
    expect([...groups]).toEqual(expect.arrayContaining(["identity", "incidents", "webhooks", "meta"]));
  });

  it("has no import cycle, type imports included", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("lets only the composition modules import the local host and the composition root", () => {
    const bad = edges.filter((e) => !e.external && (e.to.startsWith("shared/local/") || e.to === "shared/composition.ts") && !isEntry(e.from));
    expect(show(bad)).toEqual([]);
  });

  it("lets endpoint groups meet only in route-groups.ts: no module imports another folder's route file", () => {
    const bad = edges.filter((e) => !e.external && isRouteFile(e.to) && e.from !== "shared/route-groups.ts" && folderOf(e.from) !== folderOf(e.to));
    expect(show(bad)).toEqual([]);
  });

  it("keeps the core mechanisms free of endpoint groups", () => {
    const bad = edges.filter((e) => !e.external && core.has(folderOf(e.from)) && groups.has(folderOf(e.to)));
    expect(show(bad)).toEqual([]);
  });

  it("keeps errors, ids and the upstream helpers at the bottom", () => {
    const bottom = new Set(["errors", "ids", "upstream"]);
    const bad = edges.filter((e) => !e.external && bottom.has(folderOf(e.from)) && !bottom.has(folderOf(e.to)));
    expect(show(bad)).toEqual([]);
  });

  it("reaches adapters only from the composition root, the local host and the adapter's own folder", () => {
    const bad = edges.filter((e) => !e.external && !e.typeOnly && isAdapter(e.to) && !isEntry(e.from) && !isAdapter(e.from) && folderOf(e.from) !== folderOf(e.to));
    expect(show(bad)).toEqual([]);
  });

  it("keeps SDKs out of endpoint groups and the core, and the Functions runtime in functions/", () => {
    const sdk = edges.filter((e) => e.external && isSdk(e.to) && !e.typeOnly && (groups.has(folderOf(e.from)) || (core.has(folderOf(e.from)) && !isAdapter(e.from))));
    const functionsRuntime = edges.filter((e) => e.external && e.to === "@azure/functions" && !e.typeOnly && !e.from.startsWith("functions/"));
    expect(show([...sdk, ...functionsRuntime])).toEqual([]);
  });
});
