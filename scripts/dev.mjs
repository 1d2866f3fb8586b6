// `npm run dev`: the local host, rebuilt and restarted on every change to its sources.
//
// One `tsc -b --watch` (incremental, the same build as `npm run build`) and one service process.
// The service is restarted when the compiler reports a finished build without errors, so it restarts
// once per change, never on half-written output; while the sources do not compile, the previous
// build keeps serving and the errors stay on screen. Arguments after `--` go to the service's node.
//
// The embedded store starts empty on every restart: set LOCAL_ADMIN_CLIENT_ID and
// LOCAL_ADMIN_CLIENT_SECRET to keep one admin credential across restarts.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const tscBin = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const nodeArgs = process.argv.slice(2);
// tsc --watch ends every build with "Found N errors. Watching for file changes." (N may be 0).
const BUILD_DONE = /Found (\d+) errors?\. Watching for file changes\./;

let service = null;
let stopping = false;

function startService() {
  service = spawn(process.execPath, [...nodeArgs, "dist/shared/hosts/local/main.js"], { stdio: "inherit" });
  const current = service;
  current.on("exit", (code, signal) => {
    if (service === current) service = null;
    if (!stopping && !current.restarting) console.log(`[dev] the service stopped (${signal ?? `exit ${code}`}); it starts again after the next successful build.`);
  });
}

function stopService() {
  const current = service;
  if (!current || current.exitCode !== null || current.signalCode !== null) return Promise.resolve();
  current.restarting = true;
  return new Promise((resolve) => {
    current.once("exit", () => resolve());
    current.kill("SIGTERM");
  });
}

let restarting = Promise.resolve();
function restartService() {
  restarting = restarting.then(async () => {
    if (service) console.log("[dev] sources changed and compiled: restarting the service");
    await stopService();
    if (!stopping) startService();
  });
}

const tsc = spawn(process.execPath, [tscBin, "-b", "tsconfig.build.json", "--watch", "--preserveWatchOutput"], { stdio: ["ignore", "pipe", "inherit"] });
let pending = "";
tsc.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString("utf8");
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    const done = BUILD_DONE.exec(line);
    if (!done) continue;
    if (done[1] === "0") restartService();
    else console.log(`[dev] not restarting: the build has errors${service ? "; the previous build keeps serving" : ""}`);
  }
});
tsc.on("exit", (code) => {
  if (stopping) return;
  console.error(`[dev] the compiler stopped (exit ${code})`);
  void shutdown(code ?? 1);
});

async function shutdown(code) {
  stopping = true;
  tsc.kill("SIGTERM");
  await stopService();
  process.exit(code);
}
process.once("SIGINT", () => void shutdown(0));
process.once("SIGTERM", () => void shutdown(0));
