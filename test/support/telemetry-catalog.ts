import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * What the service writes to Application Insights as log records, read from the code by the compiler:
 * every `….logger.<level>("message", fields)` call in the files that run in Azure (functions/ and
 * shared/, less the local host), with each field's name and, where its type is a union of string
 * literals, the values it can take. In Azure each call is one `traces` row: the message is `message`,
 * each field a `customDimensions` entry (shared/hosts/telemetry.ts).
 *
 * The compiler, not a pattern, reads the fields: a spread (`...result`) contributes its type's
 * properties, and a literal union (`outcome: "done" | "failed" | "missing"`) its values, so renaming a
 * message, a field or a value anywhere it is declared changes the catalogue.
 */
export interface LogRecordKind {
  message: string;
  /** Field name → the string values it takes, or `undefined` when any (a number, a free string). */
  fields: Map<string, Set<string> | undefined>;
  /** Where it is written, `file:line`. */
  sites: string[];
}

export type LogCatalogue = Map<string, LogRecordKind>;

const LEVELS = new Set(["debug", "info", "warn", "error"]);

/** Files that run in Azure: the function files and shared/, less the local host and the simulated systems. */
export function azureSourceFiles(repoDir: string): string[] {
  const list = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return list(full);
      return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [full] : [];
    });
  const localOnly = (file: string) => {
    const rel = path.relative(repoDir, file).split(path.sep).join("/");
    return rel.startsWith("shared/hosts/local/") || /^shared\/systems\/[^/]+\/simulated\//.test(rel);
  };
  return [...list(path.join(repoDir, "functions")), ...list(path.join(repoDir, "shared"))].filter((f) => !localOnly(f));
}

/** The log records `files` write. Messages that are not string literals are reported in `dynamic`. */
export function logCatalogue(repoDir: string, files: string[] = azureSourceFiles(repoDir)): { records: LogCatalogue; dynamic: string[] } {
  // Only the files that log are roots; the compiler follows their imports for the types.
  const roots = files.filter((f) => /logger/i.test(readFileSync(f, "utf8")));
  const program = ts.createProgram(roots, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    resolveJsonModule: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const wanted = new Set(roots.map((f) => path.resolve(f)));
  const records: LogCatalogue = new Map();
  const dynamic: string[] = [];

  for (const source of program.getSourceFiles()) {
    if (!wanted.has(path.resolve(source.fileName))) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isLoggerCall(node, source)) {
        const site = `${path.relative(repoDir, source.fileName).split(path.sep).join("/")}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
        const [messageArg, fieldsArg] = node.arguments;
        const messageType = messageArg ? checker.getTypeAtLocation(messageArg) : undefined;
        if (!messageType?.isStringLiteral()) {
          dynamic.push(site);
        } else {
          const kind: LogRecordKind = records.get(messageType.value) ?? { message: messageType.value, fields: new Map(), sites: [] };
          kind.sites.push(site);
          if (fieldsArg) {
            for (const property of checker.getTypeAtLocation(fieldsArg).getProperties()) {
              const values = literalValues(checker.getTypeOfSymbolAtLocation(property, fieldsArg));
              const known = kind.fields.get(property.name);
              const merged = kind.fields.has(property.name) && known === undefined ? undefined : values && new Set([...(known ?? []), ...values]);
              kind.fields.set(property.name, merged);
            }
          }
          records.set(kind.message, kind);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { records, dynamic };
}

/** `x.logger.info(…)`, `logger.warn(…)`, `this.options.logger.error(…)`: a level called on something named logger. */
function isLoggerCall(node: ts.CallExpression, source: ts.SourceFile): boolean {
  const callee = node.expression;
  if (!ts.isPropertyAccessExpression(callee) || !LEVELS.has(callee.name.text)) return false;
  return /(^|\.)logger$/.test(callee.expression.getText(source));
}

/** The string values of a union of string literals (undefined and null aside), or undefined for any other type. */
function literalValues(type: ts.Type): string[] | undefined {
  const parts = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
  if (parts.length === 0 || !parts.every((t) => t.isStringLiteral())) return undefined;
  return parts.map((t) => (t as ts.StringLiteralType).value);
}

/** The functions the function files register, by name: `app.timer("…")`, `app.serviceBusQueue("…")`, `app.http("…")` with a literal name. */
export function registeredFunctionNames(repoDir: string): { timers: string[]; queues: string[]; http: string[] } {
  const dir = path.join(repoDir, "functions");
  const text = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => readFileSync(path.join(dir, f), "utf8"))
    .join("\n");
  const names = (kind: string) => [...text.matchAll(new RegExp(`app\\.${kind}\\(\\s*"([^"]+)"`, "g"))].map((m) => m[1]!);
  return { timers: names("timer"), queues: names("serviceBusQueue"), http: names("http") };
}
