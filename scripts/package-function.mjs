// Builds the folder `azd deploy` zips and uploads to the Function App (azure.yaml: the `api` service's
// `dist`, built by its `prepackage` hook):
//
//   node scripts/package-function.mjs [outDir]        (default: build/function-app)
//
// It holds exactly what the Functions host runs, bundled by esbuild (tree-shaken, minified):
//
//   dist/app.js             functions/ and shared/ with the production dependencies they use, one
//                           file shared by every function; each module runs when first needed, as
//                           in the sources (what a request does not use is loaded but never run)
//   dist/functions/<f>.js   one small file per functions/<f>.ts, what package.json `main` matches:
//                           it turns on Node's compile cache, then registers that file's functions
//                           from dist/app.js
//   dist/vendor/            the packages a first answer never runs (LAZY_GROUPS), in files of their
//                           own that dist/app.js requires on first use: a cold start never parses them;
//                           those it runs come from their ES module builds (ES_MODULE_PACKAGES)
//   dist/compile-cache.js   shared/hosts/azure/compile-cache.ts, loaded before dist/app.js
//   dist/portal/            the portal page (scripts/build-portal.mjs), without source maps
//   node_modules/           only what cannot be bundled (EXTERNAL_PACKAGES, EXTERNAL_FILES): what the
//                           telemetry's require hooks patch, and the reference page's files
//   host.json, package.json (no scripts, no dependencies to install; `main` as in the repository)
//
// Source maps are written beside the package, not into it (`<outDir>.sourcemaps/`): Application
// Insights does not read them, and loading maps at start (`--enable-source-maps`) would cost a cold
// start more than the bundle saves. A minified stack trace from the logs maps back to the sources
// with the map of the build that was deployed (`npx source-map-cli resolve ...` or any source-map tool).
//
// The build is local, not remote: what runs is what this script made, and
// test/integration/deploy-package.test.ts checks it. Plain JavaScript: it runs before anything is compiled.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writeFuncignore } from "./function-zip.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Node's oldest runtime on Flex Consumption that the bundle must run on (Azure runs 22; tests run 20). */
const TARGET = "node20";

/**
 * Packages that stay files in node_modules, with their own dependencies. `@azure/core-tracing`,
 * because something must see `require` load it: the Azure SDK instrumentation
 * (@azure/opentelemetry-instrumentation-azure-sdk: the Azure SDKs' spans) patches it from a `require`
 * hook. Bundled, `require` never loads it and no SDK span is recorded (the package test checks it);
 * kept as a file, every copy of the SDKs in the bundle and the vendor files shares the one instance
 * the hook patched. `@azure/functions`, the programming model the worker hands invocations to: one
 * instance for every function file, which the package test also loads by name to call the handlers.
 */
const EXTERNAL_PACKAGES = ["@azure/functions", "@azure/core-tracing"];

/** Packages of which only some files ship: swagger-ui-dist's, which the reference page serves as they are. */
const EXTERNAL_FILES = {
  "swagger-ui-dist": ["package.json", "LICENSE", "NOTICE", "swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"],
};

/**
 * Packages that a first answer never runs, bundled into files of their own in dist/vendor/, which the
 * app requires where it uses them (it loads each on first use already): a cold start then does not
 * even parse them — compiling the bundle is the largest part of a cold start, and these are a third
 * of it. Packages that share most of their code are one file. What a file shares with the app
 * (@azure/core-rest-pipeline, @azure/logger, ...) is in it too, stateless helpers; what must be one
 * instance is kept as a file (EXTERNAL_PACKAGES).
 */
