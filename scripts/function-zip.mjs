// What `azd deploy` puts in the Function App's zip, made from the folder azure.yaml's `dist` names (the
// package scripts/package-function.mjs builds).
//
// azd (1.23.12 and later; azure.yaml requires it) zips that folder whole, leaving out any directory named
// `.azure`, any file named `.funcignore` or `local.settings.json`, and whatever the folder's own
// `.funcignore` matches (gitignore patterns). Without a `.funcignore` it applies defaults instead, and
// for a JavaScript app those dropped node_modules (before 1.23.12 even with remoteBuild: false). The
// package therefore carries one: its presence replaces the defaults, and it names only what never
// belongs in a deployed app. It never names node_modules, which holds files the app serves, and it uses
// no negation (`!`): azd 1.23.12 leaves out whatever a pattern matches, negated or not.
//
// `zipEntries` lists what that zip holds, by the same rules, for test/integration/deploy-zip.test.ts.
// Plain JavaScript: it runs before anything is compiled.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export const FUNCIGNORE_FILE = ".funcignore";

/** The package's .funcignore: development leftovers, should any ever reach the folder. */
export const FUNCIGNORE = [
  "# What azd leaves out of the deployment zip (written by scripts/package-function.mjs; scripts/function-zip.mjs).",
  "# Never node_modules: it holds files the app serves. No negations (!).",
  "*.map",
  "*.ts",
  "*.tsbuildinfo",
  "*.test.js",
  "*.log",
  ".env",
  ".env.*",
  ".DS_Store",
  ".git/",
  ".github/",
  ".vscode/",
  ".idea/",
  "coverage/",
  "",
].join("\n");

/** Writes the .funcignore into the package folder. */
export function writeFuncignore(outDir) {
  writeFileSync(path.join(outDir, FUNCIGNORE_FILE), FUNCIGNORE);
}

/**
 * A matcher for the gitignore patterns this file's .funcignore uses: `*`, `?` and `**`, a leading `/`
 * or an inner `/` anchoring a pattern to the folder, a trailing `/` for directories only. Anything else
 * (negation, escapes, character classes) is refused rather than guessed at.
 *
 * @param {string} text the .funcignore
 * @returns {(relativePath: string, isDirectory: boolean) => boolean} whether a path (`/`-separated,
 *   relative to the folder) is left out
 */
export function ignoreMatcher(text) {
  const rules = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    if (/^!|[\\[\]]/.test(line)) throw new Error(`${FUNCIGNORE_FILE}: "${line}" uses what this matcher does not read (negation, escape or class)`);
    const directoryOnly = line.endsWith("/");
    const pattern = directoryOnly ? line.slice(0, -1) : line;
    const anchored = pattern.includes("/");
    const body = pattern.replace(/^\//, "");
    const regex = body
      .split("/")
      .map((segment) => (segment === "**" ? "(?:.*)" : segment.replace(/[.+^${}()|]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")))
      .join("/")
      .replace(/\(\?:\.\*\)\//g, "(?:.*/)?");
    rules.push({ directoryOnly, test: new RegExp(anchored ? `^${regex}$` : `^(?:.*/)?${regex}$`) });
  }
  return (relativePath, isDirectory) => rules.some((rule) => (!rule.directoryOnly || isDirectory) && rule.test.test(relativePath));
}

/**
 * The files (`/`-separated, relative to `dir`, sorted) in the zip azd makes of `dir`, as
 * createDeployableZip in azd's pkg/project/project_utils.go does for a function app: symbolic links
 * followed, a directory left out with everything under it.
 *
 * @param {string} dir the package folder
 * @param {{ remoteBuild?: boolean }} [options] azure.yaml's remoteBuild (false here), for a folder without .funcignore
 */
export function zipEntries(dir, options = {}) {
  const ignoreFile = path.join(dir, FUNCIGNORE_FILE);
  let ignored;
  try {
    ignored = ignoreMatcher(readFileSync(ignoreFile, "utf8"));
  } catch (error) {
    if (error?.code !== "ENOENT") throw error;
  }
  const out = [];
  const walk = (relative) => {
    for (const name of readdirSync(path.join(dir, relative)).sort()) {
      const rel = relative ? `${relative}/${name}` : name;
      const isDirectory = statSync(path.join(dir, rel)).isDirectory();
      if (isDirectory && name === ".azure") continue;
      if (!isDirectory && (name === FUNCIGNORE_FILE || name === "local.settings.json")) continue;
      if (ignored) {
        if (ignored(rel, isDirectory)) continue;
      } else if (isDirectory && name === "node_modules" && options.remoteBuild !== false) {
        // azd's default for a JavaScript app without an ignore file.
        continue;
      }
      if (isDirectory) walk(rel);
      else out.push(rel);
    }
  };
  walk("");
  return out.sort();
}
