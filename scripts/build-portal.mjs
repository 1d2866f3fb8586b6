// Builds the portal page into dist/portal: the app bundled by esbuild (tree-shaken, minified, with
// source maps) and the page's icon, under content-named files in assets/, and index.html naming
// them. Plain JavaScript, so that it runs before anything is compiled:
//
//   node scripts/build-portal.mjs [outDir]        (default: dist/portal)
//
// `npm run build` and `npm start` run it; the deploy package and the test suite call `buildPortal`.
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ICON = path.join(root, "portal/favicon.svg");

/**
 * @param {string} [outDir] where the page goes (emptied first)
 * @returns {Promise<{ outDir: string, files: string[], bytes: number }>}
 */
export async function buildPortal(outDir = path.join(root, "dist", "portal")) {
  const { build } = await import("esbuild");
  const out = path.resolve(root, outDir);
  // Built beside and swapped in, so a server reading the folder never sees it half written.
  const staging = `${out}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  const result = await build({
    entryPoints: { app: path.join(root, "portal/src/main.tsx") },
    bundle: true,
    minify: true,
    sourcemap: "linked",
    format: "esm",
    target: ["chrome120", "firefox120", "safari17"],
    jsx: "automatic",
    jsxImportSource: "preact",
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    outdir: path.join(staging, "assets"),
    metafile: true,
    logLevel: "warning",
    legalComments: "linked",
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(path.join(staging, "assets"), path.resolve(root, file)));
  const script = outputs.find((f) => f.endsWith(".js"));
  const style = outputs.find((f) => f.endsWith(".css"));
  if (!script || !style) throw new Error(`the bundle lacks its script or style: ${outputs.join(", ")}`);
  // The tab's icon, named by its content like the bundle (cached for good): without one the browser
  // asks for /favicon.ico, which the service does not have, and logs the 404 as an error.
  const icon = `favicon-${createHash("sha256").update(readFileSync(ICON)).digest("hex").slice(0, 8).toUpperCase()}.svg`;
  copyFileSync(ICON, path.join(staging, "assets", icon));
  const template = readFileSync(path.join(root, "portal/index.html"), "utf8");
  writeFileSync(
    path.join(staging, "index.html"),
    template.replace("{{script}}", `/portal/assets/${script}`).replace("{{style}}", `/portal/assets/${style}`).replace("{{icon}}", `/portal/assets/${icon}`),
  );
  for (const file of outputs.filter((f) => /\.(js|css)$/.test(f))) precompress(path.join(staging, "assets", file));
  mkdirSync(path.dirname(out), { recursive: true });
  rmSync(out, { recursive: true, force: true });
  // A sibling folder: the rename never crosses devices.
  renameSync(staging, out);
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  return { outDir: out, files: ["index.html", ...outputs.map((f) => `assets/${f}`), `assets/${icon}`], bytes };
}

/**
 * Writes a file's compressed forms beside it (`.br`, `.gz`), which the portal page serves to a
 * client that accepts them: compressed once here at the best ratio (Brotli quality 11 takes half a
 * second for the script, far too long per answer), so no answer pays for it.
 */
function precompress(file) {
  const content = readFileSync(file);
  writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }));
  writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { outDir, files, bytes } = await buildPortal(process.argv[2]);
  console.log(`portal page: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB in ${path.relative(root, outDir) || outDir}`);
}
