// `npm run bench`: runs every scenario below in one go, prints a table per scenario and writes all
// results to bench/results/latest.json.
//
// Exit code: 0 when every scenario produced a trustworthy measurement, whether or not it met its
// target (a slow run on a noisy machine is information, not a crash); 1 when a run itself broke:
// a server that would not start or died, socket errors, or non-2xx responses.
//
// Knobs (env): BENCH_DURATION_S (default 8), BENCH_CONNECTIONS (10), BENCH_ROUNDS (3),
// BENCH_WARMUP_S (3). To add a benchmark, write a function like serviceAccountRead and append it to
// `scenarios`.

import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeExit, formatLoadTable, freePort, median, runLoad, startServer, summarizeRounds } from "./lib.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const API_HOST = path.join(ROOT, "dist/shared/local/main.js");
const BARE_SERVER = path.join(ROOT, "bench/bare-server.mjs");
const RESULTS_FILE = path.join(ROOT, "bench/results/latest.json");

/** Reads a numeric env override, refusing nonsense rather than silently benchmarking with it. */
function numberFromEnv(name, fallback, { integer = false, min = 1 } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    console.error(`${name}=${JSON.stringify(raw)} is not a valid ${integer ? "integer" : "number"} >= ${min}`);
    process.exit(1);
  }
  return value;
}

const settings = {
  durationS: numberFromEnv("BENCH_DURATION_S", 8),
  connections: numberFromEnv("BENCH_CONNECTIONS", 10, { integer: true }),
  rounds: numberFromEnv("BENCH_ROUNDS", 3, { integer: true }),
  warmupS: numberFromEnv("BENCH_WARMUP_S", 3, { min: 0 }),
  // One request in flight per connection, like real clients; pipelining would mostly measure
  // how well each server batches writes.
  pipelining: 1,
};

/**
 * The environment every server child gets. Deliberately not inherited from the shell: a developer's
 * STORE=cosmos, LOG_LEVEL=debug or short PRINCIPAL_CACHE_TTL_MS would silently change what is
 * measured. Only what a process needs to run at all is passed through.
 */
function childEnv(extra) {
  const env = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "SystemRoot"]) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { ...env, ...extra };
}

const withoutKeys = (obj, keys) => Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));

/**
 * Starts the local API host with a freshly generated admin service account and waits until that
 * account can be read with its own credentials, which proves the host is listening, seeded and
 * authenticating. Later scenarios can reuse this and then seed what they need through the API.
 */
