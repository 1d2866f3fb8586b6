// ESLint over the whole repository: the stock recommended rules of ESLint and typescript-eslint (no
// type information: the compiler's own checks run in `npm run typecheck`, and a lint without types
// stays fast enough for every test run), the project's style where it departs from them, and the
// layer rules of docs/architecture.md on every import as it is written.
import { existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import layerRules from "./test/support/layer-rules.cjs";

const root = import.meta.dirname;

/**
 * `layers/imports`: the rules on single imports of test/support/layer-rules.cjs, which the import-rules
 * test applies to the whole tree. Built-in `no-restricted-imports` cannot say them: it matches the
 * text of a specifier, not the file it names, and does not see `require("…")` or `import("…")`, the
 * way SDKs and modules used on first use are loaded here. What needs the whole graph (cycles, a
 * platform module made an adapter by its SDK) stays in the test.
 */
const layerImports = {
  meta: { type: "problem", docs: { description: "Imports point one way: docs/architecture.md" }, schema: [] },
  create(context) {
    const from = relative(root, context.filename).split("\\").join("/");
    const found = [];
    const add = (node, specifier, typeOnly) => {
      if (typeof specifier !== "string") return;
      if (!specifier.startsWith(".")) return void found.push({ node, to: specifier, typeOnly, external: true });
      const path = resolve(dirname(context.filename), specifier);
      const target = [`${path}.ts`, `${path}/index.ts`].find((candidate) => existsSync(candidate));
      if (target) found.push({ node, to: relative(root, target).split("\\").join("/"), typeOnly, external: false });
    };
    const typeOnlyImport = (node) =>
      node.importKind === "type" ||
      (node.specifiers.length > 0 && node.specifiers.every((s) => s.type === "ImportSpecifier" && s.importKind === "type"));
    return {
      ImportDeclaration: (node) => add(node, node.source.value, typeOnlyImport(node)),
      ExportNamedDeclaration: (node) => node.source && add(node, node.source.value, node.exportKind === "type"),
      ExportAllDeclaration: (node) => add(node, node.source.value, node.exportKind === "type"),
      ImportExpression: (node) => node.source.type === "Literal" && add(node, String(node.source.value).replace(/\.js$/, ""), false),
      CallExpression: (node) =>
        node.callee.type === "Identifier" && node.callee.name === "require" && node.arguments[0]?.type === "Literal" && add(node, node.arguments[0].value, false),
      "Program:exit"() {
        const graph = new Map([[from, found.map(({ to, typeOnly, external }) => ({ to, typeOnly, external }))]]);
        for (const [rule, list] of Object.entries(layerRules.layerViolations(graph))) {
          for (const shown of list) {
            const edge = found.find((e) => `${from} → ${e.to}${e.typeOnly ? " (type)" : ""}` === shown);
            context.report({ node: edge?.node ?? context.sourceCode.ast, message: `${rule}: ${shown}` });
          }
        }
      },
    };
  },
};

/** The globals of the Node.js that runs the lint, for the plain JavaScript files (scripts, bench). */
const nodeGlobals = Object.fromEntries(Object.getOwnPropertyNames(globalThis).map((name) => [name, "readonly"]));

export default tseslint.config(
  // Built or generated (the portal's client types come from the OpenAPI document: npm run portal:client).
  { ignores: ["**/dist/", ".bench-baseline/", ".test-results/", "coverage/", "bench/results/", ".receiver/", ".azurite/", "build/", "portal/src/api/openapi.d.ts"] },
  { linterOptions: { reportUnusedDisableDirectives: "error", reportUnusedInlineConfigs: "error" } },
  js.configs.recommended,
  tseslint.configs.recommended,
  { files: ["**/*.{js,mjs,cjs}"], languageOptions: { globals: nodeGlobals } },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs", globals: { require: "readonly", module: "writable", exports: "writable", __dirname: "readonly", __filename: "readonly" } } },
  {
    rules: {
      // A leading underscore names what is left out on purpose: a field dropped from a copy
      // (`{ etag: _etag, ...rest }`), a parameter a signature requires.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true },
      ],
      // The service loads SDKs and telemetry on first use, `require("…") as typeof import("…")`, so
      // that a cold start pays only for what the deployment uses (docs/architecture.md); `layers/imports`
      // reads those calls as imports.
      "@typescript-eslint/no-require-imports": "off",
      // A fake's closure may read a variable the test sets later (`let failure; … failure = new Error()`).
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // A path reference brings in the project's own declaration of an untyped package's part it uses
      // (shared/platform/http/negotiator.d.ts) wherever the module that needs it is compiled.
      "@typescript-eslint/triple-slash-reference": ["error", { path: "always", types: "prefer-import", lib: "always" }],
    },
  },
  {
    // Tests read the API's JSON answers as loose records and assert on their shape: typing every
    // body would restate the OpenAPI document the tests check it against.
    files: ["test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["shared/**/*.ts", "functions/**/*.ts", "scripts/**/*.ts"],
    plugins: { layers: { rules: { imports: layerImports } } },
    rules: {
      "layers/imports": "error",
      // While an async-local store is in use, Node runs a hook on every promise of the process (about
      // a sixth of a warm request's time, measured): a request's deadline and caller are carried in
      // the operation context instead.
      "no-restricted-imports": [
        "error",
        ...["node:async_hooks", "async_hooks"].map((name) => ({ name, message: "Carry per-request state explicitly (the operation context), not in async-local storage." })),
      ],
    },
  },
);
