// `node scripts/azd-hook.mjs <preprovision|postprovision|postdeploy>`: what azure.yaml's hooks run. Makes sure
// the dependencies are installed and the code is built (a fresh clone may provision before anything
// else ran), then runs the hook (scripts/azd-hooks.ts) with the azd environment, which azd passes as
// environment variables. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const step = (args) => {
  const result = spawnSync(npm, args, { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (!existsSync(path.join(root, "node_modules/typescript"))) step(["ci", "--no-audit", "--no-fund"]);
step(["run", "build", "--silent"]);
const { runHook } = createRequire(import.meta.url)(path.join(root, "dist/scripts/azd-hooks.js"));
process.exitCode = await runHook(process.argv[2] ?? "", process.env, (line) => process.stdout.write(line + "\n"));
