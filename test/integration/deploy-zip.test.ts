/**
 * What `azd deploy` uploads is not the package folder but the zip azd makes of it (azure.yaml `dist`),
 * less what azd leaves out. This builds the package as the prepackage hook does, lists that zip's files
 * with azd's rules (scripts/function-zip.mjs) and checks them: everything the Functions host loads
 * (host.json, package.json, each file its `main` matches) and every file the app reads at run time is
 * in it, loadable from the zip's files alone, and nothing of development is.
 */
import { buildFunctionPackage, filesUnder } from "../support/function-package";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type FunctionZip = typeof import("../../scripts/function-zip.mjs", { with: { "resolution-mode": "import" } });
let FUNCIGNORE: FunctionZip["FUNCIGNORE"];
let ignoreMatcher: FunctionZip["ignoreMatcher"];
let zipEntries: FunctionZip["zipEntries"];

const root = path.resolve(__dirname, "../..");

let pkg: string;
let work: string;
let remove: (() => void) | undefined;
beforeAll(async () => {
  ({ FUNCIGNORE, ignoreMatcher, zipEntries } = await import("../../scripts/function-zip.mjs"));
  ({ pkg, work, remove } = buildFunctionPackage("function-zip-"));
}, 300_000);
afterAll(() => remove?.());

/** A copy of `files` of the package in a new folder: what the zip unpacks to. */
function unpack(files: readonly string[]): string {
  const dir = mkdtempSync(path.join(work, "unpacked-"));
  for (const file of files) cpSync(path.join(pkg, file), path.join(dir, file));
  return dir;
}

/** The files a package.json `main` glob (`dist/functions/*.js`) matches among `files`. */
function matchingMain(main: string, files: readonly string[]): string[] {
  const pattern = new RegExp(`^${main.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`);
  return files.filter((f) => pattern.test(f));
}

const functionFiles = readdirSync(path.join(root, "functions"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.replace(/\.ts$/, ""));

describe("deployment zip", () => {
  it("is made with the package's own .funcignore, which never leaves out node_modules", () => {
    expect(readFileSync(path.join(pkg, ".funcignore"), "utf8")).toBe(FUNCIGNORE);
    const ignored = ignoreMatcher(FUNCIGNORE);
    expect(ignored("node_modules", true)).toBe(false);
    expect(ignored("node_modules/swagger-ui-dist/swagger-ui-bundle.js", false)).toBe(false);
    // No negation: azd 1.23.12 leaves out whatever a pattern matches, negated or not.
    expect(FUNCIGNORE.split("\n").filter((line) => line.startsWith("!"))).toEqual([]);
    // The file itself is never zipped; every other file of the package is.
    const folder = filesUnder(pkg).sort();
    const zipped = zipEntries(pkg);
    expect(folder.filter((f) => !zipped.includes(f))).toEqual([".funcignore"]);
  });

  it("holds what the Functions host loads: host.json, package.json and each file its main matches, one per function file", () => {
    const zipped = zipEntries(pkg);
    expect(zipped).toEqual(expect.arrayContaining(["host.json", "package.json"]));
    const { main } = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as { main: string };
    const loaded = matchingMain(main, zipped);
    expect(loaded.sort()).toEqual(functionFiles.map((f) => `dist/functions/${f}.js`).sort());
    expect(main).toBe((JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { main: string }).main);
  });

  it("holds every file of the package's node_modules: files the app reads or serves at run time", () => {
    const modules = filesUnder(pkg).filter((f) => f.startsWith("node_modules/"));
    expect(modules.filter((f) => !zipEntries(pkg).includes(f))).toEqual([]);
  });

  it("holds nothing of development: no source maps, TypeScript, tests, environment files or editor settings", () => {
    const dev = /(\.map|\.ts|\.tsbuildinfo|\.test\.js)$|(^|\/)(\.env(\..*)?|local\.settings\.json)$|(^|\/)(\.git|\.github|\.vscode|\.idea|\.azure|coverage|test|tests|bench|infra|scripts)\//;
    expect(zipEntries(pkg).filter((f) => dev.test(f))).toEqual([]);
  });

  it("loads every file package.json's main matches from the zip's files alone", async () => {
    const zipped = zipEntries(pkg);
    const dir = unpack(zipped);
    const { main } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { main: string };
    const script = path.join(dir, "load-check.cjs");
    writeFileSync(
      script,
      `for (const f of ${JSON.stringify(matchingMain(main, zipped))}) require("./" + f);\nconsole.log(JSON.stringify({ loaded: true }));\n`,
    );
    const out = await run(script, dir);
    expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ loaded: true });
  }, 60_000);

  it("leaves out the development leftovers the .funcignore names, were any ever in the folder, and keeps everything else", () => {
    const dir = unpack(filesUnder(pkg));
    const junk = [
      "dist/app.js.map",
      "dist/functions/http-api.ts",
      "dist/app.test.js",
      "tsconfig.tsbuildinfo",
      "npm-debug.log",
      ".env",
      ".env.local",
      ".DS_Store",
      ".vscode/settings.json",
      ".git/HEAD",
      "coverage/index.html",
      "local.settings.json",
      ".azure/dev/.env",
      "node_modules/swagger-ui-dist/index.d.ts",
    ];
    for (const file of junk) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), "x");
    }
    expect(zipEntries(dir)).toEqual(zipEntries(pkg));
  });

  it("without the .funcignore, would lose node_modules by azd's defaults unless remoteBuild is false", () => {
    const dir = unpack(filesUnder(pkg).filter((f) => f !== ".funcignore"));
    const modules = (files: string[]) => files.filter((f) => f.startsWith("node_modules/"));
    expect(modules(filesUnder(dir)).length).toBeGreaterThan(0);
    expect(modules(zipEntries(dir))).toEqual([]);
    expect(modules(zipEntries(dir, { remoteBuild: false }))).toEqual(modules(filesUnder(dir)).sort());
  });
});

describe("the .funcignore matcher", () => {
  it("reads gitignore patterns as azd does: names at any depth, anchored paths, directories only, **", () => {
    const ignored = ignoreMatcher("# comment\n*.map\n/top.txt\ndocs/*.md\nbuild/\na/**/z.js\n");
    expect(ignored("x.map", false)).toBe(true);
    expect(ignored("dist/deep/x.map", false)).toBe(true);
    expect(ignored("top.txt", false)).toBe(true);
    expect(ignored("dist/top.txt", false)).toBe(false);
    expect(ignored("docs/a.md", false)).toBe(true);
    expect(ignored("x/docs/a.md", false)).toBe(false);
    expect(ignored("build", true)).toBe(true);
    expect(ignored("build", false)).toBe(false);
    expect(ignored("dist/build", true)).toBe(true);
    expect(ignored("a/z.js", false)).toBe(true);
    expect(ignored("a/b/c/z.js", false)).toBe(true);
    expect(ignored("comment", false)).toBe(false);
  });

  it("refuses what it cannot read rather than guess", () => {
    expect(() => ignoreMatcher("!keep.map")).toThrow(/negation/);
    expect(() => ignoreMatcher("[ab].js")).toThrow();
  });
});

/** Runs a script with only PATH in its environment; resolves its stdout. */
function run(script: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd, env: { PATH: process.env.PATH ?? "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill(), 45_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`exit ${code}:\n${stdout}\n${stderr}`));
    });
  });
}
