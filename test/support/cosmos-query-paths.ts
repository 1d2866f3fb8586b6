import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The document paths the Cosmos adapter's queries filter and sort on, by container, read from the
 * adapter's source: every `.query(…)`, `.queryVersioned(…)` and `.page(…)` call, with the string
 * literals written since the previous call in its file (a query's conditions are built just before
 * it), the `SELECT … FROM c` projection left out (what a query returns needs no index).
 */
export interface QuerySite {
  file: string;
  line: number;
  receiver: string;
  containers: readonly string[];
  paths: string[];
}

const QUERY_METHODS = new Set(["query", "queryVersioned", "page"]);
const PATH = /\bc((?:\.[A-Za-z_]\w*)+)/g;

/** Which container each collection a query is called on reads, file by file. */
export type Receivers = Record<string, Record<string, readonly string[]>>;

export function cosmosQuerySites(dir: string, receivers: Receivers): QuerySite[] {
  const sites: QuerySite[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()) {
    // The collection's own generic query (the keyset page, ORDER BY c.id) is counted at its callers.
    if (name === "collection.ts" || name === "containers.ts") continue;
    const text = readFileSync(path.join(dir, name), "utf8");
    const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    const literals: { pos: number; text: string }[] = [];
    const calls: { start: number; end: number; receiver: string; method: string }[] = [];
    // Module constants a query interpolates (a condition several queries share) count where they are used.
    const constants = new Map<string, string>();
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const d of statement.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer && ts.isStringLiteral(d.initializer)) constants.set(d.name.text, d.initializer.text);
      }
    }
    // Module functions that build a query's conditions count where they are called.
    const helpers = new Map<string, { start: number; end: number }>();
    for (const statement of source.statements) {
      if (ts.isFunctionDeclaration(statement) && statement.name) helpers.set(statement.name.text, { start: statement.getStart(), end: statement.getEnd() });
    }
    const helperCalls: { pos: number; name: string }[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && helpers.has(node.expression.text)) helperCalls.push({ pos: node.getStart(), name: node.expression.text });
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && constants.has(node.name.text) && node.parent.parent.parent === source) return;
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literals.push({ pos: node.getStart(), text: node.text });
      else if (ts.isTemplateExpression(node)) {
        literals.push({ pos: node.head.getStart(), text: node.head.text });
        for (const span of node.templateSpans) {
          const shared = ts.isIdentifier(span.expression) ? constants.get(span.expression.text) : undefined;
          if (shared !== undefined) literals.push({ pos: span.getStart(), text: shared });
          literals.push({ pos: span.literal.getStart(), text: span.literal.text });
        }
      }
      // `….items.query` is a wrapper's own call to the SDK: the queries are its callers'.
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && QUERY_METHODS.has(node.expression.name.text) && !node.expression.expression.getText().endsWith(".items")) {
        calls.push({ start: node.getStart(), end: node.getEnd(), receiver: node.expression.expression.getText(), method: node.expression.name.text });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    calls.sort((a, b) => a.start - b.start);
    let from = 0;
    for (const call of calls) {
      const containers = receivers[name]?.[call.receiver];
      // Only helpers that build conditions: a function holding queries of its own is not one.
      const called = helperCalls
        .filter((h) => h.pos >= from && h.pos < call.end)
        .map((h) => helpers.get(h.name)!)
        .filter((h) => !calls.some((c) => c.start >= h.start && c.end <= h.end));
      const inRange = (pos: number) => (pos >= from && pos < call.end) || called.some((h) => pos >= h.start && pos < h.end);
      const own = literals.filter((l) => inRange(l.pos)).map((l) => l.text.replace(/SELECT[\s\S]*?FROM c\b/g, ""));
      const paths = new Set<string>();
      for (const literal of own) for (const m of literal.matchAll(PATH)) paths.add(m[1]!.split(".").join("/"));
      if (call.method === "page") paths.add("/id");
      sites.push({ file: name, line: source.getLineAndCharacterOfPosition(call.start).line + 1, receiver: call.receiver, containers: containers ?? [], paths: [...paths].sort() });
      from = call.end;
    }
  }
  return sites;
}
