import { cycles, importGraph, type Import } from "./import-graph";
import { layerViolations } from "./layer-rules.cjs";

export { groupOf, kindOf } from "./layer-rules.cjs";

/**
 * The dependency direction of docs/architecture.md on the compiler's reading of every import: the
 * rules on single imports (layer-rules.cjs, which ESLint applies too) and, what only the whole graph
 * shows, the cycles. Each rule names the imports that break it; the tree is right when every list is empty.
 */
export function ruleViolations(graph: Map<string, Import[]>): Record<string, string[]> {
  return {
    cycles: cycles(graph).map((c) => c.join(" ↔ ")),
    "the domain's areas build on one another one way": cycles(domainAreaGraph(graph)).map((c) => c.join(" ↔ ")),
    ...layerViolations(graph),
  };
}

/** `shared/domain/<area>/…` → `shared/domain/<area>`; "" for anything else (the domain's own root files included). */
function domainAreaOf(file: string): string {
  const parts = file.split("/");
  return parts[0] === "shared" && parts[1] === "domain" && parts.length > 3 ? parts.slice(0, 3).join("/") : "";
}

/**
 * The imports between the domain's areas (incidents, gamebooks, tickets…), an area taken as one
 * module: gamebooks act on incidents and tickets link them, so an area that another builds on must
 * not import it back, or neither can be read, changed or tested without the other.
 */
function domainAreaGraph(graph: Map<string, Import[]>): Map<string, Import[]> {
  const areas = new Map<string, Import[]>();
  for (const [from, imports] of graph) {
    const area = domainAreaOf(from);
    if (area === "") continue;
    const list = areas.get(area) ?? [];
    areas.set(area, list);
    for (const i of imports) {
      const to = i.external ? "" : domainAreaOf(i.to);
      if (to !== "" && to !== area && !list.some((e) => e.to === to)) list.push({ to, typeOnly: i.typeOnly, external: false });
    }
  }
  return areas;
}

/** The folders the rules read: what runs, and what composes it. */
export const treeGraph = (root: string) => importGraph(root, ["shared", "functions", "scripts"]);

export const treeViolations = (root: string) => ruleViolations(treeGraph(root));