const LAZY_GROUPS = {
  "azure-service-bus": ["@azure/service-bus"],
  "azure-storage-blob": ["@azure/storage-blob"],
  // Resource Manager's clients and the Logs query client: one client core between them.
  "azure-management": ["@azure/arm-operationalinsights", "@azure/arm-resources", "@azure/arm-resources-subscriptions", "@azure/monitor-query-logs"],
  "azure-monitor-opentelemetry-exporter": ["@azure/monitor-opentelemetry-exporter"],
  jose: ["jose"],
  // Cosmos's client-side encryption only (its Key Vault key resolver), which the app does not use;
  // @azure/cosmos imports it at the top of that resolver's module, deferred by DEFERRED_REQUIRES.
  "azure-keyvault-keys": ["@azure/keyvault-keys"],
  // The webhook sender's and the Logs query client's HTTP client, loaded on the first send.
  undici: ["undici"],
  // Entra ID (with MSAL): loaded when a client signs in without a key, as Cosmos and Service Bus do
  // with a managed identity; the exporters' sign-in is after the first answer.
  "azure-identity": ["@azure/identity"],
};
const LAZY_PACKAGES = Object.values(LAZY_GROUPS).flat();
const groupOf = (name) => Object.keys(LAZY_GROUPS).find((group) => LAZY_GROUPS[group].includes(name));

/**
 * `require`s of a lazy package that a dependency makes when its module runs, not where it uses the
 * package: each is rewritten to require the package on first use of the one export named (a vendor
 * file alone would still be loaded with the dependency). The build fails if a statement is no longer
 * in its file (a new version of the dependency): check the file again, then update it here.
 */
const DEFERRED_REQUIRES = [
  {
    // @azure/cosmos 4.x (its ES module build, ES_MODULE_PACKAGES): the Key Vault key resolver of
    // client-side encryption, loaded with the client. Constructing the stand-in constructs the real
    // client (a constructor that returns an object makes `new` return that object).
    file: /[\\/]node_modules[\\/]@azure[\\/]cosmos[\\/]dist[\\/]esm[\\/]encryption[\\/]EncryptionKeyResolver[\\/]AzureKeyVaultEncryptionKeyResolver\.js$/,
    statement: 'import { KeyClient } from "@azure/keyvault-keys";',
    replacement: 'const KeyClient = class { constructor(...args) { return new (require("@azure/keyvault-keys").KeyClient)(...args); } };',
  },
];

/** Rewrites the statements of DEFERRED_REQUIRES into `plugin`; `assertApplied` fails the build if one was not there to rewrite. */
function deferredRequires() {
  const applied = new Set();
  const plugin = {
    name: "deferred-requires",
    setup(b) {
      for (const entry of DEFERRED_REQUIRES) {
        b.onLoad({ filter: entry.file }, (args) => {
          const source = readFileSync(args.path, "utf8");
          if (source.split(entry.statement).length !== 2) throw new Error(`${args.path} no longer has, once, ${entry.statement}`);
          applied.add(entry);
          return { contents: source.replace(entry.statement, entry.replacement), loader: "js", resolveDir: path.dirname(args.path) };
        });
      }
    },
  };
  const assertApplied = () => {
    const missing = DEFERRED_REQUIRES.filter((entry) => !applied.has(entry));
    if (missing.length > 0) throw new Error(`the bundle no longer holds ${missing.map((entry) => entry.file).join(", ")}: check DEFERRED_REQUIRES against the new version`);
  };
  return { plugin, assertApplied };
}

/**
 * Packages on the first answer's path that the app bundles from their ES module builds, wherever the
 * app or a package `require`s them: esbuild then joins their modules into one scope and drops the
 * exports nothing imports, where the CommonJS builds are a function per module that defines every
 * export with a getter, run on load. Each ships both builds from the same sources (the Azure SDK's
 * tshy builds, OpenTelemetry's build/esm); the Cosmos SDK is 534 → 326 KB minified this way
 * (docs/decisions.md, Performance, for what it saves a cold start).
 */
const ES_MODULE_PACKAGES = /^(@azure\/(cosmos|core-[a-z-]+|logger|abort-controller|opentelemetry-instrumentation-azure-sdk)|@typespec\/ts-http-runtime|@opentelemetry\/[a-z-]+)$/;

