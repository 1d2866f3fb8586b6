// The pinned older build the benches compare this one with: checked out as a git worktree under
// `.bench-baseline/<commit>` (git-ignored), sharing this checkout's node_modules, and built there.
// `node bench/baseline.mjs [commit]` makes it (once; later calls print the folder). The
// service-account scenario runs it beside this build whenever it exists (BENCH_BASELINE_ROOT names
// another), so that a slide of the warm request shows as a ratio of two builds measured in the same
// alternating rounds, not as a guess across days.
//
// The pin: the last build whose warm authenticated GET measured 0.83-0.87 x Fastify doing the same
// work, before the async-local deadline and the portal's additions to the pipeline.

import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PINNED_BASELINE = "315f65a4c701e26ae5623c44ff84ce82508e0a5d";
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where the build of `commit` is kept. */
export function baselineFolder(commit = PINNED_BASELINE) {
  return path.join(ROOT, ".bench-baseline", commit.slice(0, 12));
}

/** Whether the build of `commit` is there, its host built (older builds kept it at dist/shared/local/). */
export function baselineBuilt(commit = PINNED_BASELINE) {
  const folder = baselineFolder(commit);
  return ["dist/shared/hosts/local/main.js", "dist/shared/local/main.js"].some((host) => existsSync(path.join(folder, host)));
}

/** Checks out and builds `commit` (the server only: the benches serve no portal from it); returns its folder. */
export function makeBaseline(commit = PINNED_BASELINE, log = console.log) {
  const folder = baselineFolder(commit);
  if (baselineBuilt(commit)) return folder;
  if (!existsSync(folder)) {
    log(`checking out ${commit.slice(0, 12)} into ${path.relative(ROOT, folder)}`);
    execFileSync("git", ["worktree", "add", "--detach", folder, commit], { cwd: ROOT, stdio: "inherit" });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(folder, "node_modules"), "dir");
  }
  log(`building ${commit.slice(0, 12)} (tsc -b tsconfig.build.json)`);
  try {
    execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "tsconfig.build.json"], { cwd: folder, stdio: "inherit" });
  } catch (error) {
    // An older tree may miss a type of a package this checkout's node_modules no longer has; what it
    // emitted still runs. Only a missing host is a failure.
    if (!baselineBuilt(commit)) throw error;
    log("(the compiler reported errors; the host was emitted and is used)");
  }
  return folder;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(makeBaseline(process.argv[2] ?? PINNED_BASELINE));
}
