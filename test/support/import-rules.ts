import { cycles, importGraph, type Import } from "./import-graph";
import { layerViolations } from "./layer-rules.cjs";

export { groupOf, kindOf } from "./layer-rules.cjs";

/**
 * The dependency direction of docs/architecture.md on the compiler's reading of every import: the
 * rules on single imports (layer-rules.cjs, which ESLint applies too) and, what only the whole graph
 * shows, the cycles. Each rule names the imports that break it; the tree is right when every list is empty.
 */
export function ruleViolations(graph: Map<string, Import[]>): Record<string, string[]> {
  return { cycles: cycles(graph).map((c) => c.join(" ↔ ")), ...layerViolations(graph) };
}

/** The folders the rules read: what runs, and what composes it. */
export const treeGraph = (root: string) => importGraph(root, ["shared", "functions", "scripts"]);

export const treeViolations = (root: string) => ruleViolations(treeGraph(root));