const esModuleBuilds = {
  name: "es-module-builds",
  setup(b) {
    b.onResolve({ filter: /^[@a-z]/ }, async (args) => {
      if ((args.kind !== "require-call" && args.kind !== "import-statement") || args.pluginData === "es-module-build") return undefined;
      const name = args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : args.path.split("/")[0];
      if (!ES_MODULE_PACKAGES.test(name) || EXTERNAL_PACKAGES.includes(name)) return undefined;
      // Through an `exports` map, the `import` condition; otherwise (OpenTelemetry) the `module` field.
      const resolved = await b.resolve(args.path, { kind: "import-statement", resolveDir: args.resolveDir, importer: args.importer, pluginData: "es-module-build" });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      if (args.path === name && !resolved.external) {
        const dir = packageDirOf(resolved.path, name);
        const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
        if (!pkg.exports && pkg.module) return { path: path.join(dir, pkg.module) };
      }
      return { path: resolved.path, external: resolved.external, sideEffects: resolved.sideEffects };
    });
  },
};

/** The installed folder of package `name` that holds `file`. */
function packageDirOf(file, name) {
  const marker = `${path.sep}node_modules${path.sep}${name.split("/").join(path.sep)}${path.sep}`;
  const at = file.lastIndexOf(marker);
  if (at < 0) throw new Error(`${file} is not in ${name}`);
  return file.slice(0, at + marker.length - 1);
}

/**
 * The app's own modules import zod as `import { z } from "zod"`: `z` is then one namespace object
 * holding all of zod, translations included (`z.locales`, 269 KB minified), which esbuild cannot
 * tree-shake. Bundled as `import * as z from "zod"` (the same exports: zod's entry re-exports all of
 * `z`'s), only what the schemas use is kept: zod 465 → 114 KB. Any other form of importing zod's
 * values fails the build, so that the bundle cannot quietly take all of zod back.
 */
const zodNamespaceImports = {
  name: "zod-namespace-imports",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!/^(functions|shared)[\\/]/.test(path.relative(root, args.path))) return undefined;
      const source = readFileSync(args.path, "utf8");
      if (!source.includes('"zod"')) return undefined;
      const rewritten = source.replaceAll('import { z } from "zod";', 'import * as z from "zod";');
      const other = rewritten.split("\n").find((line) => /from "zod"/.test(line) && !/^import (type \{[^}]*\}|\* as z) from "zod";$/.test(line.trim()));
      if (other) throw new Error(`${path.relative(root, args.path)}: import zod's values as \`import { z } from "zod"\` or \`import * as z from "zod"\`, not \`${other.trim()}\``);
      return { contents: rewritten, loader: "ts" };
    });
  },
};

/** dist/vendor/<this> for a package name: its group's file, or for a group of several a file naming it. */
const vendorFile = (name) => (LAZY_GROUPS[groupOf(name)].length === 1 ? `${groupOf(name)}.js` : `${groupOf(name)}.${name.replace(/^@[^/]+\//, "")}.js`);

/** Files of an external package that nothing loads at run time. */
const DEAD_WEIGHT = /(\.map|\.d\.[cm]?ts|(?<!\.d)\.ts|\.md)$/;

/** Provided by the Functions worker at run time (it intercepts `require`); never installed. */
const WORKER_PROVIDED = ["@azure/functions-core"];

/**
 * @param {string} outDir where the package goes (emptied first)
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ outDir: string, files: number, bytes: number, mapsDir: string }>}
 */
