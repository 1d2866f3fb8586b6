// Finds the Chromium the browser tests drive, and installs Debian's when there is none.
//   node scripts/chromium.mjs          prints the executable's path (installing Chromium if needed)
// Looks at CHROMIUM_PATH, then `chromium` and `chromium-browser` on PATH. When none is there and this
// runs as root on a machine with apt-get, installs Debian's `chromium` package; otherwise fails naming
// what to install. Concurrent callers (several test files, several processes) wait on one lock file,
// so that only one of them runs apt-get.
import { spawnSync } from "node:child_process";
import { accessSync, constants, openSync, closeSync, rmSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";

const CANDIDATES = ["chromium", "chromium-browser"];
const LOCK = join(tmpdir(), "secops-chromium-install.lock");
/** A lock older than this is a dead installer's: apt-get takes a few minutes at most. */
const STALE_LOCK_MS = 15 * 60_000;

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The Chromium to use, or undefined when there is none. CHROMIUM_PATH, when set, must be one. */
export function findChromium() {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!executable(configured)) throw new Error(`CHROMIUM_PATH is ${configured}, which is not an executable file.`);
    return configured;
  }
  for (const name of CANDIDATES) {
    const found = onPath(name);
    if (found) return found;
  }
  return undefined;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function withLock(work) {
  for (;;) {
    try {
      closeSync(openSync(LOCK, "wx"));
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { force: true });
      } catch {
        // Gone meanwhile: try again.
      }
      await sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

function run(command, args, log) {
  log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal}):\n${(result.stderr || result.stdout || "").slice(-4000)}`);
  }
}

/**
 * The Chromium's path, installing Debian's `chromium` first when none is found (as root, with
 * apt-get). `log` hears what is being done: an install takes a minute or two.
 */
export async function ensureChromium(log = (line) => console.error(line)) {
  const found = findChromium();
  if (found) return found;
  return withLock(async () => {
    // Another caller may have installed it while this one waited.
    const installed = findChromium();
    if (installed) return installed;
    const root = typeof process.getuid === "function" && process.getuid() === 0;
    const apt = onPath("apt-get");
    if (!root || !apt) {
      throw new Error(
        "The browser tests need Chromium, and none was found (CHROMIUM_PATH, `chromium`, `chromium-browser`). " +
          (apt ? "Install it with: sudo apt-get install --no-install-recommends chromium" : "Install Chromium (on Debian: apt-get install chromium)") +
          ", or set CHROMIUM_PATH to a Chromium or Chrome executable.",
      );
    }
    log("Chromium not found: installing Debian's chromium package (apt-get)…");
    const started = Date.now();
    run(apt, ["update"], log);
    run(apt, ["install", "-y", "--no-install-recommends", "chromium"], log);
    const path = findChromium();
    if (!path) throw new Error("apt-get installed chromium, yet no `chromium` is on PATH.");
    log(`Chromium installed at ${path} in ${Math.round((Date.now() - started) / 1000)} s.`);
    return path;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    console.log(await ensureChromium());
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
