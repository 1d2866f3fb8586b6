import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import type { Import } from "./layer-rules.cjs";

export type { Import };

/**
 * The import graph of the TypeScript sources under `folders`, read with the compiler's own parser:
 * static imports, re-exports, `require("…")` calls (the lazy loading of SDKs) and `import("…")`
 * expressions (modules loaded on first use).
 */
export function importGraph(root: string, folders: readonly string[]): Map<string, Import[]> {
  const graph = new Map<string, Import[]>();
  for (const file of folders.flatMap((f) => sourcesUnder(join(root, f)))) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const imports: Import[] = [];
    const add = (specifier: string, typeOnly: boolean) => {
      if (!specifier.startsWith(".")) return void imports.push({ to: specifier, typeOnly, external: true });
      const target = resolveModule(resolve(dirname(file), specifier));
      if (target) imports.push({ to: relative(root, target), typeOnly, external: false });
    };
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, isTypeOnly(node));
      } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "require") {
        const [arg] = node.arguments;
        if (arg && ts.isStringLiteral(arg)) add(arg.text, false);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        // import("./x.js"): a module loaded on first use, written with the extension it has at run time.
        const [arg] = node.arguments;
        if (arg && ts.isStringLiteral(arg)) add(arg.text.replace(/\.js$/, ""), false);
      }
      node.forEachChild(visit);
    };
    visit(source);
    graph.set(relative(root, file), imports);
  }
  return graph;
}

/** Every cycle (strongly connected set of more than one module, or a module importing itself). */
export function cycles(graph: Map<string, Import[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const { to, external } of graph.get(v) ?? []) {
      if (external) continue;
      if (to === v) found.push([v]);
      if (!index.has(to)) {
        connect(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(v, Math.min(low.get(v)!, index.get(to)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

function resolveModule(path: string): string | undefined {
  for (const candidate of [`${path}.ts`, join(path, "index.ts")]) if (existsSync(candidate)) return candidate;
  return undefined;
}

function sourcesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}