export async function packageFunctionApp(outDir, options = {}) {
  const log = options.log ?? ((line) => process.stdout.write(line + "\n"));
  const out = path.resolve(root, outDir);
  const mapsDir = `${out}.sourcemaps`;
  for (const dir of [out, mapsDir]) {
    if (dir === root || root.startsWith(dir + path.sep)) throw new Error(`refusing to empty ${dir}`);
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
  const rel = (p) => path.relative(root, p) || p;

  const functionNames = readdirSync(path.join(root, "functions"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.replace(/\.ts$/, ""))
    .sort();

  log(`bundling functions/ and shared/ into ${rel(out)}/dist/app.js, and ${LAZY_PACKAGES.length} packages into dist/vendor/`);
  const { build } = await import("esbuild");
  // A lazy package, from the app (dist/) or from another of them (dist/vendor/), is its own file.
  const lazyPackages = (prefix, own = []) => ({
    name: "lazy-packages",
    setup(b) {
      const names = new Set(LAZY_PACKAGES.filter((name) => !own.includes(name)));
      b.onResolve({ filter: /^[@a-z]/ }, (args) => (names.has(args.path) ? { path: `${prefix}${vendorFile(args.path)}`, external: true } : undefined));
    },
  });
  const common = {
    bundle: true,
    platform: "node",
    format: "cjs",
    target: TARGET,
    minify: true,
    // Class and function names stay readable in stack traces and logs (~3% of the size).
    keepNames: true,
    sourcemap: "external",
    sourcesContent: true,
    legalComments: "linked",
    external: [...WORKER_PROVIDED, ...EXTERNAL_PACKAGES, ...Object.keys(EXTERNAL_FILES)],
    logLevel: "warning",
    metafile: true,
  };
  // Each function file's module is required by name, so each runs only when its stub asks for it:
  // in the order the worker loads the stubs, exactly once however many functions share a module.
  const appEntry = [
    "exports.register = function register(name) {",
    "  switch (name) {",
    ...functionNames.map((name) => `    case ${JSON.stringify(name)}: require(${JSON.stringify(`./functions/${name}.ts`)}); return;`),
    "  }",
    '  throw new Error("No function file is named " + name + ".");',
    "};",
  ].join("\n");
  const deferred = deferredRequires();
  const app = await build({
    ...common,
    plugins: [lazyPackages("./vendor/"), deferred.plugin, esModuleBuilds, zodNamespaceImports],
    stdin: { contents: appEntry, resolveDir: root, sourcefile: "app.js", loader: "js" },
    outfile: path.join(out, "dist/app.js"),
  });
  deferred.assertApplied();
  const vendors = [];
  for (const [group, names] of Object.entries(LAZY_GROUPS)) {
    const contents =
      names.length === 1
        ? `module.exports = require(${JSON.stringify(names[0])});`
        : `module.exports = { ${names.map((name) => `${JSON.stringify(name)}: require(${JSON.stringify(name)})`).join(", ")} };`;
    vendors.push(
      await build({
        ...common,
        plugins: [lazyPackages("./", names)],
        stdin: { contents, resolveDir: root, sourcefile: `${group}.js`, loader: "js" },
        outfile: path.join(out, "dist/vendor", `${group}.js`),
      }),
    );
    // Each package of a group by its own name, the group loaded once for all of them.
    if (names.length > 1) {
      for (const name of names) writeFileSync(path.join(out, "dist/vendor", vendorFile(name)), `"use strict";\nmodule.exports = require("./${group}.js")[${JSON.stringify(name)}];\n`);
    }
  }
  await build({
    ...common,
    stdin: { contents: 'require("./shared/hosts/azure/compile-cache.ts").enableCompileCache();', resolveDir: root, sourcefile: "compile-cache.js", loader: "js" },
    outfile: path.join(out, "dist/compile-cache.js"),
  });
  for (const result of [app, ...vendors]) assertOnlyExpectedImports(result.metafile);

  mkdirSync(path.join(out, "dist/functions"));
  for (const name of functionNames) {
    writeFileSync(
      path.join(out, "dist/functions", `${name}.js`),
      [
        `// functions/${name}.ts, as the Functions worker loads it (package.json \`main\`): its code is in ../app.js.`,
        '"use strict";',
        'require("../compile-cache.js");',
        `require("../app.js").register(${JSON.stringify(name)});`,
        "",
      ].join("\n"),
      { flag: "wx" },
    );
  }
  // The maps go beside the package (the deployed files name none), their sources relative to the
  // repository's root, as in the stack traces of the sources: functions/http-api.ts, shared/...
  moveMaps(path.join(out, "dist"), mapsDir);
  moveMaps(path.join(out, "dist/vendor"), path.join(mapsDir, "vendor"));

  log(`bundling the portal page into ${rel(out)}/dist/portal`);
  const { buildPortal } = await import("./build-portal.mjs");
  await buildPortal(path.join(out, "dist", "portal"));
  removeMatching(path.join(out, "dist", "portal"), /\.map$/);

  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  // Nothing is installed on the host (remoteBuild: false): no scripts, no dependency lists, no lockfile.
  const shipped = {
    name: pkg.name,
    version: pkg.version,
    private: true,
    description: pkg.description,
    main: pkg.main,
    engines: pkg.engines,
  };
  writeFileSync(path.join(out, "package.json"), JSON.stringify(shipped, null, 2) + "\n");
  cpSync(path.join(root, "host.json"), path.join(out, "host.json"));
  // What azd leaves out of the zip it makes of this folder (scripts/function-zip.mjs).
  writeFuncignore(out);

  for (const [name, files] of Object.entries(EXTERNAL_FILES)) {
    for (const file of files) cpSync(path.join(root, "node_modules", name, file), path.join(out, "node_modules", name, file));
  }
  for (const dir of withDependencies(EXTERNAL_PACKAGES)) {
    cpSync(dir, path.join(out, path.relative(root, dir)), { recursive: true, filter: (src) => !DEAD_WEIGHT.test(src) || statSync(src).isDirectory() });
  }

  const { files, bytes } = measure(out);
  log(`package: ${files} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in ${out} (source maps in ${rel(mapsDir)})`);
  return { outDir: out, files, bytes, mapsDir };
}

/**
 * The bundle may leave `require` calls only to Node's built-ins, the worker's module and the
 * packages kept as files: anything else would fail at run time in a package that installs nothing.
 */
function assertOnlyExpectedImports(metafile) {
  const allowed = new Set([...WORKER_PROVIDED, ...EXTERNAL_PACKAGES, ...Object.keys(EXTERNAL_FILES)]);
  const unexpected = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports ?? []) {
      // `node:` names are Node's own, including those newer than the Node this runs on (node:sqlite);
      // relative ones are the vendor files.
      if (!imported.external || imported.path.startsWith("node:") || imported.path.startsWith("./")) continue;
      const name = imported.path;
      const pkg = name.startsWith("@") ? name.split("/").slice(0, 2).join("/") : name.split("/")[0];
      if (allowed.has(pkg) || BUILTINS.has(pkg)) continue;
      unexpected.add(imported.path);
    }
  }
  if (unexpected.size > 0) throw new Error(`the bundle requires what the package does not hold: ${[...unexpected].join(", ")}`);
}

