import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "../..");

/**
 * Builds the deployment package (`scripts/package-function.mjs`) into a fresh folder outside the
 * repository, so that module resolution cannot fall back on its node_modules: `pkg`, inside `work`
 * (a scratch folder the test may use too). `remove` deletes them.
 */
export function buildFunctionPackage(prefix: string): { pkg: string; work: string; remove(): void } {
  const work = mkdtempSync(path.join(tmpdir(), prefix));
  const pkg = path.join(work, "package");
  const built = spawnSync(process.execPath, [path.join(root, "scripts/package-function.mjs"), pkg], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`packaging failed:\n${built.stdout}\n${built.stderr}`);
  return { pkg, work, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** Every file under `dir`, as paths relative to `base` with forward slashes. */
export function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full, base) : [path.relative(base, full).split(path.sep).join("/")];
  });
}
