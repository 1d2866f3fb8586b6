// Reads V8 .cpuprofile files (node --cpu-prof) of a bundled app and tells, through the bundle's source
// map, how much of the time each source module took: a package (`pkg:zod`) or a file of the app
// (`shared/hosts/composition.ts`); frames outside the bundle are named by their file (`node:…` for
// Node's own). Each line is a share of all the profiles' samples and the ms per profile:
//
//   node bench/profile-by-module.mjs MAP PROFILE... [--self | --inclusive] [--callers MODULE] [--top N]
//
// --self (the default): time spent in the module's own code. --inclusive: time while the module was
// anywhere on the stack (its callees included), counted once per sample. --callers MODULE: the time
// spent inside MODULE, by the nearest app file on the stack that called it (e.g. which modules build
// zod schemas: --callers pkg:zod). The bench's first answer writes such profiles with
// BENCH_FIRST_ANSWER_CPU_PROF=<folder>; the package's map is `<package>.sourcemaps/app.js.map`.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * The source index of every mapped segment of a source map (version 3), per generated line: for a
 * line, an array of [generatedColumn, sourceIndex] in column order.
 */
function decodeSources(mappings) {
  const lines = [];
  let source = 0;
  for (const line of mappings.split(";")) {
    const segments = [];
    let column = 0;
    for (const segment of line.split(",")) {
      if (!segment) continue;
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0];
      if (fields.length > 1) {
        source += fields[1];
        segments.push([column, source]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

/** A source path as a module: `pkg:<name>` inside node_modules, otherwise the path from the repository. */
export function moduleOf(source) {
  const at = source.lastIndexOf("node_modules/");
  if (at >= 0) {
    const parts = source.slice(at + "node_modules/".length).split("/");
    return `pkg:${parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  return source.replace(/^(\.\.\/)+/, "");
}

/** Maps a profile's call frame to its module, through the map of the bundle whose file name is `bundle`. */
export function frameModules(map, bundle) {
  const lines = decodeSources(map.mappings);
  const modules = map.sources.map(moduleOf);
  return (frame) => {
    if (!frame.url) return frame.functionName.startsWith("(") ? frame.functionName : `(${frame.functionName || "program"})`;
    if (!frame.url.endsWith(`/${bundle}`)) return frame.url.startsWith("node:") ? `node:${frame.url.slice(5).split("/")[0]}` : path.basename(frame.url);
    const segments = lines[frame.lineNumber] ?? [];
    let found;
    for (const [column, source] of segments) {
      if (column > frame.columnNumber) break;
      found = source;
    }
    if (found !== undefined) return modules[found];
    // The bundle's first line holds its top level and esbuild's runtime helpers, which map to no
    // source. The module wrappers (`__esm`, `__commonJS`) call each module's body the first time it is
    // needed, and V8 compiles a function when it is first called, before its own frame is on the
    // stack: that compiling is counted here, not in the module.
    return frame.lineNumber === 0 ? `${bundle} (top level and module wrappers, with compiling what they first run)` : `${bundle} (unmapped)`;
  };
}

/**
 * Time per module over the profiles: `mode` "self", "inclusive", or { callers: MODULE }. Returns
 * [{ module, ms (per profile), share }], largest first, and the profiles' mean total.
 */
export function timeByModule(profiles, moduleOfFrame, mode = "self") {
  const totals = new Map();
  let all = 0;
  for (const profile of profiles) {
    const parent = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const module = new Map(profile.nodes.map((node) => [node.id, moduleOfFrame(node.callFrame)]));
    for (let i = 0; i < profile.samples.length; i++) {
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      all += ms;
      const stack = [];
      for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) stack.push(module.get(id));
      let counted;
      if (mode === "self") counted = [stack[0]];
      else if (mode === "inclusive") counted = new Set(stack);
      else {
        const inside = stack.indexOf(mode.callers);
        if (inside < 0) continue;
        // The app's own modules are its TypeScript sources.
        counted = [stack.slice(inside).find((m) => m.endsWith(".ts")) ?? "(no app file)"];
      }
      for (const m of counted) totals.set(m, (totals.get(m) ?? 0) + ms);
    }
  }
  const n = profiles.length || 1;
  const rows = [...totals].sort((a, b) => b[1] - a[1]).map(([module, ms]) => ({ module, ms: ms / n, share: all ? ms / all : 0 }));
  return { rows, totalMs: all / n };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const at = args.indexOf(name);
    return at < 0 ? undefined : args.splice(at, 2)[1];
  };
  const callers = option("--callers");
  const top = Number(option("--top") ?? 40);
  const inclusive = args.includes("--inclusive");
  const [mapFile, ...profileFiles] = args.filter((a) => !a.startsWith("--"));
  if (!mapFile || profileFiles.length === 0) throw new Error("usage: node bench/profile-by-module.mjs MAP PROFILE... [--self | --inclusive] [--callers MODULE] [--top N]");
  const map = JSON.parse(readFileSync(mapFile, "utf8"));
  const bundle = path.basename(mapFile).replace(/\.map$/, "");
  const profiles = profileFiles.map((f) => JSON.parse(readFileSync(f, "utf8")));
  const mode = callers ? { callers } : inclusive ? "inclusive" : "self";
  const { rows, totalMs } = timeByModule(profiles, frameModules(map, bundle), mode);
  console.log(`${profiles.length} profile(s), ${totalMs.toFixed(1)} ms sampled each; ${callers ? `time inside ${callers}, by the app file that called it` : `${inclusive ? "inclusive" : "self"} time`}:`);
  for (const row of rows.slice(0, top)) console.log(`${(100 * row.share).toFixed(1).padStart(5)} %  ${row.ms.toFixed(1).padStart(6)} ms  ${row.module}`);
}