const BUILTINS = new Set((await import("node:module")).builtinModules);

/**
 * The installed folders of `names` and of every production dependency they pull in, as npm laid
 * them out (a dependency in the nearest node_modules above its dependent).
 */
function withDependencies(names) {
  const found = new Set();
  const visit = (name, fromDir) => {
    let dir = fromDir;
    let pkgDir;
    for (;;) {
      const candidate = path.join(dir, "node_modules", name);
      if (statSync(path.join(candidate, "package.json"), { throwIfNoEntry: false })) {
        pkgDir = candidate;
        break;
      }
      if (dir === root) throw new Error(`${name} (needed by ${path.relative(root, fromDir) || "the app"}) is not installed`);
      dir = path.dirname(dir);
    }
    if (found.has(pkgDir)) return;
    found.add(pkgDir);
    const { dependencies = {} } = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
    for (const dependency of Object.keys(dependencies)) visit(dependency, pkgDir);
  };
  for (const name of names) visit(name, root);
  return [...found];
}

function moveMaps(dir, target) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".map")) continue;
    const full = path.join(dir, entry.name);
    const map = JSON.parse(readFileSync(full, "utf8"));
    // A package's own map may name its sources by a scheme (webpack:/...): those stay as they are.
    map.sources = map.sources.map((source) => (/^[a-z]+:/i.test(source) ? source : path.relative(root, path.resolve(dir, source)).split(path.sep).join("/")));
    mkdirSync(target, { recursive: true });
    writeFileSync(path.join(target, entry.name), JSON.stringify(map));
    rmSync(full);
  }
}

function removeMatching(dir, pattern) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) removeMatching(full, pattern);
    else if (pattern.test(entry.name)) rmSync(full);
  }
}

function measure(dir) {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = measure(full);
      files += inner.files;
      bytes += inner.bytes;
    } else {
      files += 1;
      bytes += statSync(full).size;
    }
  }
  return { files, bytes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await packageFunctionApp(process.argv[2] ?? "build/function-app");
  } catch (error) {
    process.stderr.write(`packaging failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
