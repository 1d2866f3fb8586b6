// Builds the folder `azd deploy` zips and uploads to the Function App (azure.yaml: the `api` service's
// `dist`, built by its `prepackage` hook):
//
//   node scripts/package-function.mjs [outDir]        (default: build/function-app)
//
// It holds exactly what the Functions host runs: the compiled functions/ and shared/ (no tests,
// bench, scripts or source maps), the portal page bundled into dist/portal, host.json, a package.json without scripts, and the production
// dependencies installed from the lockfile (`npm ci --omit=dev`), without their source maps and type
// declarations. The build is local, not remote: what runs is what this script made, and
// test/unit/deploy-package.test.ts checks it. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Files under node_modules that nothing loads at run time. */
const DEAD_WEIGHT = /\.(map|d\.ts|d\.mts|d\.cts)$/;

/**
 * @param {string} outDir where the package goes (emptied first)
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {{ outDir: string, files: number, bytes: number }}
 */
export function packageFunctionApp(outDir, options = {}) {
  const log = options.log ?? ((line) => process.stdout.write(line + "\n"));
  const out = path.resolve(root, outDir);
  if (out === root || root.startsWith(out + path.sep)) throw new Error(`refusing to empty ${out}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  log(`compiling functions/ and shared/ into ${path.relative(root, out) || out}/dist`);
  run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(root, "tsconfig.deploy.json"), "--outDir", path.join(out, "dist")], root);

  log(`bundling the portal page into ${path.relative(root, out) || out}/dist/portal`);
  run(process.execPath, [path.join(root, "scripts/build-portal.mjs"), path.join(out, "dist", "portal")], root);
  removeMatching(path.join(out, "dist", "portal"), /\.map$/);

  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  // Scripts would only confuse a build step on the host; devDependencies stay listed because
  // `npm ci` checks package.json against the lockfile, and --omit=dev leaves them out.
  const { scripts: _scripts, ...shipped } = pkg;
  writeFileSync(path.join(out, "package.json"), JSON.stringify(shipped, null, 2) + "\n");
  cpSync(path.join(root, "package-lock.json"), path.join(out, "package-lock.json"));
  cpSync(path.join(root, "host.json"), path.join(out, "host.json"));

  log("installing production dependencies (npm ci --omit=dev)");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  run(npm, ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], out, process.platform === "win32");
  removeMatching(path.join(out, "node_modules"), DEAD_WEIGHT);

  const { files, bytes } = measure(out);
  log(`package: ${files} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in ${out}`);
  return { outDir: out, files, bytes };
}

function run(command, args, cwd, shell = false) {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "inherit", "inherit"], shell });
  if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(" ")} failed (${result.status ?? result.signal})`);
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
    packageFunctionApp(process.argv[2] ?? "build/function-app");
  } catch (error) {
    process.stderr.write(`packaging failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