async function startApiHost() {
  if (!existsSync(API_HOST)) {
    throw new Error(`${path.relative(ROOT, API_HOST)} does not exist; run \`npm run build\` (npm run bench does).`);
  }
  const port = await freePort();
  const clientId = randomUUID();
  const clientSecret = randomBytes(32).toString("base64url"); // 43 chars, no ':' to confuse Basic auth
  const baseUrl = `http://127.0.0.1:${port}/api/v2`;
  const authHeaders = { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` };
  const accountUrl = `${baseUrl}/service-accounts/${clientId}`;
  const server = await startServer({
    name: "api host",
    script: API_HOST,
    cwd: ROOT,
    env: childEnv({
      PORT: String(port),
      LOCAL_ADMIN_CLIENT_ID: clientId,
      LOCAL_ADMIN_CLIENT_SECRET: clientSecret,
      // Limits far above anything the bench can send: we measure the request path, not 429s.
      RATE_LIMIT_BURST: "100000000",
      RATE_LIMIT_PER_SECOND: "100000000",
      // Per-request info logs would turn the benchmark into a logging benchmark.
      LOG_LEVEL: "warn",
    }),
    readyUrl: accountUrl,
    headers: authHeaders,
  });
  return { server, baseUrl, authHeaders, clientId, accountUrl };
}

/**
 * Warms up each target, then measures them in alternating rounds. Alternating (and flipping which
 * goes first each round) spreads slow drift on a shared machine, such as another job starting,
 * over both targets instead of pinning it on whichever happened to run second.
 *
 * Returns { rows, problems } where each row is summarizeRounds() of one target.
 */
async function compareTargets(targets, log) {
  const problems = [];
  const check = (target, phase, r) => {
    if (r.errors || r.non2xx) {
      problems.push(`${target.label} ${phase}: ${r.errors} errors (${r.timeouts} timeouts), ${r.non2xx} non-2xx; status codes ${JSON.stringify(r.statusCodes)}`);
    }
    const exit = target.server.exited();
    if (exit) problems.push(`${target.label} exited during ${phase} (${describeExit(exit)})\n${target.server.output()}`);
  };
  const load = (target, durationS) =>
    runLoad({ url: target.url, headers: target.headers, connections: settings.connections, durationS, pipelining: settings.pipelining });

  if (settings.warmupS > 0) {
    for (const target of targets) {
      log(`  warm-up  ${target.label} (${settings.warmupS} s)`);
      check(target, "warm-up", await load(target, settings.warmupS));
    }
  }

  const rounds = new Map(targets.map((t) => [t, []]));
  for (let i = 0; i < settings.rounds && problems.length === 0; i++) {
    const order = i % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const r = await load(target, settings.durationS);
      rounds.get(target).push(r);
      log(`  round ${i + 1}/${settings.rounds}  ${target.label.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`);
      check(target, `round ${i + 1}`, r);
    }
  }
  return { rows: targets.map((t) => summarizeRounds(t.label, rounds.get(t))), problems };
}

/**
 * Issue requirement: an authenticated GET /api/v2/service-accounts/{id} against a bare node:http
 * server returning the same JSON body; target API >= 0.6 x bare req/s.
 */
async function serviceAccountRead({ log }) {
  const TARGET_RATIO = 0.6;
  const started = [];
  try {
    const api = await startApiHost();
    started.push(api.server);

    // The bare server replays exactly what the API answered, so both send the same bytes and
    // the difference is the API's own work (routing, auth, store read, serialization, headers).
    const captured = api.server.ready;
    const contentType = captured.headers["content-type"];
    const notes = [];
    if (!/^application\/json\b/.test(contentType ?? "")) notes.push(`API Content-Type is ${JSON.stringify(contentType)}, expected application/json`);
    try {
      const parsed = JSON.parse(captured.body.toString("utf8"));
      if (!parsed || typeof parsed !== "object" || !("data" in parsed) || !("meta" in parsed)) notes.push("API body is not a {data, meta} envelope");
    } catch {
      notes.push("API body is not JSON");
    }
    if (!captured.headers["x-request-id"]) notes.push("API response has no X-Request-Id header");
    for (const note of notes) log(`  note: ${note}`);

    const barePort = await freePort();
    const bareUrl = `http://127.0.0.1:${barePort}/api/v2/service-accounts/${api.clientId}`;
    const bare = await startServer({
      name: "bare server",
      script: BARE_SERVER,
      cwd: ROOT,
      env: childEnv({ PORT: String(barePort), BARE_BODY_BASE64: captured.body.toString("base64"), BARE_CONTENT_TYPE: contentType ?? "application/json" }),
      readyUrl: bareUrl,
    });
    started.push(bare);
    if (!bare.ready.body.equals(captured.body)) throw new Error("bare server does not serve the captured API body byte for byte");

    log(`  body: ${captured.body.length} bytes, ${contentType}`);
    // Same URL path and the same Authorization header for both, so request parsing costs the same;
    // the bare server simply ignores the header.
    const targets = [
      { label: "bare node:http", url: bareUrl, headers: api.authHeaders, server: bare },
      { label: "API", url: api.accountUrl, headers: api.authHeaders, server: api.server },
    ];
    const { rows, problems } = await compareTargets(targets, log);
    // Broken before any measured round (e.g. errors in the warm-up): nothing meaningful to show.
    if (rows.some((r) => r.rounds.length === 0)) return { rows, checks: [], notes, problems };
    const [bareRow, apiRow] = rows;
    const ratio = apiRow.rps / bareRow.rps;
    // The target is judged on the ratio of the medians shown in the table. The per-round ratios
    // (each API round against the bare round next to it in time) are printed too: on a noisy
    // machine their spread shows how far to trust the headline number.
    const roundRatios = apiRow.rounds.map((r, i) => r.rps / bareRow.rounds[i]?.rps);

    log("");
    log(formatLoadTable(rows));
    log("");
    log(`  API / bare req/s = ${ratio.toFixed(3)} (medians); per round ${roundRatios.map((x) => x.toFixed(3)).join(", ")}, median ${median(roundRatios).toFixed(3)}`);
    return {
      rows,
      checks: [{ name: "API / bare req/s", value: ratio, target: `>= ${TARGET_RATIO}`, pass: ratio >= TARGET_RATIO, perRound: roundRatios, medianPerRound: median(roundRatios) }],
      notes,
      problems,
      // Without Connection/Date: the probe asked for Connection: close (the load runs keep-alive).
      response: { bytes: captured.body.length, contentType, headers: withoutKeys(captured.headers, ["connection", "date", "keep-alive"]) },
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

// Each scenario: a name for the table and the JSON, and a function that returns
// { rows?, checks: [{ name, value, target, pass }], problems: [] , ...details }. Throwing counts
// as a broken run; so does a non-empty `problems`.
const scenarios = [
  { name: "service-account read vs bare node:http", run: serviceAccountRead },
  // Later: cross-workspace listing, webhook delivery, reconciler.
];

const log = (line = "") => console.log(line);
const startedAt = new Date();
log(`bench: ${settings.rounds} rounds x ${settings.durationS} s, ${settings.connections} connections, pipelining ${settings.pipelining}, warm-up ${settings.warmupS} s`);
log(`machine: ${os.cpus().length} cpus, load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}, node ${process.version}`);

const results = [];
for (const scenario of scenarios) {
  log("");
  log(`== ${scenario.name}`);
  let result;
  try {
    result = await scenario.run({ log, settings });
  } catch (err) {
    // The message carries the useful part (e.g. the server's stderr); the stack goes to the JSON.
    result = { checks: [], problems: [err.message ?? String(err)], stack: err.stack };
  }
  const broken = result.problems.length > 0;
  for (const problem of result.problems) log(`  BROKEN: ${problem}`);
  for (const c of result.checks) log(`  ${broken ? "(unreliable) " : ""}${c.pass ? "PASS" : "FAIL"}  ${c.name} = ${c.value.toFixed(3)}, target ${c.target}`);
  results.push({ name: scenario.name, broken, ...result });
}

const broken = results.some((r) => r.broken);
const report = {
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  ok: !broken,
  pass: !broken && results.every((r) => r.checks.every((c) => c.pass)),
  settings,
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadavgAtEnd: os.loadavg(), node: process.version, platform: process.platform },
  scenarios: results,
};
await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
await writeFile(RESULTS_FILE, JSON.stringify(report, null, 2) + "\n");

log("");
log(`results written to ${path.relative(process.cwd(), RESULTS_FILE) || RESULTS_FILE}`);
log(broken ? "bench: BROKEN (see above); exit 1" : `bench: ${report.pass ? "all targets met" : "some targets missed"}`);
process.exitCode = broken ? 1 : 0;
